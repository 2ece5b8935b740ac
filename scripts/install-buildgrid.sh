#!/usr/bin/env bash
# Installs BuildGrid (PyPI), the REAPI server the remote-cache tests start on loopback as
# Bazel's gRPC cache (ActionCache, CAS, ByteStream in memory). It gets a venv of its own in
# tfbuild's cache: its gRPC and protobuf pins are its own business, not TensorFlow's.
# tests/remote_servers.py looks for bgd there. Safe to run again.
set -euo pipefail
version="${BUILDGRID_VERSION:-0.4.4}"
venv="${TFBUILD_CACHE_DIR:-$HOME/.cache/tfbuild}/buildgrid-$version"
if [ ! -x "$venv/bin/bgd" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "buildgrid==$version"
fi
echo "buildgrid $version: $venv/bin/bgd"
