"""``tfbuild verify``: run the app's models on what a build made and compare with TensorFlow.

A selective build that links and loads can still compute the wrong thing: a kernel compiled
with the target's flags, a specialisation the header picked, a library that registers a kernel
under a different class. Only running the model shows it, so verification runs each model
twice on the same deterministic inputs and compares the final outputs and a few intermediate
tensors element by element:

- the reference: the installed TensorFlow wheel (:mod:`.tf_runner`), with a stock, non-selective
  build of the app's op sources loaded when the model uses custom ops;
- the target: the built binary. A Makefile build's ``libtensorflow-core.a`` is linked into a
  small C++ runner (:mod:`.cpp_runner`) that runs on this machine, or under qemu-user for ARM
  targets; a shared op library is loaded into the wheel's TensorFlow (:mod:`.tf_runner` again).

The modules, in the order the flow uses them: :mod:`.probe` (what to feed and fetch),
:mod:`.tensor_file` (the file both runners read and write), :mod:`.tf_runner`,
:mod:`.cpp_runner`, :mod:`.compare` (the element-wise verdict), and :mod:`.run` (the flow, and
its record in ``manifest.json``). This package imports nothing heavy at import time: the Python
runner is started as ``python -m tfbuild.pipeline.verify.tf_runner``.
"""
