#!/usr/bin/env bash
# Debian packages tfbuild's full test suite needs: compilers (host and cross) and qemu-user for
# running cross-built programs, as the architectures' records list them
# (toolchains/architectures/*.toml), with each cross architecture's zlib (libz.a from Debian's
# zlib1g-dev for it, checked against its SHA-256, put into the cross system root /usr/<triple>/lib);
# autotools (protobuf's autogen.sh in --local Makefile builds), clang/lld/llvm 19 for the Android NDK stand-in
# (../shared/android-ndk-mini, whose bin/ scripts run them), debootstrap + docker.io for
# toolchain images, npm for Bazel, chromium to render the size report's HTML page headless;
# aapt (with aapt2), android-framework-res and a JDK to build and validate the Android AAR, junit4 to
# run the test trees' Java API tests, maven and its dependency plugin to resolve the AAR's Maven
# repository offline;
# nginx-light (with its WebDAV module), the HTTP cache server the remote-cache tests start on
# loopback for ccache and Bazel; redis-server, ccache's other remote storage.
# Safe to run again; uses sudo when not root.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The architectures' records are read with Python's standard library alone (python3 first).
architectures() { PYTHONPATH="$root" python3 -m tfbuild.toolchain.architectures "$1"; }
if ! command -v python3 >/dev/null; then
  $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends python3
fi
mapfile -t architecture_packages < <(architectures packages)
[ "${#architecture_packages[@]}" -gt 0 ] || { echo "no packages from toolchains/architectures" >&2; exit 1; }
packages=(
  make git ca-certificates curl autoconf automake libtool cmake
  "${architecture_packages[@]}"
  clang-19 lld-19 llvm-19
  docker.io debootstrap
  chromium
  aapt android-framework-res default-jdk-headless junit4 maven libmaven-dependency-plugin-java
  nginx-light redis-server
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
  # Packages that would start a service (nginx on port 80, redis) are installed without starting it:
  # the tests start their own servers on loopback.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 0755 "$policy"
  fi
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
  if [ -n "$policy" ]; then $SUDO rm -f "$policy"; fi
fi

# Each cross architecture's zlib, which the links of its programs name (-lz).
while read -r triple url sha256; do
  [ -e "/usr/${triple}/lib/libz.a" ] && continue
  work="$(mktemp -d)"
  curl -fsSL -o "$work/zlib.deb" "$url"
  echo "$sha256  $work/zlib.deb" | sha256sum -c --quiet -
  dpkg-deb -x "$work/zlib.deb" "$work/x"
  $SUDO install -D -m 0644 "$work/x/usr/lib/${triple}/libz.a" "/usr/${triple}/lib/libz.a"
  rm -rf "$work"
done < <(architectures zlib)
