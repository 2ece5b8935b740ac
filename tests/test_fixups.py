"""Toolchain fix-ups: named, logged, recorded, and acting without editing the tree.

The nsync fix-up is checked against real make and g++: a Makefile generated the way
compile_nsync.sh generates nsync's (``PLATFORM_CFLAGS=... -Werror ...``) fails on a file that
gcc 8+ warns about (``-Wclass-memaccess``), and builds with the environment the planned step
carries; the tracked files are never touched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import PurePosixPath

import pytest
from test_build_plans import plan_for, world  # noqa: F401  (the world fixture)

from tfbuild.build.fixups import FixupTable, apply_fixups, fixup_table
from tfbuild.build.plan import Step
from tfbuild.build.plan_text import plan_text
from tfbuild.tree.facts import TensorFlowVersion

TF19 = TensorFlowVersion(1, 9, 0)
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
    flags = r"PLATFORM_CFLAGS=-std=c++11\ -Wall\ -Wextra\ -pedantic"
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
        assert fixup.acts_on_step or fixup.directories or fixup.script, fixup.name


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
    assert changed[0] == steps[0] and changed[1] == steps[1]
    stub, eigen, build = changed[2], changed[3], changed[4]
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
    assert [(fix.name, fix.step) for fix in applied] == [  # in step order
        ("android-static-liblog", stub.name), ("eigen-transpositions-clang19", eigen.name),
        ("android-static-liblog", build.name), ("android-no-whole-archive", build.name),
        ("host-protobuf-library-path", build.name),
    ]
    assert len(changed) == 5


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
    from tfbuild.build.fixups import search_path_word

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


def test_the_eigen_fixup_edits_the_downloaded_header_once_and_says_so(tmp_path):
    """Run as planned, in the tree's root: the header clang 19 rejects compiles after it (the
    call it makes is the same), a second run changes nothing, and a tree without Eigen is left
    alone."""
    import shutil

    step = Step("build TensorFlow (android-arm64)", ("make",), PurePosixPath("/src"), tags=frozenset({"ndk-clang"}))
    (_, fixup, _), _ = apply_fixups((step,), TF19, values=CLANG_VALUES)
    absent = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "not there" in absent.stdout
    header = tmp_path / EIGEN_HEADER
    header.parent.mkdir(parents=True)
    header.write_text(EIGEN_LIKE_TRANSPOSITIONS)
    clang = shutil.which("clang++-19")
    if clang is not None:
        before = subprocess.run([clang, "-fsyntax-only", str(header), "-x", "c++"], capture_output=True, text=True)
        assert before.returncode != 0 and "no member named 'derived'" in before.stderr
    first = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "trt.derived() -> trt on 1 line(s)" in first.stdout
    assert "trt.derived()" not in header.read_text()
    assert header.read_text() == EIGEN_LIKE_TRANSPOSITIONS.replace("trt.derived()", "trt")
    second = subprocess.run(fixup.argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "nothing to change" in second.stdout
    if clang is not None:
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
    (stub, _, _), _ = apply_fixups((step,), TF19, values=values)
    subprocess.run(stub.argv, cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "main.c").write_text(
        'int __android_log_write(int, const char*, const char*);\n'
        'int main(void) { return __android_log_write(4, "tf", "hello"); }\n')
    subprocess.run([str(bin_dir / "aarch64-linux-android21-clang"), "-static", "main.c", f"-L{tmp_path / 'fixups'}",
                    "-llog", "-o", str(tmp_path / "main")], cwd=tmp_path, check=True, capture_output=True)
    assert subprocess.run(["qemu-aarch64", str(tmp_path / "main")]).returncode == 0


def test_the_plan_and_its_text_show_the_fixups(world):  # noqa: F811
    plan = plan_for(world, "linux-x86_64", "makefile")
    assert {fix.name for fix in plan.fixups} == {"nsync-without-werror", "protobuf-without-gmock"}
    text = plan_text(plan)
    assert "toolchain fix-ups (no tracked file of the tree is edited):" in text
    assert "fix-up nsync-without-werror: compile_nsync.sh builds nsync 1.20 with -Werror" in text


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
