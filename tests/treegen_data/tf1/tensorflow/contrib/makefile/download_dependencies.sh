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
# autoconf-style ./configure (--host, --prefix, --with-protoc, --with-pic, CXX=,
# AR=) and make: libprotobuf.a, libprotobuf-lite.a, the headers and protoc (a
# script with protoc's C++ generator, `--cpp_out [lite:]DIR`). Their objects
# show which compiler made them.)

set -e

DOWNLOADS_DIR=tensorflow/contrib/makefile/downloads

for dir in eigen gemmlowp googletest nsync re2 fft2d double_conversion absl protobuf; do
  mkdir -p "${DOWNLOADS_DIR}/${dir}"
done
# Eigen is headers only and the stand-in's sources include none; like a finished download, its
# directory is not empty (tfbuild refuses a downloads/ whose eigen is).
echo "Eigen stand-in of a tfbuild test tree: no headers needed." > "${DOWNLOADS_DIR}/eigen/COPYING.README"

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
cat > "${PROTOBUF}/src/google/protobuf/message_lite.h" <<'END'
#ifndef GOOGLE_PROTOBUF_MESSAGE_LITE_H__
#define GOOGLE_PROTOBUF_MESSAGE_LITE_H__
// protobuf stand-in of a tfbuild test tree: the base of every generated message.
#include <string>
#include <google/protobuf/stubs/common.h>
namespace google {
namespace protobuf {
class MessageLite {
 public:
  virtual ~MessageLite() {}
  virtual std::string GetTypeName() const = 0;
};
namespace internal {
// Where protoc's lite output registers its messages when the program starts. Defined in
// message_lite.cc, which the stand-in builds into libprotobuf-lite.a only (protobuf's
// libprotobuf.a holds the lite runtime too; leaving it out here makes a lite build that links
// the full library fail to link instead of shipping it unnoticed).
bool RegisterLiteMessage(const char* type_name);
}  // namespace internal
}  // namespace protobuf
}  // namespace google
#endif
END
cat > "${PROTOBUF}/src/google/protobuf/message_lite.cc" <<'END'
#include <google/protobuf/message_lite.h>
namespace google {
namespace protobuf {
namespace internal {
bool RegisterLiteMessage(const char* type_name) {
  static int registered = 0;
  ++registered;
  return type_name != nullptr;
}
}  // namespace internal
}  // namespace protobuf
}  // namespace google
END
cat > "${PROTOBUF}/src/google/protobuf/descriptor.h" <<'END'
#ifndef GOOGLE_PROTOBUF_DESCRIPTOR_H__
#define GOOGLE_PROTOBUF_DESCRIPTOR_H__
// protobuf stand-in of a tfbuild test tree: the full runtime's pool of the descriptors every
// generated message registers (here empty, and in the header, so the full library needs
// nothing it did not have). The lite runtime has none.
namespace google {
namespace protobuf {
class DescriptorPool {
 public:
  static const DescriptorPool* generated_pool() {
    static DescriptorPool pool;
    return &pool;
  }
};
}  // namespace protobuf
}  // namespace google
#endif
END
cat > "${PROTOBUF}/src/google/protobuf/message.h" <<'END'
#ifndef GOOGLE_PROTOBUF_MESSAGE_H__
#define GOOGLE_PROTOBUF_MESSAGE_H__
// protobuf stand-in of a tfbuild test tree: the full runtime's message, which can print
// itself in text format (protobuf does it through reflection; here each generated class
// prints its own fields, so the full library needs nothing it did not have).
#include <string>
#include <google/protobuf/message_lite.h>
namespace google {
namespace protobuf {
class Message : public MessageLite {
 public:
  virtual std::string DebugString() const = 0;
};
}  // namespace protobuf
}  // namespace google
#endif
END
# protoc's C++ generator, as a script (it runs wherever the build runs, host or cross).
cat > "${PROTOBUF}/src/protoc.sh" <<'END'
#!/bin/bash
# protoc (stand-in of a tfbuild test tree): protobuf's compiler with its C++ generator only.
#   protoc FILE.proto... --cpp_out [lite:]DIR      (or --cpp_out=[lite:]DIR)
# FILE is found from the working directory (no -I) and may hold proto3 messages of scalar
# fields (string, bytes, bool, int32, int64, uint32, uint64, float, double); its imports are
# read and skipped (the messages use no imported type, so no include is needed). Writes
# DIR/<FILE without .proto>.pb.h and .pb.cc. With the generator's `lite` option the classes
# derive from google::protobuf::MessageLite and have no DebugString() (the full runtime's
# text format), and the .pb.cc registers them with libprotobuf-lite when the program starts.
set -euo pipefail
out="" files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cpp_out) out="${2:-}"; shift;;
    --cpp_out=*) out="${1#--cpp_out=}";;
    --version) echo "libprotoc 3.6.1 (tfbuild test tree stand-in)"; exit 0;;
    -*) echo "protoc: the stand-in does not take $1" >&2; exit 1;;
    *) files+=("$1");;
  esac
  shift
done
if [ -z "$out" ] || [ "${#files[@]}" -eq 0 ]; then
  echo "protoc: usage: protoc FILE.proto... --cpp_out [lite:]DIR" >&2; exit 1
fi
lite=0
case "$out" in
  *:*) options="${out%%:*}"; out="${out#*:}"
       for option in ${options//,/ }; do
         case "$option" in
           lite) lite=1;;
           *) echo "protoc: unknown C++ generator option '$option'" >&2; exit 1;;
         esac
       done;;
esac

# A file name as protoc spells it in identifiers: every character but letters and digits as _XX.
identifier() {
  local name="$1" result="" char i
  for ((i = 0; i < ${#name}; i++)); do
    char="${name:i:1}"
    case "$char" in
      [A-Za-z0-9]) result+="$char";;
      *) result+="$(printf '_%02x' "'$char")";;
    esac
  done
  printf '%s' "$result"
}

# The .proto as lines: "package NAME", "message NAME", "field TYPE NAME NUMBER", "end".
parse() {
  awk '
    { sub(/\/\/.*/, ""); text = text " " $0 }
    function fail(what) { printf "protoc: %s: %s\n", FILENAME, what > "/dev/stderr"; failed = 1; exit 1 }
    END {
      if (failed) exit 1
      gsub(/[{};=]/, " & ", text)
      n = split(text, raw, /[ \t]+/)
      count = 0
      for (i = 1; i <= n; i++) if (raw[i] != "") tokens[++count] = raw[i]
      inside = 0
      for (i = 1; i <= count; i++) {
        word = tokens[i]
        if (!inside) {
          if (word == "syntax" || word == "option" || word == "import") { while (i <= count && tokens[i] != ";") i++ }
          else if (word == "package") { print "package " tokens[i + 1]; i += 2 }
          else if (word == "message") { print "message " tokens[i + 1]; i += 2; inside = 1 }
          else fail("the stand-in reads syntax, package, option, import and message, not \"" word "\"")
        } else if (word == "}") { print "end"; inside = 0 }
        else if (tokens[i + 2] == "=" && tokens[i + 4] == ";") {
          print "field " word " " tokens[i + 1] " " tokens[i + 3]; i += 4
        } else fail("the stand-in reads fields \"TYPE NAME = NUMBER;\", not \"" word " " tokens[i + 1] " ...\"")
      }
    }' "$1"
}

cpp_type() {
  case "$1" in
    string|bytes) echo "std::string";;
    bool) echo "bool";;
    int32) echo "std::int32_t";; int64) echo "std::int64_t";;
    uint32) echo "std::uint32_t";; uint64) echo "std::uint64_t";;
    float) echo "float";; double) echo "double";;
    *) echo "protoc: the stand-in has no field type '$1'" >&2; return 1;;
  esac
}

generate() {
  local proto="$1" base="${1%.proto}" id descriptor package namespaces=()
  local header="$out/${1%.proto}.pb.h" source="$out/${1%.proto}.pb.cc"
  local base_class="::google::protobuf::Message" runtime_header="message.h" options="none"
  if [ "$lite" = 1 ]; then
    base_class="::google::protobuf::MessageLite" runtime_header="message_lite.h" options="lite"
  fi
  id="$(identifier "$proto")"
  descriptor="$(parse "$proto")"
  package="$(sed -n 's/^package //p' <<<"$descriptor")"
  IFS=. read -r -a namespaces <<<"$package"
  mkdir -p "$(dirname "$header")"
  local banner="// Generated by the protocol buffer compiler.  DO NOT EDIT!
// source: $proto (the stand-in protoc of a tfbuild test tree; C++ generator options: $options)"
  {
    printf '%s\n\n' "$banner"
    printf '#ifndef PROTOBUF_INCLUDED_%s\n#define PROTOBUF_INCLUDED_%s\n\n' "$id" "$id"
    printf '#include <cstdint>\n#include <string>\n\n#include <google/protobuf/%s>\n\n' "$runtime_header"
    for namespace in "${namespaces[@]}"; do echo "namespace $namespace {"; done
  } > "$header"
  {
    printf '%s\n\n#include "%s.pb.h"\n\n' "$banner" "$base"
    [ "$lite" = 1 ] || printf '#include <sstream>\n\n'
    for namespace in "${namespaces[@]}"; do echo "namespace $namespace {"; done
  } > "$source"
  local kind word1 word2 word3 message="" type accessors="" fields="" init="" text="" registered=()
  while read -r kind word1 word2 word3; do
    case "$kind" in
      message) message="$word1" accessors="" fields="" init="" text="";;
      field)  # word1 TYPE, word2 NAME, word3 NUMBER
        type="$(cpp_type "$word1")"
        accessors+="  // $word1 $word2 = $word3;"$'\n'
        if [ "$type" = "std::string" ]; then
          accessors+="  const std::string& $word2() const { return ${word2}_; }"$'\n'
          accessors+="  void set_$word2(const std::string& value) { ${word2}_ = value; }"$'\n'
          text+="  if (!${word2}_.empty()) text << \"$word2: \\\"\" << ${word2}_ << \"\\\"\\n\";"$'\n'
        else
          accessors+="  $type $word2() const { return ${word2}_; }"$'\n'
          accessors+="  void set_$word2($type value) { ${word2}_ = value; }"$'\n'
          if [ "$type" = bool ]; then
            text+="  if (${word2}_) text << \"$word2: true\\n\";"$'\n'
          else
            text+="  if (${word2}_ != 0) text << \"$word2: \" << ${word2}_ << \"\\n\";"$'\n'
          fi
        fi
        fields+="  $type ${word2}_;"$'\n'
        init+="${init:+, }${word2}_()";;
      end)
        registered+=("${package:+$package.}$message")
        {
          printf '\nclass %s : public %s {\n public:\n' "$message" "$base_class"
          printf '  %s();\n  std::string GetTypeName() const override;\n' "$message"
          [ "$lite" = 1 ] || printf '  std::string DebugString() const override;\n'
          printf '\n%s\n private:\n%s};\n' "$accessors" "$fields"
        } >> "$header"
        {
          printf '\n%s::%s()%s {}\n\n' "$message" "$message" "${init:+ : $init}"
          printf 'std::string %s::GetTypeName() const { return "%s"; }\n' "$message" "${package:+$package.}$message"
          if [ "$lite" = 0 ]; then
            printf '\nstd::string %s::DebugString() const {\n  std::ostringstream text;\n%s  return text.str();\n}\n' \
              "$message" "$text"
          fi
        } >> "$source"
        ;;
    esac
  done <<<"$descriptor"
  {
    echo
    for ((i = ${#namespaces[@]} - 1; i >= 0; i--)); do echo "}  // namespace ${namespaces[i]}"; done
    printf '\n#endif  // PROTOBUF_INCLUDED_%s\n' "$id"
  } >> "$header"
  {
    echo
    for ((i = ${#namespaces[@]} - 1; i >= 0; i--)); do echo "}  // namespace ${namespaces[i]}"; done
    if [ "$lite" = 1 ]; then
      printf '\n// The lite runtime learns of the file'"'"'s messages when the program starts.\nnamespace {\n'
      printf 'const bool %s_registered =' "$id"
      local separator=$'\n    '
      for name in "${registered[@]}"; do
        printf '%s::google::protobuf::internal::RegisterLiteMessage("%s")' "$separator" "$name"
        separator=" &&"$'\n    '
      done
      printf ';\n}  // namespace\n'
    fi
  } >> "$source"
}

for proto in "${files[@]}"; do
  case "$proto" in
    *.proto) [ -f "$proto" ] || { echo "protoc: $proto: No such file or directory" >&2; exit 1; };;
    *) echo "protoc: $proto: not a .proto file" >&2; exit 1;;
  esac
  generate "$proto"
done
END
chmod +x "${PROTOBUF}/src/protoc.sh"
cat > "${PROTOBUF}/src/Makefile.am" <<'END'
# protobuf's src/Makefile.am (stand-in): what each library is built from and which headers
# are installed. rename_protobuf.sh rewrites the paths here as it moves the sources.
libprotobuf_lite_la_SOURCES = google/protobuf/stubs/common.cc google/protobuf/message_lite.cc
libprotobuf_la_SOURCES = google/protobuf/stubs/common.cc
nobase_include_HEADERS = google/protobuf/stubs/common.h google/protobuf/message_lite.h \
  google/protobuf/message.h google/protobuf/descriptor.h
END
cat > "${PROTOBUF}/autogen.sh" <<'END'
#!/bin/bash
# protobuf 3.6.1's autogen.sh (stand-in): no Google Mock download (googletest is a git submodule
# in third_party/googletest, which the release archive leaves empty); configure is shipped ready.
set -e
mkdir -p third_party/googletest/m4
[ -x configure ]
END
chmod +x "${PROTOBUF}/autogen.sh"
cat > "${PROTOBUF}/configure.ac" <<'END'
# protobuf 3.6.1's configure.ac (stand-in): the line that names what configure recurses into.
AC_CONFIG_SUBDIRS([third_party/googletest])
END
cat > "${PROTOBUF}/configure" <<'END'
#!/bin/bash
# protobuf's configure (stand-in): the options a cross build gives the real one.
set -e
prefix=/usr/local host= protoc= pic= CXX="${CXX:-g++}" CXXFLAGS="${CXXFLAGS:--O2}" AR="${AR:-ar}"
for arg in "$@"; do
  case "$arg" in
    --prefix=*) prefix="${arg#*=}";;
    --host=*) host="${arg#*=}";;
    --with-protoc=*) protoc="${arg#*=}";;
    --with-pic) pic=" -fPIC";;
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
  echo "CXXFLAGS = $CXXFLAGS$pic"
  echo "AR = $AR"
  echo "subdirs = third_party/googletest"
  echo "include src/Makefile.am"
  cat Makefile.in
} > Makefile
echo "configure: protobuf for ${host:-this machine} with $CXX, into $prefix"
END
chmod +x "${PROTOBUF}/configure"
cat > "${PROTOBUF}/Makefile.in" <<'END'
# libprotobuf.a and libprotobuf-lite.a from the sources src/Makefile.am lists; protoc (a script
# in the stand-in); `make install` puts them and the headers under $(prefix).
LIBPROTOBUF_OBJS = $(patsubst %.cc,src/.libs/%.o,$(libprotobuf_la_SOURCES))
LIBPROTOBUF_LITE_OBJS = $(patsubst %.cc,src/.libs/%.o,$(libprotobuf_lite_la_SOURCES))
all: src/.libs/libprotobuf.a src/.libs/libprotobuf-lite.a
src/.libs/%.o: src/%.cc
	mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -Isrc -c $< -o $@
src/.libs/libprotobuf.a: $(LIBPROTOBUF_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIBPROTOBUF_OBJS)
src/.libs/libprotobuf-lite.a: $(LIBPROTOBUF_LITE_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIBPROTOBUF_LITE_OBJS)
install: all
	mkdir -p $(prefix)/lib $(prefix)/bin $(prefix)/include
	cp src/.libs/libprotobuf.a src/.libs/libprotobuf-lite.a $(prefix)/lib/
	cd src && for header in $(nobase_include_HEADERS); do \
	  mkdir -p $(prefix)/include/$$(dirname $$header) && cp $$header $(prefix)/include/$$header || exit 1; \
	done
	cp src/protoc.sh $(prefix)/bin/protoc
	chmod +x $(prefix)/bin/protoc
clean:
	rm -rf src/.libs
# As automake's: distclean recurses into $(subdirs) (the submodule configure found empty).
distclean: clean
	for dir in $(subdirs); do $(MAKE) -C $$dir distclean || exit 1; done
	rm -f Makefile
END

echo "download_dependencies.sh completed successfully." >&2
