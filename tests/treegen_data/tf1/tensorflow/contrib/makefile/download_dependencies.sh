#!/bin/bash
# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
#
# (tfbuild test tree: creates the downloads directories TensorFlow's script
# fills - eigen, gemmlowp, googletest, nsync, re2, fft2d, double_conversion,
# absl, protobuf - but downloads nothing; the stand-in framework needs none.)

set -e

DOWNLOADS_DIR=tensorflow/contrib/makefile/downloads

for dir in eigen gemmlowp googletest nsync re2 fft2d double_conversion absl protobuf; do
  mkdir -p "${DOWNLOADS_DIR}/${dir}"
done

echo "download_dependencies.sh completed successfully." >&2
