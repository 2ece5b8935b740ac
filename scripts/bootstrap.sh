#!/usr/bin/env bash
# Set up tfbuild in ./.venv on a fresh Debian machine: the Debian packages the main job needs
# (venv support, g++ for compiling op libraries), then tfbuild and its test dependencies.
# Safe to run again. Uses sudo for apt-get when not root.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
need=()
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
command -v g++ >/dev/null || need+=(g++)
if [ "${#need[@]}" -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
echo "tfbuild installed in $(pwd)/.venv"
