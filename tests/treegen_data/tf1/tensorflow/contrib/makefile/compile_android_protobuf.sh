#!/bin/bash -e
# Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
# Builds protobuf 3 for Android.
#
# (tfbuild test tree: a stub at the real script's path; the test tree's
# stand-in framework needs no protobuf, nsync or downloaded dependencies.)

echo "$(basename "$0"): nothing to do in a tfbuild test tree"
