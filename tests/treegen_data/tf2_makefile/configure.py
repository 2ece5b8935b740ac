# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
"""configure script to get build parameters from user.

(tfbuild test tree: only the Bazel version check and the Android NDK questions of
TensorFlow 2.0.0's script, which names its Bazel range in constants.)
"""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import os
import re
import subprocess
import sys

_SUPPORTED_ANDROID_NDK_VERSIONS = [10, 11, 12, 13, 14, 15, 16, 17, 18]

_TF_CURRENT_BAZEL_VERSION = None
_TF_MIN_BAZEL_VERSION = '0.24.1'
_TF_MAX_BAZEL_VERSION = '0.26.1'

_DEFAULT_PROMPT_ASK_ATTEMPTS = 10


def get_input(question):
  try:
    answer = input(question)
  except EOFError:
    answer = ''
  return answer


def prompt_loop_or_load_from_env(environ_cp,
                                 var_name,
                                 var_default,
                                 ask_for_var,
                                 check_success,
                                 error_msg,
                                 n_ask_attempts=_DEFAULT_PROMPT_ASK_ATTEMPTS):
  """Take the value from the environment, else ask until check_success accepts it."""
  default = environ_cp.get(var_name) or var_default
  full_query = '%s [Default is %s]: ' % (ask_for_var, default)
  for _ in range(n_ask_attempts):
    val = environ_cp.get(var_name) or get_input(full_query) or default
    if check_success(val):
      break
    print(error_msg % val)
    environ_cp[var_name] = ''
  else:
    raise Exception('Invalid %s setting was provided %d times in a row.' %
                    (var_name, n_ask_attempts))
  environ_cp[var_name] = val
  return val


def get_ndk_api_level(environ_cp, android_ndk_home_path):
  """Gets the appropriate NDK API level to use for the provided Android NDK path."""
  properties_path = '%s/source.properties' % android_ndk_home_path
  with open(properties_path, 'r') as f:
    filedata = f.read()
  revision = re.search(r'Pkg.Revision = (\d+)', filedata)
  if not revision:
    raise Exception('Unable to parse NDK revision.')
  ndk_version = revision.group(1)
  if int(ndk_version) not in _SUPPORTED_ANDROID_NDK_VERSIONS:
    print('WARNING: The NDK version in %s is %s, which is not supported by '
          'Bazel (officially supported versions: %s).\n' %
          (android_ndk_home_path, ndk_version, _SUPPORTED_ANDROID_NDK_VERSIONS))

  # The NDK API level is the *min* target SDK version, not the SDK API level.
  platforms = os.path.join(android_ndk_home_path, 'platforms')
  api_levels = sorted(os.listdir(platforms))
  api_levels = [x.replace('android-', '') for x in api_levels if 'android-' in x]

  def valid_api_level(api_level):
    return os.path.exists(
        os.path.join(android_ndk_home_path, 'platforms', 'android-' + api_level))

  android_ndk_api_level = prompt_loop_or_load_from_env(
      environ_cp,
      var_name='ANDROID_NDK_API_LEVEL',
      var_default='18',  # 18 is required for GPU acceleration.
      ask_for_var=('Please specify the (min) Android NDK API level to use. '
                   '[Available levels: %s]') % api_levels,
      check_success=valid_api_level,
      error_msg='Android-%s is not present in the NDK path.')

  return android_ndk_api_level


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
  global _TF_CURRENT_BAZEL_VERSION
  _TF_CURRENT_BAZEL_VERSION = check_bazel_version(_TF_MIN_BAZEL_VERSION,
                                                   _TF_MAX_BAZEL_VERSION)


if __name__ == '__main__':
  main()
