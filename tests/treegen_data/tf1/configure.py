# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
"""configure script to get build parameters from user.

(tfbuild test tree: only the Bazel version check of TensorFlow 1.12's script.)
"""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import subprocess
import sys


def convert_version_to_int(version):
  """Convert a version number to a integer that can be used to compare.

  Version strings of the form X.YZ and X.Y.Z-xxxxx are supported. The
  'xxxxx' part, for instance 'homebrew' on OS/X, is ignored.
  """
  version = version.split('-')[0]
  version_segments = version.split('.')
  for seg in version_segments:
    if not seg.isdigit():
      return None

  version_str = ''.join(['%03d' % int(seg) for seg in version_segments])
  return int(version_str)


def check_bazel_version(min_version, max_version):
  """Check installed bazel version is between min_version and max_version.

  Args:
    min_version: string for minimum bazel version.
    max_version: string for maximum bazel version.

  Returns:
    The bazel version detected.
  """
  try:
    output = subprocess.check_output(['bazel', '--batch', 'version'])
  except OSError:
    print('Cannot find bazel. Please install bazel.')
    sys.exit(0)
  curr_version = ''
  for line in output.decode('UTF-8').splitlines():
    if line.startswith('Build label: '):
      curr_version = line[len('Build label: '):]
      break

  min_version_int = convert_version_to_int(min_version)
  curr_version_int = convert_version_to_int(curr_version)
  max_version_int = convert_version_to_int(max_version)

  if curr_version_int < min_version_int:
    print('Please upgrade your bazel installation to version %s or higher to '
          'build TensorFlow!' % min_version)
    sys.exit(0)
  if curr_version_int > max_version_int:
    print('Please downgrade your bazel installation to version %s or lower to '
          'build TensorFlow!' % max_version)
    sys.exit(0)
  return curr_version


def main():
  # Make a copy of os.environ to be clear when functions and getting and setting
  # environment variables.
  check_bazel_version('0.19.0', '0.20.0')


if __name__ == '__main__':
  main()
