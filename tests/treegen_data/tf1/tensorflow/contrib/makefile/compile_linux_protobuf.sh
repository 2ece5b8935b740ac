#!/bin/bash -e
# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
# Builds protobuf 3 for Linux inside the local build tree.
#
# (tfbuild test tree: a stub at the real script's path; the test tree's
# stand-in framework needs no protobuf, nsync or downloaded dependencies.)

# Leaves an (empty) archive where the real script installs protobuf, so builds and their
# artifact lists see the real layout.
cd "$(dirname "$0")"
mkdir -p gen/protobuf/lib
[ -f gen/protobuf/lib/libprotobuf.a ] || ar rcs gen/protobuf/lib/libprotobuf.a
echo "$(basename "$0"): stub protobuf in $(pwd)/gen/protobuf"
