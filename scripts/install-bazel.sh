#!/usr/bin/env bash
# Installs the Bazel release the tests and the bazel toolchain image use, from the npm package
# @bazel/bazel-linux_x64 (real Bazel binaries, with an embedded JDK, up to 2.1.0). 0.26.1 is the
# last release that builds C++ targets without downloading rules_cc.
# Lands in ~/.cache/tfbuild/bazel, where tests/tfbuild_testing.py's bazel_binary() and
# tfbuild.image_context look for it. Safe to run again.
set -euo pipefail
version="${BAZEL_VERSION:-0.26.1}"
prefix="${TFBUILD_CACHE_DIR:-$HOME/.cache/tfbuild}/bazel"
binary="$prefix/node_modules/@bazel/bazel-linux_x64/bazel-$version-linux-x86_64"
if [ ! -x "$binary" ]; then
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save "@bazel/bazel-linux_x64@$version"
fi
"$binary" --version 2>/dev/null || echo "installed $binary"
