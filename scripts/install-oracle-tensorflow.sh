#!/usr/bin/env bash
# Installs an older TensorFlow (tensorflow-cpu, PyPI) in a venv of its own in tfbuild's cache:
# the oracle the tests compare tfbuild against (its kernel registry, dumped by
# tfbuild.model.registry_dump run from the repository with PYTHONPATH, and its own
# print_selective_registration_header). tfbuild is not installed there, and the old wheel's
# pins are its own business, not the project's. 2.14.1: the smallest tensorflow-cpu wheel for
# Python 3.11 (198 MB; 270 MB with its dependencies) but 2.13.1's (187 MB). Its own metadata
# bounds what it needs (numpy<2, protobuf<5, ml-dtypes==0.2.0), so nothing is pinned here.
# tests/oracle_tensorflow.py looks for the venv there. Safe to run again; prints the python path.
set -euo pipefail
version="${ORACLE_TENSORFLOW_VERSION:-2.14.1}"
venv="${TFBUILD_CACHE_DIR:-$HOME/.cache/tfbuild}/oracle-tensorflow-$version"
# Written last: a venv whose install was interrupted lacks it and is completed on the next run.
marker="$venv/.tfbuild-oracle-installed"
if [ ! -f "$marker" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "tensorflow-cpu==$version"
  TF_CPP_MIN_LOG_LEVEL=2 "$venv/bin/python" -c 'import tensorflow'
  echo "tensorflow-cpu==$version" >"$marker"
fi
echo "$venv/bin/python"
