# Cross-compiles protobuf for a target that has no compile_*_protobuf.sh of its own (tfbuild).
# Runs as `bash -c <this> bash SRC PREFIX HOST CXX PROTOC JOBS [NAME=VALUE...]`: every value
# arrives as an argument, never as shell text; the NAME=VALUE words go to configure as they are
# (CC, AR, flags). Builds in a scratch copy of the downloaded sources, so the in-tree configure
# that compile_linux_protobuf.sh leaves behind is neither used nor disturbed.
set -eu
src="$1"; prefix="$2"; host="$3"; cxx="$4"; protoc="$5"; jobs="$6"
shift 6
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp -a "$src/." "$build/"
cd "$build"
if [ -f Makefile ]; then make distclean; fi
if [ ! -x configure ]; then ./autogen.sh; fi
./configure --host="$host" --disable-shared --enable-cross-compile \
  --with-protoc="$protoc" --prefix="$prefix" CXX="$cxx" "$@"
make -j"$jobs"
make install
