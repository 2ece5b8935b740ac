#!/bin/bash
# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# ==============================================================================
#
# (tfbuild test tree: creates the downloads directories TensorFlow's script
# fills - eigen, gemmlowp, googletest, nsync, re2, fft2d, double_conversion,
# absl, protobuf - but downloads nothing. nsync and protobuf get small stand-ins
# built the way the real ones are: nsync through the per-platform Makefile
# compile_nsync.sh generates (platform/posix/make.common), protobuf through an
# autoconf-style ./configure (--host, --prefix, --with-protoc, CXX=, AR=) and
# make; each compiles one source into its library, so a build shows which
# compiler made it.)

set -e

DOWNLOADS_DIR=tensorflow/contrib/makefile/downloads

for dir in eigen gemmlowp googletest nsync re2 fft2d double_conversion absl protobuf; do
  mkdir -p "${DOWNLOADS_DIR}/${dir}"
done

NSYNC="${DOWNLOADS_DIR}/nsync"
mkdir -p "${NSYNC}/public" "${NSYNC}/internal" "${NSYNC}/platform/posix" "${NSYNC}/builds"
cat > "${NSYNC}/public/nsync.h" <<'END'
#ifndef NSYNC_PUBLIC_NSYNC_H_
#define NSYNC_PUBLIC_NSYNC_H_
/* nsync stand-in of a tfbuild test tree. */
int nsync_standin_version(void);
#endif
END
cat > "${NSYNC}/internal/mu.c" <<'END'
/* nsync stand-in: C source that nsync's Makefiles compile as C++ ($(CC) is a C++ driver). */
#include "nsync.h"
int nsync_standin_version(void) { return 1201; }
END
cat > "${NSYNC}/platform/posix/make.common" <<'END'
# nsync's platform/posix/make.common (stand-in): the sources compiled with the platform
# Makefile's CC, PLATFORM_CPPFLAGS and PLATFORM_CFLAGS, archived with $(AR) into nsync.a.
CPPFLAGS=-I../../public -I../../internal $(PLATFORM_CPPFLAGS)
CFLAGS=$(PLATFORM_CFLAGS)
NSYNC_SRC_C=../../internal/mu.c
NSYNC_OBJS=mu.o

nsync.a: $(NSYNC_OBJS)
	rm -f nsync.a
	$(AR) rcs nsync.a $(NSYNC_OBJS)

mu.o: ../../internal/mu.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c ../../internal/mu.c -o mu.o

depend:
	$(MKDEP) $(CPPFLAGS) $(NSYNC_SRC_C) > dependfile

clean:
	rm -f *.o nsync.a
END

PROTOBUF="${DOWNLOADS_DIR}/protobuf"
mkdir -p "${PROTOBUF}/src/google/protobuf/stubs"
cat > "${PROTOBUF}/src/google/protobuf/stubs/common.h" <<'END'
#ifndef GOOGLE_PROTOBUF_STUBS_COMMON_H__
#define GOOGLE_PROTOBUF_STUBS_COMMON_H__
// protobuf stand-in of a tfbuild test tree.
namespace google { namespace protobuf { int StandinVersion(); } }
#endif
END
cat > "${PROTOBUF}/src/google/protobuf/stubs/common.cc" <<'END'
#include "google/protobuf/stubs/common.h"
namespace google { namespace protobuf { int StandinVersion() { return 3006001; } } }
END
cat > "${PROTOBUF}/configure" <<'END'
#!/bin/bash
# protobuf's configure (stand-in): the options a cross build gives the real one.
set -e
prefix=/usr/local host= protoc= CXX="${CXX:-g++}" CXXFLAGS="${CXXFLAGS:--O2}" AR="${AR:-ar}"
for arg in "$@"; do
  case "$arg" in
    --prefix=*) prefix="${arg#*=}";;
    --host=*) host="${arg#*=}";;
    --with-protoc=*) protoc="${arg#*=}";;
    --disable-shared|--enable-cross-compile|--build=*|--with-sysroot=*) ;;
    CXX=*) CXX="${arg#*=}";;
    CXXFLAGS=*) CXXFLAGS="${arg#*=}";;
    CC=*|CFLAGS=*|LDFLAGS=*|LIBS=*) ;;
    AR=*) AR="${arg#*=}";;
    *) echo "configure: unknown option $arg" >&2; exit 1;;
  esac
done
if [ -n "$host" ] && [ -z "$protoc" ]; then
  echo "configure: error: a cross build (--host=$host) needs --with-protoc" >&2; exit 1
fi
{
  echo "prefix = $prefix"
  echo "CXX = $CXX"
  echo "CXXFLAGS = $CXXFLAGS"
  echo "AR = $AR"
  cat Makefile.in
} > Makefile
echo "configure: protobuf for ${host:-this machine} with $CXX, into $prefix"
END
chmod +x "${PROTOBUF}/configure"
cat > "${PROTOBUF}/Makefile.in" <<'END'
all: src/.libs/libprotobuf.a
src/.libs/libprotobuf.a: src/google/protobuf/stubs/common.cc
	mkdir -p src/.libs
	$(CXX) $(CXXFLAGS) -Isrc -c src/google/protobuf/stubs/common.cc -o src/.libs/common.o
	rm -f $@
	$(AR) rcs $@ src/.libs/common.o
install: all
	mkdir -p $(prefix)/lib $(prefix)/include/google/protobuf/stubs
	cp src/.libs/libprotobuf.a $(prefix)/lib/
	cp src/google/protobuf/stubs/common.h $(prefix)/include/google/protobuf/stubs/
distclean:
	rm -rf Makefile src/.libs
END

echo "download_dependencies.sh completed successfully." >&2
