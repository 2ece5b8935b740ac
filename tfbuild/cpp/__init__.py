"""C++ as TensorFlow's kernel sources write it: the preprocessor, macros, conditions and the
kernel and op registrations both tree indexes read (:mod:`tfbuild.cpp.scan`)."""

KERNELS_DIR = "tensorflow/core/kernels"
"""Where a TensorFlow tree keeps its kernels (and the Bazel package that builds them): named
here, where importing it loads none of the scanner, for the tree modules above too."""
