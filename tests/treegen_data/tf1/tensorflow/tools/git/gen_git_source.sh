#!/usr/bin/env bash
# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
#
# (tfbuild test tree: TensorFlow 1.x's script as it stands. The contrib Makefile runs it on
# every build to write tensorflow/core/util/version_info.cc, naming the checked-out commit.)

OUTPUT_FILENAME=$1
if [[ -z "${OUTPUT_FILENAME}"  ]]; then
  echo "Usage: $0 <filename>"
  exit 1
fi

GIT_VERSION=$(git describe --long --tags)
if [[ $? != 0 ]]; then
   GIT_VERSION=unknown;
fi

cat <<EOF > ${OUTPUT_FILENAME}
#include <string>
const char* tf_git_version() {return "${GIT_VERSION}";}
const char* tf_compiler_version() {return __VERSION__;}
const int tf_cxx11_abi_flag() {
#ifdef _GLIBCXX_USE_CXX11_ABI
  return _GLIBCXX_USE_CXX11_ABI;
#else
  return 0;
#endif
}
EOF
