"""Toolchain fix-ups: named, logged, recorded, and acting without editing the tree.

The nsync fix-up is checked against real make and g++: a Makefile generated the way
compile_nsync.sh generates nsync's (``PLATFORM_CFLAGS=... -Werror ...``) fails on a file that
gcc 8+ warns about (``-Wclass-memaccess``), and builds with the environment the planned step
carries; the tracked files are never touched. The absl fix-ups are checked the same way: the
shapes of absl's code fail with the host's real g++ (gcc 12, glibc 2.36 here) and compile after
their step has run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path, PurePosixPath

import pytest
from conftest import missing_part
from test_build_plans import plan_for, world  # noqa: F401  (the world fixture)
from treegen import make_tf1_tree

from tfbuild.errors import ConfigError
from tfbuild.pipeline.flavours.fixups import FixupTable, apply_fixups, fixup_table
from tfbuild.pipeline.plan_text import plan_text
from tfbuild.pipeline.planning.plan import Step
from tfbuild.tree.facts import TensorFlowVersion

TF19 = TensorFlowVersion(1, 9, 0)
TF112 = TensorFlowVersion(1, 12, 0)
TF216 = TensorFlowVersion(2, 16, 0)

NSYNC_LIKE_MAKEFILE = """\
CC=g++
PLATFORM_CFLAGS=-std=c++11 -Werror -Wall -Wextra -pedantic
all: probe.o
probe.o: probe.cc
\t$(CC) $(PLATFORM_CFLAGS) -c probe.cc -o probe.o
"""
# nsync 1.20's shape of the warning: memset over an object with a non-trivial member.
WARNS_ON_GCC8 = """\
#include <cstring>
#include <string>
struct waiter { std::string name; int flags; };
void clear(waiter *w) { std::memset(w, 0, sizeof(*w)); }
"""


def _step(name: str, **env: str) -> Step:
    return Step(name, ("true",), PurePosixPath("/src"), env=env)


def _named(steps: tuple[Step, ...], name: str) -> Step:
    (step,) = (step for step in steps if step.name == name)
    return step


ABSL_FIXUP_STEPS = ("fix-up: absl-sigstksz-glibc234", "fix-up: absl-graphcycles-include-limits")
"""The steps of the absl fix-ups, which go before every Makefile build of TensorFlow."""


def test_the_nsync_fixup_goes_into_every_nsync_step_of_an_old_tree():
    steps = (_step("build protobuf (x)"), _step("build nsync (host)"), _step("build nsync (pi)", MAKEFLAGS="CC=arm-g++"))
    changed, applied = apply_fixups(steps, TF19)
    names = [step.name for step in changed]
    assert names == [
        "fix-up: protobuf-without-gmock",
        "build protobuf (x)",
        "build nsync (host) [fix-up: nsync-without-werror]",
        "build nsync (pi) [fix-up: nsync-without-werror]",
    ]
    flags = r"PLATFORM_CFLAGS=-std=c++11\ -fPIC\ -Wall\ -Wextra\ -pedantic"
    assert changed[2].env["MAKEFLAGS"] == flags
    assert changed[3].env["MAKEFLAGS"] == f"CC=arm-g++ {flags}"  # the cross compiler is kept
    assert changed[0].argv == ("mkdir", "-p", "tensorflow/contrib/makefile/downloads/protobuf/gmock/gtest")
    assert any("-Wclass-memaccess" in note for note in changed[2].notes)
    assert [(fix.name, fix.step) for fix in applied] == [
        ("protobuf-without-gmock", "fix-up: protobuf-without-gmock"),
        ("nsync-without-werror", "build nsync (host) [fix-up: nsync-without-werror]"),
        ("nsync-without-werror", "build nsync (pi) [fix-up: nsync-without-werror]"),
    ]


def test_a_release_outside_the_fixups_range_gets_none():
    steps = (_step("build protobuf (x)"), _step("build nsync (host)"))
    assert apply_fixups(steps, TF216) == (steps, ())


def test_every_fixup_in_the_table_is_complete():
    table = fixup_table()
    assert table.fixups
    for fixup in table.fixups:
        assert fixup.why and fixup.steps
        assert fixup.acts_on_step or fixup.directories or fixup.script or fixup.edit, fixup.name


CLANG_VALUES = {"target_cc": "/ndk/bin/aarch64-linux-android21-clang", "target_ar": "/ndk/bin/llvm-ar",
                "fixups_dir": "/src/gen/tfbuild_fixups/android_arm64-v8a",
                "host_protobuf_lib": "/src/tensorflow/contrib/makefile/gen/protobuf-host/lib"}
EIGEN_HEADER = "tensorflow/contrib/makefile/downloads/eigen/Eigen/src/Core/Transpositions.h"


def test_fixups_for_tagged_steps_go_only_into_those_steps():
    """The clang adapter's fix-ups: a step of their own with the planner's values, words first
    in the make command line's LDFLAGS; an untagged make step and an Android nsync step (whose
    Makefile has no -Werror) get none of theirs."""
    make = ("make", "-f", "Makefile", "LDFLAGS=-fPIE -pie", "LIBS=-llog")
    steps = (
        Step("build nsync (android-arm64)", ("true",), PurePosixPath("/src"), tags=frozenset({"nsync-android"})),
        Step("build TensorFlow (linux-x86_64)", make, PurePosixPath("/src")),
        Step("build TensorFlow (android-arm64)", make, PurePosixPath("/src"), tags=frozenset({"ndk-clang"})),
    )
    changed, applied = apply_fixups(steps, TF19, values=CLANG_VALUES)
    assert changed[0] == steps[0] and changed[3] == steps[1]
    assert tuple(step.name for step in changed[1:3]) == ABSL_FIXUP_STEPS  # before the first build only
    stub, eigen, build = changed[4], changed[5], changed[6]
    assert stub.name == "fix-up: android-static-liblog" and stub.argv[:2] == ("bash", "-c")
    assert stub.argv[-3:] == (CLANG_VALUES["target_cc"], CLANG_VALUES["target_ar"], CLANG_VALUES["fixups_dir"])
    assert eigen.name == "fix-up: eigen-transpositions-clang19" and eigen.argv[-1] == EIGEN_HEADER
    assert build.name == (
        "build TensorFlow (android-arm64) [fix-up: android-static-liblog, android-no-whole-archive, "
        "host-protobuf-library-path]"
    )
    assert build.argv[3] == f"LDFLAGS=-Wl,--no-whole-archive -L{CLANG_VALUES['fixups_dir']} -fPIE -pie"
    lib = CLANG_VALUES["host_protobuf_lib"]
    assert build.argv[-1] == f"LD_LIBRARY_PATH:={lib}$(if $(LD_LIBRARY_PATH),:$(LD_LIBRARY_PATH))"
    absl = [(name.removeprefix("fix-up: "), name) for name in ABSL_FIXUP_STEPS]
    assert [(fix.name, fix.step) for fix in applied] == [  # in step order
        *absl, ("android-static-liblog", stub.name), ("eigen-transpositions-clang19", eigen.name),
        ("android-static-liblog", build.name), ("android-no-whole-archive", build.name),
        ("host-protobuf-library-path", build.name),
    ]
    assert len(changed) == 7


def test_the_cross_protobuf_fixups_go_only_into_a_cross_protobuf_step():
    """A protobuf configured for another host from a copy of the host-configured sources gets
    the distclean fix-up; with the NDK clang also libc++ linked statically (a configure word);
    the host protobuf script gets neither."""
    cross = ("bash", "-c", "script", "bash", "/src/downloads/protobuf", "/prefix", "aarch64-linux-android",
             "clang++", "/protoc", "2", "CC=clang", "LIBS=-llog")
    steps = (
        Step("build protobuf (host, for protoc)", ("compile_linux_protobuf.sh",), PurePosixPath("/src")),
        Step("build protobuf (aarch64-linux-gnu)", cross, PurePosixPath("/src"), tags=frozenset({"protobuf-cross"})),
        Step("build protobuf (aarch64-linux-android)", cross, PurePosixPath("/src"),
             tags=frozenset({"protobuf-cross", "ndk-clang"})),
    )
    changed, applied = apply_fixups(steps, TF19, values=CLANG_VALUES)
    host, gnu, android = (step for step in changed if not step.name.startswith("fix-up:"))
    assert host.name == "build protobuf (host, for protoc)" and "MAKEFLAGS" not in host.env
    assert gnu.env["MAKEFLAGS"] == "subdirs=" and gnu.argv == cross
    assert android.env["MAKEFLAGS"] == "subdirs="
    assert android.argv == (*cross, "LDFLAGS=-static-libstdc++")
    assert android.name.endswith("[fix-up: protobuf-distclean-without-gmock, android-protobuf-static-libcxx]")
    assert [fix.name for fix in applied].count("protobuf-distclean-without-gmock") == 2


# protobuf's top Makefile as automake writes it when configure.ac has AC_CONFIG_SUBDIRS([gmock]):
# distclean recurses into every DIST_SUBDIRS, $(subdirs) among them.
PROTOBUF_LIKE_MAKEFILE = """\
subdirs = gmock
DIST_SUBDIRS = $(subdirs) src
distclean:
\tfor dir in $(DIST_SUBDIRS); do $(MAKE) -C $$dir distclean || exit 1; done
"""


@pytest.mark.parametrize("with_fixup", [False, True])
def test_the_distclean_fixup_lets_real_make_clean_beside_an_empty_gmock(tmp_path, with_fixup):
    (tmp_path / "Makefile").write_text(PROTOBUF_LIKE_MAKEFILE)
    (tmp_path / "gmock").mkdir()  # protobuf-without-gmock: there, empty, never configured
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Makefile").write_text("distclean:\n\t@echo cleaned src\n")
    step = Step("build protobuf (x)", ("true",), PurePosixPath("/src"), tags=frozenset({"protobuf-cross"}))
    (*_, fixed), _ = apply_fixups((step,), TF19)
    env = {key: value for key, value in os.environ.items() if key != "MAKEFLAGS"}
    if with_fixup:
        env.update(fixed.env)
    done = subprocess.run(["make", "distclean"], cwd=tmp_path, env=env, capture_output=True, text=True)
    if with_fixup:
        assert done.returncode == 0, done.stderr
        assert "cleaned src" in done.stdout
    else:
        assert done.returncode != 0 and "No rule to make target" in done.stderr


@pytest.mark.parametrize("outer", [None, "", "/usr/lib/outer"])
def test_the_search_path_word_puts_the_directory_first_in_real_make_recipes(tmp_path, outer):
    from tfbuild.pipeline.flavours.fixups import search_path_word

    (tmp_path / "Makefile").write_text('all:\n\t@echo "[$$LD_LIBRARY_PATH]"\n')
    env = {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "LD_LIBRARY_PATH")}
    if outer is not None:
        env["LD_LIBRARY_PATH"] = outer
    done = subprocess.run(["make", "-s", search_path_word("LD_LIBRARY_PATH", "/gen/protobuf-host/lib")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    expected = "/gen/protobuf-host/lib" + (f":{outer}" if outer else "")
    assert done.stdout.strip() == f"[{expected}]"  # no empty entry: that would mean the working directory


# The shape of the Eigen these trees pin: a friend operator of Transpose<TranspositionsBase<...>>
# that calls trt.derived(), which that class does not have.
EIGEN_LIKE_TRANSPOSITIONS = """\
#include <cstdio>
template<typename Derived> struct TranspositionsBase {};
template<typename T> struct Transpose;
template<typename Lhs, typename Rhs> struct Product {
  Product(const Lhs&, const Rhs&) { std::puts("product"); }
};
template<typename TranspositionsDerived>
struct Transpose<TranspositionsBase<TranspositionsDerived> > {
  template<typename OtherDerived> friend
  Product<OtherDerived, Transpose> operator*(const OtherDerived& matrix, const Transpose& trt) {
    return Product<OtherDerived, Transpose>(matrix, trt.derived());
  }
};
int main() {
  Transpose<TranspositionsBase<int> > t;
  (void)(1 * t);
  return 0;
}
"""


def _eigen_fixup() -> Step:
    step = Step("build TensorFlow (android-arm64)", ("make",), PurePosixPath("/src"), tags=frozenset({"ndk-clang"}))
    changed, _ = apply_fixups((step,), TF19, values=CLANG_VALUES)
    return _named(changed, "fix-up: eigen-transpositions-clang19")


def test_the_eigen_fixup_edits_the_downloaded_header_once_and_says_so(tmp_path):
    """Run as planned, in the tree's root: the header is edited once, a second run changes
    nothing, and a tree without Eigen is left alone."""
    fixup = _eigen_fixup()
    absent = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "not there" in absent.stdout
    header = tmp_path / EIGEN_HEADER
    header.parent.mkdir(parents=True)
    header.write_text(EIGEN_LIKE_TRANSPOSITIONS)
    first = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "trt.derived() -> trt on 1 line(s)" in first.stdout
    assert "trt.derived()" not in header.read_text()
    assert header.read_text() == EIGEN_LIKE_TRANSPOSITIONS.replace("trt.derived()", "trt")
    second = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "nothing to change" in second.stdout


def test_the_header_clang_19_rejects_compiles_after_the_eigen_fixup(tmp_path):
    """The call the edited header makes is the same: clang 19 builds it, and the program runs."""
    import shutil

    clang = shutil.which("clang++-19")
    if clang is None:
        missing_part("clang++-19 not installed (apt-get install clang-19)")
    header = tmp_path / EIGEN_HEADER
    header.parent.mkdir(parents=True)
    header.write_text(EIGEN_LIKE_TRANSPOSITIONS)
    before = subprocess.run([clang, "-fsyntax-only", str(header), "-x", "c++"], capture_output=True, text=True)
    assert before.returncode != 0 and "no member named 'derived'" in before.stderr
    subprocess.run(_eigen_fixup().argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    subprocess.run([clang, "-x", "c++", str(header), "-o", str(tmp_path / "product")], check=True)
    assert subprocess.run([str(tmp_path / "product")], capture_output=True, text=True).stdout == "product\n"


@pytest.mark.android_ndk
def test_the_static_libcxx_fixup_links_a_cxx_program_with_the_ndk_clang(mini_ndk, tmp_path):
    """What protobuf's configure does with the fix-up's LDFLAGS: a (dynamic) C++ program linked
    by the NDK clang, NEEDED only bionic's."""
    bin_dir = mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64/bin"
    (fixup,) = [fix for fix in fixup_table().fixups if fix.name == "android-protobuf-static-libcxx"]
    (tmp_path / "conftest.cpp").write_text("#include <string>\nint main() { return std::string(\"x\").size() - 1; }\n")
    subprocess.run([str(bin_dir / "aarch64-linux-android21-clang++"), "conftest.cpp", "-o", "conftest",
                    *fixup.prepend_make_variables["LDFLAGS"].split()], cwd=tmp_path, check=True)
    dynamic = subprocess.run([str(bin_dir / "llvm-readelf"), "-d", "conftest"], cwd=tmp_path,
                             capture_output=True, text=True, check=True).stdout
    needed = {line.split("[")[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line}
    assert needed and needed <= {"libc.so", "libm.so", "libdl.so"}


@pytest.mark.android_ndk
def test_the_liblog_stub_links_statically_and_runs(mini_ndk, tmp_path):
    """The fix-up's script with the stand-in NDK: a static program that calls
    __android_log_write and names -llog links against the stub and runs."""
    bin_dir = mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64/bin"
    values = {"target_cc": str(bin_dir / "aarch64-linux-android21-clang"), "target_ar": str(bin_dir / "llvm-ar"),
              "fixups_dir": str(tmp_path / "fixups"), "host_protobuf_lib": CLANG_VALUES["host_protobuf_lib"]}
    step = Step("build TensorFlow (android-arm64)", ("make",), PurePosixPath("/src"), tags=frozenset({"ndk-clang"}))
    changed, _ = apply_fixups((step,), TF19, values=values)
    stub = _named(changed, "fix-up: android-static-liblog")
    subprocess.run(stub.argv, cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "main.c").write_text(
        'int __android_log_write(int, const char*, const char*);\n'
        'int main(void) { return __android_log_write(4, "tf", "hello"); }\n')
    subprocess.run([str(bin_dir / "aarch64-linux-android21-clang"), "-static", "main.c", f"-L{tmp_path / 'fixups'}",
                    "-llog", "-o", str(tmp_path / "main")], cwd=tmp_path, check=True, capture_output=True)
    assert subprocess.run(["qemu-aarch64", str(tmp_path / "main")]).returncode == 0


def test_the_plan_and_its_text_show_the_fixups(world):  # noqa: F811
    """The generated TF 1.12 tree pins protobuf v3.6.1.2, whose autogen.sh downloads no Google
    Mock: the gmock fix-up is left out, and the plan says what it read."""
    plan = plan_for(world, "linux-x86_64", "makefile")
    assert {fix.name for fix in plan.fixups} == {"nsync-without-werror", "absl-sigstksz-glibc234",
                                                 "absl-graphcycles-include-limits"}
    text = plan_text(plan)
    assert "toolchain fix-ups (no tracked file of the tree is edited):" in text
    assert "fix-up nsync-without-werror: compile_nsync.sh builds nsync 1.20 with -Werror" in text
    assert ("note: protobuf: v3.6.1.2 (tensorflow/workspace.bzl): its autogen.sh downloads no Google Mock, "
            "configure's subdirs is third_party/googletest (as every protobuf from 3.6; the downloads are not "
            "there yet); the fix-ups for a protobuf that downloads it are left out") in text


PROTOBUF_35_AUTOGEN = """\
#!/bin/sh
# Check that gmock is present.  Usually it is already there since the
# directory is set up as an SVN external.
if test ! -e gmock; then
  echo "Google Mock not present.  Fetching gmock-1.7.0 from the web..."
  curl $curlopts -L -O https://github.com/google/googlemock/archive/release-1.7.0.zip
  unzip -q release-1.7.0.zip
fi
autoreconf -f -i -Wall,no-obsolete
"""


def _pin_tree(root: Path, ref: str, *, autogen: str | None = None) -> Path:
    """A tree whose workspace.bzl pins protobuf ``ref``, with ``autogen`` downloaded when given."""
    (root / "tensorflow").mkdir(parents=True)
    (root / "tensorflow/workspace.bzl").write_text(
        f'PROTOBUF_URLS = ["https://mirror.bazel.build/github.com/google/protobuf/archive/{ref}.tar.gz"]\n')
    if autogen is not None:
        protobuf = root / "tensorflow/contrib/makefile/downloads/protobuf"
        protobuf.mkdir(parents=True)
        (protobuf / "autogen.sh").write_text(autogen)
        (protobuf / "configure.ac").write_text("AC_CONFIG_SUBDIRS(gmock)\n")
    return root


@pytest.mark.parametrize(("ref", "autogen", "fetches", "subdirs", "evidence"), [
    ("v3.6.1.2", None, False, "third_party/googletest", "as every protobuf from 3.6"),
    ("v3.5.0", None, True, "gmock", "as every protobuf before 3.6"),
    ("v3.5.0", PROTOBUF_35_AUTOGEN, True, "gmock", "read in tensorflow/contrib/makefile/downloads/protobuf"),
    ("396336eb961b75f03b25824fe86cf6490fb75e3a", None, None, None, "the pin names no release"),
    # TF 1.15 and 2.0 pin a commit after 3.8.0, whose autotools tfbuild knows before the download.
    ("310ba5ee72661c081129eb878c1bbcec936b20f0", None, False, "third_party/googletest",
     "a commit after protobuf 3.8, as every protobuf from 3.6"),
])
def test_the_trees_protobuf_decides_the_gmock_fixup_and_its_reason(tmp_path, ref, autogen, fetches, subdirs,
                                                                   evidence):
    from tfbuild.tree.protobuf_pin import read_protobuf_pin

    pin = read_protobuf_pin(_pin_tree(tmp_path, ref, autogen=autogen))
    assert (pin.ref, pin.fetches_gmock, pin.subdirs) == (ref, fetches, subdirs) and evidence in pin.evidence
    steps = (_step("build protobuf (host)"), _step("build protobuf (android-arm64, cross)"))
    values = {"protobuf": pin.name, "protobuf_subdirs": pin.subdirs or "?"}
    changed, applied = apply_fixups(steps, TF112, values=values, tree_facts=pin.facts())
    gmock = [fix for fix in applied if fix.name == "protobuf-without-gmock"]
    if fetches is False:  # its reason would be untrue: left out
        assert not gmock and changed == steps
        return
    # Once, before the first protobuf build (the host's), naming the tree's protobuf.
    assert [step.name for step in changed] == ["fix-up: protobuf-without-gmock", *(step.name for step in steps)]
    assert len(gmock) == 1 and gmock[0].why.startswith(f"protobuf {ref} (tensorflow/workspace.bzl)")
    said = ", not read yet and taken to be a protobuf before 3.6: " if fetches is None else ": "
    assert gmock[0].why.startswith(f"protobuf {ref} (tensorflow/workspace.bzl){said}its autogen.sh downloads")


def test_a_fixup_on_two_steps_is_one_line_of_the_plan(world):  # noqa: F811
    """nsync-without-werror goes into the host's and the target's nsync builds: one line, two steps."""
    plan = plan_for(world, "pi-armv7", "makefile")
    lines = [line for line in plan_text(plan).splitlines() if "nsync-without-werror (in step" in line]
    assert len(lines) == 1 and "(in steps 'build nsync (host) [fix-up: nsync-without-werror]', " in lines[0]
    listed = [line.strip().split(" (in step")[0] for line in plan_text(plan).split("toolchain fix-ups")[1].splitlines()
              if " (in step" in line]
    assert len(listed) == len(set(listed))


@pytest.mark.parametrize("with_fixup", [False, True])
def test_the_nsync_fixup_makes_a_werror_makefile_build_with_real_make(tmp_path, with_fixup):
    (tmp_path / "Makefile").write_text(NSYNC_LIKE_MAKEFILE)
    (tmp_path / "probe.cc").write_text(WARNS_ON_GCC8)
    (step,), _ = apply_fixups((_step("build nsync (host)"),), TF19, FixupTable(fixup_table().fixups))
    env = {key: value for key, value in os.environ.items() if key != "MAKEFLAGS"}
    if with_fixup:
        env.update(step.env)
    done = subprocess.run(["make"], cwd=tmp_path, env=env, capture_output=True, text=True)
    if with_fixup:
        assert done.returncode == 0, done.stderr
        assert "-Werror" not in done.stdout and "-Wall -Wextra -pedantic" in done.stdout
    else:
        assert done.returncode != 0
        assert "class-memaccess" in done.stderr
    assert (tmp_path / "Makefile").read_text() == NSYNC_LIKE_MAKEFILE  # nothing was edited


# The shapes of the absl that TF 1.12-1.15 trees download (abseil-cpp 48cd2c3f, 389ec3f9, daf381e8,
# 43ef2148; every commit from 2018-04-26 to 2021-04-13): SetupAlternateStackOnce's statement in
# absl/debugging/failure_signal_handler.cc, and absl/synchronization/internal/graphcycles.cc's
# std::numeric_limits under includes without <limits> (<array> the last standard one).
ABSL = "tensorflow/contrib/makefile/downloads/absl/absl"
SIGSTKSZ_FILE = f"{ABSL}/debugging/failure_signal_handler.cc"
GRAPHCYCLES_FILE = f"{ABSL}/synchronization/internal/graphcycles.cc"
ABSL_LIKE_FAILURE_SIGNAL_HANDLER = """\
#include <signal.h>
#include <unistd.h>
#include <algorithm>
#include <cstddef>
size_t AlternateStackSize() {
  const size_t page_mask = sysconf(_SC_PAGESIZE) - 1;
  size_t stack_size = (std::max(SIGSTKSZ, 65536) + page_mask) & ~page_mask;
  return stack_size;
}
"""
ABSL_LIKE_GRAPHCYCLES = """\
#include <algorithm>
#include <array>
#include <cstdint>
bool VersionExhausted(uint32_t version) {
  return version == std::numeric_limits<uint32_t>::max();
}
"""


def _glibc() -> tuple[int, ...]:
    found = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else None
    return tuple(int(part) for part in found.split()[1].split(".")[:2]) if found else (0,)


def _gcc_major() -> int:
    version = subprocess.run(["g++", "-dumpversion"], capture_output=True, text=True, check=True).stdout
    return int(version.strip().split(".")[0])


ABSL_CASES = [
    # fix-up, file, its shape, what the shape becomes, what g++ says before, whether this host says it
    ("absl-sigstksz-glibc234", SIGSTKSZ_FILE, ABSL_LIKE_FAILURE_SIGNAL_HANDLER,
     ABSL_LIKE_FAILURE_SIGNAL_HANDLER.replace("std::max(SIGSTKSZ", "std::max<size_t>(SIGSTKSZ"),
     "no matching function for call to 'max(long int, int)'", lambda: _glibc() >= (2, 34)),
    ("absl-graphcycles-include-limits", GRAPHCYCLES_FILE, ABSL_LIKE_GRAPHCYCLES,
     ABSL_LIKE_GRAPHCYCLES.replace("#include <array>\n", "#include <array>\n#include <limits>\n"),
     "'numeric_limits' is not a member of 'std'", lambda: _gcc_major() >= 11),
]


def _absl_fixup_step(name: str) -> Step:
    """The fix-up's step as a Makefile plan for Linux has it: before its build of TensorFlow."""
    step = Step("build TensorFlow (linux-x86_64)", ("make",), PurePosixPath("/src"))
    changed, _ = apply_fixups((step,), TF112)
    assert changed[-1] == step  # it changes nothing in the build itself
    return _named(changed, f"fix-up: {name}")


def _compile(source: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The host's real g++, as the Makefile compiles absl (-std=c++11), its messages in ASCII."""
    env = {**os.environ, "LC_ALL": "C"}
    return subprocess.run(["g++", "-std=c++11", "-c", str(source), "-o", str(tmp_path / "probe.o")],
                          capture_output=True, text=True, env=env)


@pytest.mark.parametrize("name, path, shape, fixed, error, host_needs_it", ABSL_CASES,
                         ids=[case[0] for case in ABSL_CASES])
def test_the_absl_fixups_make_absls_code_compile_with_the_host_gcc(tmp_path, name, path, shape, fixed, error,
                                                                   host_needs_it):
    """Run as planned, in the tree's root: the shape fails with this host's g++ (gcc 11+ /
    glibc 2.34+), compiles after the step, which logs what it changed, and a second run changes
    nothing."""
    step = _absl_fixup_step(name)
    source = tmp_path / path
    source.parent.mkdir(parents=True)
    source.write_text(shape)
    before = _compile(source, tmp_path)
    if host_needs_it():
        assert before.returncode != 0 and error in before.stderr, before.stderr
    first = subprocess.run(step.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert first.stdout.startswith(f"{path}: ") and "1 line(s)" in first.stdout, first.stdout
    assert source.read_text() == fixed  # that statement, that include, nothing else
    after = _compile(source, tmp_path)
    assert after.returncode == 0, after.stderr
    stamp = source.stat().st_mtime_ns
    second = subprocess.run(step.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "nothing to change" in second.stdout
    assert source.read_text() == fixed and source.stat().st_mtime_ns == stamp  # make rebuilds nothing


# What the steps must leave alone: no absl (a tree before absl, or downloads not there), and an
# absl that is not exactly that code: abseil-cpp a9831f1c (2021-05) and later, where both fixes
# are in, and a graphcycles.cc that has no numeric_limits to declare.
UNTOUCHED_CASES = [
    ("absl-sigstksz-glibc234", None, "not there, nothing to change"),
    ("absl-sigstksz-glibc234", "  size_t stack_size =\n      (std::max<size_t>(SIGSTKSZ, 65536) + page_mask) & ~page_mask;\n",
     "no 'std::max(SIGSTKSZ, 65536)', nothing to change"),
    ("absl-graphcycles-include-limits", None, "not there, nothing to change"),
    ("absl-graphcycles-include-limits", "#include <algorithm>\n#include <array>\n#include <limits>\n"
     "bool f(unsigned v) { return v == std::numeric_limits<unsigned>::max(); }\n",
     "already has '#include <limits>', nothing to change"),
    ("absl-graphcycles-include-limits", "#include <algorithm>\n#include <array>\n",
     "no 'std::numeric_limits', nothing to change"),
]


@pytest.mark.parametrize("name, text, said", UNTOUCHED_CASES)
def test_the_absl_fixups_leave_other_code_alone(tmp_path, name, text, said):
    path = SIGSTKSZ_FILE if "sigstksz" in name else GRAPHCYCLES_FILE
    source = tmp_path / path
    if text is not None:
        source.parent.mkdir(parents=True)
        source.write_text(text)
    done = subprocess.run(_absl_fixup_step(name).argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout == f"{path}: {said}\n"
    if text is None:
        assert not source.exists() and not source.parent.exists()
    else:
        assert source.read_text() == text
    assert not list(tmp_path.rglob("*.tfbuild-tmp"))


@pytest.mark.parametrize("edit, refused", [
    ('find = "#include <array>", add_line = "#include <limits>"', "a second run would edit again"),
    ('find = "max(", replace = "std::max("', "a second run would edit again"),
    ('find = "x", replace = "y", add_line = "z"', "either 'replace' or 'add_line'"),
    ('find = "x", replace = "y", if_contains = ["a\\nb"]', "one non-empty line"),
])
def test_an_edit_that_is_not_one_safe_literal_change_is_refused(tmp_path, edit, refused):
    """An edit whose second run would change the file again, or that is not one line."""
    table = tmp_path / "fixups.toml"
    table.write_text(f'[[fixups]]\nname = "x"\nwhy = "y"\nsteps = "build TensorFlow"\ntensorflow = ["1.4", ""]\n'
                     f'edit = {{ file = "downloads/a.cc", {edit} }}\n')
    with pytest.raises(ConfigError, match=refused):
        fixup_table(table)


def test_a_local_makefile_plan_edits_a_downloaded_absl_before_its_build(world):  # noqa: F811
    """``tfbuild build --local`` for Linux of a tree whose downloads hold absl: both steps are in
    the plan (and its text), by name, before the build of TensorFlow, and run where the plan
    says they leave absl's code compiling with this host's g++."""
    tree = world / "tf1-absl"
    if not tree.exists():
        make_tf1_tree(tree)
        for path, shape in ((SIGSTKSZ_FILE, ABSL_LIKE_FAILURE_SIGNAL_HANDLER), (GRAPHCYCLES_FILE, ABSL_LIKE_GRAPHCYCLES)):
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_text(shape)
    plan = plan_for(world, "linux-x86_64", "makefile", tree="tf1-absl", local=True)
    assert plan.image is None
    names = [step.name for step in plan.steps]
    build = names.index("build TensorFlow (linux-x86_64)")
    assert tuple(names[build - 2:build]) == ABSL_FIXUP_STEPS
    assert {fix.name: fix.step for fix in plan.fixups if fix.name.startswith("absl-")} == {
        name.removeprefix("fix-up: "): name for name in ABSL_FIXUP_STEPS
    }
    text = plan_text(plan)
    assert "fix-up absl-sigstksz-glibc234: glibc 2.34 and later define SIGSTKSZ as sysconf(_SC_SIGSTKSZ)" in text
    assert "absl-graphcycles-include-limits (in step 'fix-up: absl-graphcycles-include-limits')" in text
    for step in plan.steps[build - 2:build]:
        assert step.workdir == PurePosixPath(tree)
        subprocess.run(step.argv, cwd=step.workdir, capture_output=True, text=True, check=True)
    for path in (SIGSTKSZ_FILE, GRAPHCYCLES_FILE):
        compiled = _compile(tree / path, world)
        assert compiled.returncode == 0, compiled.stderr
