# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
"""configure script to get build parameters from user.

(tfbuild test tree: only the Bazel version bounds of TensorFlow 2.x's script;
the version wanted is the one in .bazelversion.)
"""

import os

_TF_CURRENT_BAZEL_VERSION = None
_TF_MIN_BAZEL_VERSION = '3.7.2'
_TF_MAX_BAZEL_VERSION = '3.99.0'

_TF_WORKSPACE_ROOT = os.path.dirname(os.path.abspath(__file__))


def main():
  global _TF_CURRENT_BAZEL_VERSION
  with open(os.path.join(_TF_WORKSPACE_ROOT, '.bazelversion')) as f:
    _TF_CURRENT_BAZEL_VERSION = f.read().strip()


if __name__ == '__main__':
  main()
