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
        assert fixup.make_variables or fixup.directories or fixup.prepend_make_variables or fixup.script, fixup.name


CLANG_VALUES = {"target_cc": "/ndk/bin/aarch64-linux-android21-clang", "target_ar": "/ndk/bin/llvm-ar",
                "fixups_dir": "/src/gen/tfbuild_fixups/android_arm64-v8a"}


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
    stub, build = changed[2], changed[3]
    assert stub.name == "fix-up: android-static-liblog" and stub.argv[:2] == ("bash", "-c")
    assert stub.argv[-3:] == tuple(CLANG_VALUES.values())
    assert build.name == "build TensorFlow (android-arm64) [fix-up: android-static-liblog, android-no-whole-archive]"
    assert build.argv[3] == f"LDFLAGS=-Wl,--no-whole-archive -L{CLANG_VALUES['fixups_dir']} -fPIE -pie"
    assert [fix.name for fix in applied] == ["android-static-liblog", "android-static-liblog", "android-no-whole-archive"]


@pytest.mark.android_ndk
def test_the_liblog_stub_links_statically_and_runs(mini_ndk, tmp_path):
    """The fix-up's script with the stand-in NDK: a static program that calls
    __android_log_write and names -llog links against the stub and runs."""
    bin_dir = mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64/bin"
    values = {"target_cc": str(bin_dir / "aarch64-linux-android21-clang"), "target_ar": str(bin_dir / "llvm-ar"),
              "fixups_dir": str(tmp_path / "fixups")}
    step = Step("build TensorFlow (android-arm64)", ("make",), PurePosixPath("/src"), tags=frozenset({"ndk-clang"}))
    (stub, _), _ = apply_fixups((step,), TF19, values=values)
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
    assert "toolchain fix-ups (no file of the tree is edited):" in text
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
