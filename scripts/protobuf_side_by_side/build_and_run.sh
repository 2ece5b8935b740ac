#!/usr/bin/env bash
# Builds TensorFlow's renamed protobuf (google::protobuf3) from a tree that went through
# `tfbuild protobuf rename`, then links and runs a program that uses it next to Debian's own
# protobuf (google::protobuf, 3.12) in one static link. See README.md.
#
# usage: build_and_run.sh TF_TREE [PLAIN_DIR]
#   TF_TREE    TensorFlow 1.x checkout: download_dependencies.sh done, then tfbuild protobuf rename
#   PLAIN_DIR  optional negative control: a directory whose protobuf/ subdirectory is an
#              unrenamed copy of the same protobuf; it is built into PLAIN_DIR/install and the
#              program is linked against it instead, which must fail
# Environment: TFBUILD_IMAGE (default tfbuild-toolchain:linux-37e7827aac55df11, Debian bullseye),
#              JOBS (make -j inside the container, default 1), DOCKER_CPUS (default 1).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tree=$(cd "$1" && pwd)
image=${TFBUILD_IMAGE:-tfbuild-toolchain:linux-37e7827aac55df11}

mounts=(-v "$tree:/tree" -v "$here:/demo:ro")
args=(/tree /demo)
if [[ $# -eq 2 ]]; then
  plain=$(cd "$2" && pwd)
  [[ -d "$plain/protobuf/src/google/protobuf" ]] || {
    echo "$plain/protobuf/src/google/protobuf is missing: PLAIN_DIR/protobuf must be an unrenamed protobuf" >&2
    exit 2
  }
  mounts+=(-v "$plain:/plain")
  args+=(/plain)
fi

[[ -d "$tree/tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf3" ]] || {
  echo "$tree: protobuf is not renamed; run: tfbuild protobuf rename --source $tree" >&2
  exit 2
}

start=$SECONDS
docker run --rm --cpus "${DOCKER_CPUS:-1}" -e "JOBS=${JOBS:-1}" "${mounts[@]}" "$image" \
  bash /demo/in_container.sh "${args[@]}"
echo "build_and_run.sh: done in $((SECONDS - start)) s"
