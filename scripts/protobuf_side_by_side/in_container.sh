#!/usr/bin/env bash
# The part of build_and_run.sh that runs inside the toolchain container (Debian bullseye).
# usage: in_container.sh TREE DEMO_DIR [PLAIN_DIR]
#   TREE      the TensorFlow checkout after `tfbuild protobuf rename` (mounted read-write)
#   DEMO_DIR  this directory (mounted read-only)
#   PLAIN_DIR optional: a directory holding an unrenamed copy of the same protobuf in
#             PLAIN_DIR/protobuf, for the negative control (built into PLAIN_DIR/install,
#             linked in PLAIN_DIR/negative_control)
# Environment: JOBS (make -j, default 1).
# Each check runs as a stage; a failed stage is reported and the independent ones still run.
set -euo pipefail

tree=$1
demo=$2
plain=${3:-}
jobs=${JOBS:-1}

makefile_dir="$tree/tensorflow/contrib/makefile"
pb3_src="$makefile_dir/downloads/protobuf"
pb3="$makefile_dir/gen/protobuf3"
out="$makefile_dir/gen/protobuf_side_by_side"
debian_a=/usr/lib/x86_64-linux-gnu/libprotobuf.a
cxx=(g++ -std=c++14 -O2 -Wall -Wno-deprecated-declarations)

say() { printf '\n== %s\n' "$*"; }
die() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}

# Builds one protobuf source tree into PREFIX (static, PIC). The library is built first and
# installed even when the rest (libprotoc, protoc) fails, so the library checks still run;
# returns 1 in that case. Skipped when PREFIX holds a complete earlier build.
build_protobuf() {
  local src=$1 prefix=$2 logs=$3
  if [[ -f "$prefix/.tfbuild-complete" ]]; then
    say "reusing $prefix (delete it to rebuild)"
    return 0
  fi
  say "building $src into $prefix (make -j$jobs; logs in $logs)"
  local start=$SECONDS
  mkdir -p "$logs"
  cd "$src" || die "no $src"
  ./autogen.sh >"$logs/autogen.log" 2>&1 || die "autogen.sh (see $logs/autogen.log)"
  ./configure --disable-shared --with-pic --prefix="$prefix" CXXFLAGS="-O2" >"$logs/configure.log" 2>&1 ||
    die "configure (see $logs/configure.log)"
  make -C src -j"$jobs" libprotobuf.la >"$logs/make-libprotobuf.log" 2>&1 || {
    tail -n 20 "$logs/make-libprotobuf.log" >&2
    die "building libprotobuf (see $logs/make-libprotobuf.log)"
  }
  say "libprotobuf.a built after $((SECONDS - start)) s"
  if make -j"$jobs" >"$logs/make.log" 2>&1; then
    make install >"$logs/install.log" 2>&1 || die "make install (see $logs/install.log)"
    touch "$prefix/.tfbuild-complete"
    say "built and installed all of $prefix (libprotobuf, libprotoc, protoc) in $((SECONDS - start)) s"
    return 0
  fi
  printf 'FAILED: building the rest of protobuf (libprotoc, protoc); first errors from %s:\n' "$logs/make.log" >&2
  grep -m 5 -B 1 -A 3 'error' "$logs/make.log" >&2 || tail -n 20 "$logs/make.log" >&2
  # Install what did build: the headers and libprotobuf.a.
  make -C src install-nobase_includeHEADERS >"$logs/install.log" 2>&1 || die "installing the headers"
  mkdir -p "$prefix/lib"
  cp src/.libs/libprotobuf.a "$prefix/lib/"
  say "installed only the headers and libprotobuf.a into $prefix ($((SECONDS - start)) s)"
  return 1
}

# Fails unless the translation unit's includes come from ALLOWED and never from FORBIDDEN.
check_includes() {
  local what=$1 allowed=$2 forbidden=$3
  shift 3
  local deps
  deps=$("${cxx[@]}" "$@" -M -MT x)
  grep -q -- "$allowed" <<<"$deps" || die "$what: includes nothing from $allowed"
  if grep -q -- "$forbidden" <<<"$deps"; then
    grep -o -- "[^ ]*$forbidden[^ ]*" <<<"$deps" | head -n 5 >&2
    die "$what: includes headers from $forbidden"
  fi
}

stage_build() {
  build_protobuf "$pb3_src" "$pb3" "$out/logs/protobuf3"
}

stage_install_check() {
  [[ -f "$pb3/include/google/protobuf3/message.h" ]] || die "$pb3/include/google/protobuf3/message.h is missing"
  [[ ! -e "$pb3/include/google/protobuf" ]] || die "$pb3/include/google/protobuf exists: the install is not renamed"
  grep -q '^namespace protobuf3 {' "$pb3/include/google/protobuf3/message.h" ||
    die "message.h does not declare namespace protobuf3"
  local lib="$pb3/lib/libprotobuf.a" old new def_old def_new
  old=$(nm -C "$lib" 2>/dev/null | grep -c 'google::protobuf::' || true)
  new=$(nm -C "$lib" 2>/dev/null | grep -c 'google::protobuf3::' || true)
  def_old=$(nm -C --defined-only "$lib" 2>/dev/null | grep -c 'google::protobuf::' || true)
  def_new=$(nm -C --defined-only "$lib" 2>/dev/null | grep -c 'google::protobuf3::' || true)
  echo "nm -C libprotobuf.a: google::protobuf:: in $old symbol lines ($def_old defined)," \
    "google::protobuf3:: in $new ($def_new defined)"
  [[ "$old" -eq 0 && "$new" -gt 0 ]] || die "the renamed libprotobuf.a still has google::protobuf:: symbols"
}

stage_side_by_side() {
  check_includes renamed.cc "$pb3/include/google/protobuf3/" "/usr/include/google/protobuf/" \
    -I"$pb3/include" -I"$demo" "$demo/renamed.cc"
  check_includes system.cc "/usr/include/google/protobuf/" "protobuf3" -I"$demo" "$demo/system.cc"
  "${cxx[@]}" -I"$pb3/include" -I"$demo" -c "$demo/renamed.cc" -o "$out/renamed.o"
  "${cxx[@]}" -I"$demo" -c "$demo/system.cc" -o "$out/system.o"
  "${cxx[@]}" -I"$demo" -c "$demo/main.cc" -o "$out/main.o"
  g++ -o "$out/side_by_side" "$out/main.o" "$out/renamed.o" "$out/system.o" \
    "$pb3/lib/libprotobuf.a" "$debian_a" -pthread
  if ldd "$out/side_by_side" | grep -q libprotobuf; then die "side_by_side links a shared libprotobuf"; fi
  echo "linked $out/side_by_side against $pb3/lib/libprotobuf.a and $debian_a; running it:"
  "$out/side_by_side" || die "side_by_side exited with $?"
}

# tensorflow/core/protobuf/meta_graph.proto and everything it imports (but protobuf's own
# protos, which libprotobuf.a holds), generated by the renamed protoc through the renamed
# Makefile's own rule, so its fix-up line runs too; into a private GENDIR, not the tree's gen/.
stage_tf_protos() {
  [[ -x "$pb3/bin/protoc" ]] || die "no renamed protoc in $pb3/bin (its build failed above)"
  # protoc finds `import "google/protobuf/any.proto"` in the rename's unchanged root copy.
  cmp -s "$tree/google/protobuf/any.proto" "$pb3_src/src/google/protobuf3/any.proto" ||
    die "$tree/google/protobuf/any.proto is missing or not an unchanged copy of protobuf's"
  [[ ! -e "$tree/google/protobuf3" ]] || die "$tree/google/protobuf3 exists (old layout of the root copy)"
  local tf_gen="$out/tf_gen/" proto imported obj
  rm -rf "$tf_gen"
  local protos=() pending=(tensorflow/core/protobuf/meta_graph.proto)
  while [[ ${#pending[@]} -gt 0 ]]; do
    proto=${pending[0]}
    pending=("${pending[@]:1}")
    [[ " ${protos[*]-} " == *" $proto "* ]] && continue
    protos+=("$proto")
    while IFS= read -r imported; do
      [[ "$imported" == google/* ]] || pending+=("$imported")
    done < <(sed -n 's/^import[[:space:]]*\(public[[:space:]]*\)\{0,1\}"\([^"]*\)";.*/\2/p' "$tree/$proto")
  done
  echo "${#protos[@]} protos: ${protos[*]}"
  local targets=()
  for proto in "${protos[@]}"; do targets+=("${tf_gen}proto/${proto%.proto}.pb.cc"); done
  (cd "$tree" && make -s -f tensorflow/contrib/makefile/Makefile PROTOC="$pb3/bin/protoc" GENDIR="$tf_gen" "${targets[@]}") \
    >"$out/tf_protos.make.log" 2>&1 || {
    cat "$out/tf_protos.make.log" >&2
    die "generating TF's protos"
  }
  local objs=()
  for proto in "${protos[@]}"; do
    obj="${tf_gen}obj/${proto%.proto}.pb.o"
    mkdir -p "$(dirname "$obj")"
    "${cxx[@]}" -O0 -I"$pb3/include" -I"${tf_gen}proto" -c "${tf_gen}proto/${proto%.proto}.pb.cc" -o "$obj" \
      2>"$obj.log" || {
      head -n 12 "$obj.log" >&2
      die "compiling the generated ${proto%.proto}.pb.cc (all errors: $obj.log)"
    }
    objs+=("$obj")
  done
  check_includes tf_protos.cc "$pb3/include/google/protobuf3/" "/usr/include/google/protobuf/" \
    -I"$pb3/include" -I"${tf_gen}proto" "$demo/tf_protos.cc"
  "${cxx[@]}" -I"$pb3/include" -I"${tf_gen}proto" -c "$demo/tf_protos.cc" -o "$out/tf_protos.o"
  g++ -o "$out/tf_protos" "$out/tf_protos.o" "${objs[@]}" "$pb3/lib/libprotobuf.a" -pthread
  "$out/tf_protos" || die "tf_protos exited with $?"
}

stage_negative_control() {
  build_protobuf "$plain/protobuf" "$plain/install" "$plain/logs" || true
  [[ -f "$plain/install/include/google/protobuf/message.h" && -f "$plain/install/lib/libprotobuf.a" ]] ||
    die "$plain/install is not a plain protobuf"
  local neg="$plain/negative_control" link_rc run_rc  # outside TREE: its source is not renamed
  mkdir -p "$neg"
  # The same source with the rename undone.
  sed -e 's#google/protobuf3/#google/protobuf/#g' -e 's#google::protobuf3#google::protobuf#g' \
    -e "s#TensorFlow's protobuf, renamed (google::protobuf)#the same protobuf, NOT renamed (google::protobuf)#" \
    "$demo/renamed.cc" >"$neg/unrenamed.cc"
  check_includes unrenamed.cc "$plain/install/include/google/protobuf/" "/usr/include/google/protobuf/" \
    -I"$plain/install/include" -I"$demo" "$neg/unrenamed.cc"
  "${cxx[@]}" -I"$plain/install/include" -I"$demo" -c "$neg/unrenamed.cc" -o "$neg/unrenamed.o"
  "${cxx[@]}" -I"$demo" -c "$demo/system.cc" -o "$neg/system.o"
  "${cxx[@]}" -I"$demo" -c "$demo/main.cc" -o "$neg/main.o"
  set +e
  g++ -o "$neg/side_by_side" "$neg/main.o" "$neg/unrenamed.o" "$neg/system.o" \
    "$plain/install/lib/libprotobuf.a" "$debian_a" -pthread >"$neg/link.log" 2>&1
  link_rc=$?
  set -e
  echo "link exit status $link_rc, $(grep -c 'multiple definition' "$neg/link.log" || true) 'multiple definition' errors; first lines:"
  head -n 12 "$neg/link.log"
  if [[ "$link_rc" -eq 0 ]]; then
    set +e
    "$neg/side_by_side" >"$neg/run.log" 2>&1
    run_rc=$?
    set -e
    echo "it linked; running it exited with status $run_rc; first lines:"
    head -n 20 "$neg/run.log"
    [[ "$run_rc" -ne 0 ]] || die "the unrenamed protobuf linked and ran cleanly next to Debian's: this test proves nothing"
  fi
  echo "the unrenamed protobuf does not work next to Debian's, as expected"
}

passed=()
failed=()
stage() {
  local name=$1 fn=$2 rc
  say "$name"
  set +e
  (
    set -e
    "$fn"
  )
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then passed+=("$name"); else failed+=("$name"); fi
  return 0
}

say "installing Debian's protobuf (libprotobuf-dev)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends libprotobuf-dev >/dev/null
dpkg-query -W -f='${Package} ${Version}\n' libprotobuf-dev
[[ -f "$debian_a" ]] || die "$debian_a is missing"
[[ -d "$pb3_src/src/google/protobuf3" ]] || die "$pb3_src is not renamed: run tfbuild protobuf rename first"
mkdir -p "$out"

stage "build the renamed protobuf (libprotobuf, libprotoc, protoc)" stage_build
if [[ -f "$pb3/lib/libprotobuf.a" ]]; then
  stage "check the renamed install (headers, nm)" stage_install_check
  stage "side by side with Debian's protobuf" stage_side_by_side
  stage "TensorFlow's own protos through the renamed protoc and Makefile rule" stage_tf_protos
fi
if [[ -n "$plain" ]]; then
  stage "negative control: the same program with the UNRENAMED protobuf" stage_negative_control
fi

say "summary"
for name in "${passed[@]+"${passed[@]}"}"; do echo "  ok      $name"; done
for name in "${failed[@]+"${failed[@]}"}"; do echo "  FAILED  $name"; done
[[ ${#failed[@]} -eq 0 ]]
