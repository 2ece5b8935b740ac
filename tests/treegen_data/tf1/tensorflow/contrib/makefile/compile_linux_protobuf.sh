#!/bin/bash -e
# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
# Builds protobuf 3 for Linux inside the local build tree.
#
# (tfbuild test tree: the real script's steps on the stand-in protobuf that
# download_dependencies.sh writes: autogen.sh, configure --prefix=gen/protobuf
# --with-pic, make, make install, so gen/protobuf holds libprotobuf.a,
# libprotobuf-lite.a, the headers and bin/protoc, and gen/protobuf-host links to
# it (a relative link here). Run from the root of the tree, as the real one.)

GENDIR="$(pwd)/tensorflow/contrib/makefile/gen/protobuf"
HOST_GENDIR="$(pwd)/tensorflow/contrib/makefile/gen/protobuf-host"
mkdir -p "${GENDIR}"
[ -e "${HOST_GENDIR}" ] || ln -s protobuf "${HOST_GENDIR}"  # relative: the same inside a container

if [[ ! -f "tensorflow/contrib/makefile/downloads/protobuf/autogen.sh" ]]; then
    echo "You need to download dependencies before running this script." 1>&2
    echo "tensorflow/contrib/makefile/download_dependencies.sh" 1>&2
    exit 1
fi

cd tensorflow/contrib/makefile/downloads/protobuf

./autogen.sh
./configure --prefix="${GENDIR}" --with-pic
make clean
make
make install

echo "$(basename "$0") finished successfully!!!"
