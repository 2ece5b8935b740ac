"""Pure text edits of TensorFlow's own build files, one module per file format.

Every function here takes a file's text and returns new text (plus what it did) without
touching the disk, so an edit can be shown as a diff before anything is written and tested
against inline fixtures shaped like the real files. :mod:`tfbuild.tree.edits` decides what to
add and writes the results.

- :mod:`.op_files_list`: ``tensorflow/contrib/makefile/tf_op_files.txt`` (Makefile flavour).
- :mod:`.kernels_build`: the mobile filegroups of ``tensorflow/core/kernels/BUILD`` (Bazel flavour).
"""
