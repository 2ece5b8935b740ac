#!/usr/bin/env bash
# Debian packages tfbuild's full test suite needs: compilers (host and cross), autotools (protobuf's
# autogen.sh in --local Makefile builds), qemu-user for
# running cross-built programs, clang/lld/llvm 19 for the Android NDK stand-in
# (../shared/android-ndk-mini, whose bin/ scripts run them), debootstrap + docker.io for
# toolchain images, npm for Bazel, chromium to render the size report's HTML page headless;
# aapt (with aapt2), android-framework-res and a JDK to build and validate the Android AAR.
# Safe to run again; uses sudo when not root.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(
  g++ make git ca-certificates autoconf automake libtool cmake
  g++-arm-linux-gnueabihf g++-aarch64-linux-gnu binutils-arm-linux-gnueabihf binutils-aarch64-linux-gnu
  qemu-user
  clang-19 lld-19 llvm-19
  docker.io debootstrap
  chromium
  aapt android-framework-res default-jdk-headless
)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# npm installs Bazel; a Node.js from elsewhere (NodeSource) ships its own npm and conflicts
# with Debian's package, so Debian's is only taken when there is no npm at all.
command -v npm >/dev/null || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
