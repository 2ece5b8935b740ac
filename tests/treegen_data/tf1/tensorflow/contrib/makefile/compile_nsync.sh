#!/bin/bash -e
# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
# Compile the nsync library for the platforms given as arguments.
#
# (tfbuild test tree: a stub at the real script's path; the test tree's
# stand-in framework needs no protobuf, nsync or downloaded dependencies.)

# Like the real script: build (here: an empty archive) under downloads/nsync/builds/<arch>
# and print the library's path.
cd "$(dirname "$0")"
lib=downloads/nsync/builds/default.linux.c++11/nsync.a
mkdir -p "$(dirname "$lib")"
[ -f "$lib" ] || ar rcs "$lib"
echo "$(pwd)/$lib"
