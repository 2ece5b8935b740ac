#!/usr/bin/env bash
# What CI needs for the docker-marked tests: a Docker engine, the Debian base image (made with
# debootstrap, no registry needed) and the toolchain images the tests build in.
# Expects tfbuild on PATH (.ci/run puts .venv/bin first) and Bazel installed by
# scripts/install-bazel.sh (the bazel image copies that binary). Safe to run again: existing
# images are reused, so a warm machine spends seconds here.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
start=$(date +%s)
stamp() { echo "[docker-setup $(( $(date +%s) - start ))s] $*"; }

missing=()
command -v docker >/dev/null || missing+=(docker.io)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  stamp "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! $SUDO docker info >/dev/null 2>&1; then
  stamp "starting dockerd"
  $SUDO sh -c 'nohup dockerd > /var/log/tfbuild-dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do
    $SUDO docker info >/dev/null 2>&1 && break
    sleep 1
  done
  $SUDO docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/tfbuild-dockerd.log" >&2; exit 1; }
fi
if ! docker info >/dev/null 2>&1; then
  echo "the Docker engine runs but $(id -un) cannot use it: add the user to the docker group" >&2
  exit 1
fi

stamp "base images"
# debootstrap needs root; keep tfbuild's environment (PATH to the venv) under sudo.
# bookworm: the default, and what op libraries against the installed wheel build on.
# bullseye: what plans choose for TF 1.x trees (the tests' trees say ubuntu:16.04).
$SUDO env "PATH=$PATH" tfbuild toolchain base --suite bookworm
$SUDO env "PATH=$PATH" tfbuild toolchain base --suite bullseye
stamp "linux toolchain images"
tfbuild toolchain build linux
tfbuild toolchain build linux --base tfbuild-base:bullseye
stamp "bazel toolchain image"
# The same arguments the Bazel flavour's plan gives the image (the tests' trees pin 0.26.1 in
# .bazelversion and say ubuntu:16.04), so the plans find this image instead of building their own.
tfbuild toolchain build bazel --base tfbuild-base:bullseye --build-arg BAZEL_VERSION=0.26.1
stamp "done"
tfbuild toolchain list
