#!/bin/bash -e
# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
# Builds protobuf 3 for Linux inside the local build tree, then the TensorFlow
# core library and the benchmark tool.
#
# (tfbuild test tree: same steps and make invocation as TensorFlow's script;
# the dependency scripts are stubs.)

if [[ $(uname) != "Linux" ]]; then
  echo "This script only runs on Linux."
  exit 1
fi

# Make sure we're in the correct directory, at the root of the source tree.
SCRIPT_DIR="$( cd "$( dirname "${BASH_SOURCE[0]}" )" && pwd )"
cd "${SCRIPT_DIR}/../../../"

JOB_COUNT="${JOB_COUNT:-$(nproc)}"

# Remove any old files first.
make -f tensorflow/contrib/makefile/Makefile clean
rm -rf tensorflow/contrib/makefile/downloads

# Pull down the required versions of the frameworks we need.
tensorflow/contrib/makefile/download_dependencies.sh

# Compile protobuf.
tensorflow/contrib/makefile/compile_linux_protobuf.sh

# Compile nsync.
tensorflow/contrib/makefile/compile_nsync.sh

# Build TensorFlow.
make -j"${JOB_COUNT}" -f tensorflow/contrib/makefile/Makefile \
  OPTFLAGS="-O3 -march=native" \
  HOST_CXXFLAGS="--std=c++11 -march=native"
