"""The contrib Makefile's variables as make computes them for a command line, and the clang
adapter's make variables derived from them (the generated TF 1.x tree's Makefile has TF 1.12's
Android section: GCC 4.9 toolchains, platforms/android-21, gnustl)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from treegen import MAKEFILE

from tfbuild.pipeline.outputs.android.ndk_clang import KEPT, clang_toolchain, make_variables
from tfbuild.toolchain.targets import get_target
from tfbuild.tree.contrib_makefile import makefile_variables

ANDROID = {"TARGET": "ANDROID", "HOST_OS": "LINUX", "HOST_ARCH": "x86_64"}


def test_command_line_variables_win_and_suppress_appends():
    text = "CXXFLAGS := -O2\nCXXFLAGS += -fPIC\nLIBS = -lm\nLIBS += -ldl\nA ?= 1\nA ?= 2\n"
    assert makefile_variables(text, {"CXXFLAGS": "-Os"}, ("CXXFLAGS", "LIBS", "A")) == {
        "CXXFLAGS": "-Os", "LIBS": "-lm -ldl", "A": "1",
    }


def test_conditionals_and_references():
    text = """\
X := base
ifeq ($(TARGET),ANDROID)
\tX += android
\tifeq ($(ARCH),arm)
\t\tX += arm
\telse ifeq ($(ARCH),arm64)
\t\tX += arm64
\telse
\t\tX += other
\tendif
else
\tX += host
endif
ifdef NOT_SET
  X += never
endif
ifeq ($(origin DIR), undefined)
  DIR := $(shell pwd)
else
  X += neither-branch
endif
Y = $(DIR)/lib $(OPTFLAGS) $(Z)
Z := late
all: x
\tX += recipe-line
"""
    values = makefile_variables(text, {"TARGET": "ANDROID", "ARCH": "arm64"}, ("X", "Y"), kept=("OPTFLAGS",))
    assert values == {"X": "base android arm64", "Y": "$(DIR)/lib $(OPTFLAGS) late"}


@pytest.mark.parametrize("arch", ["arm64-v8a", "armeabi-v7a"])
def test_the_generated_tree_has_tf_1_12s_android_section(pristine_trees, arch):
    text = (pristine_trees["tf1"] / MAKEFILE).read_text()
    values = makefile_variables(text, {**ANDROID, "ANDROID_ARCH": arch}, ("CXX", "CXXFLAGS", "INCLUDES", "LIBS"),
                                kept=KEPT)
    gcc = "aarch64-linux-android" if arch == "arm64-v8a" else "arm-linux-androideabi"
    assert values["CXX"] == f"$(CC_PREFIX) $(NDK_ROOT)/toolchains/{gcc}-4.9/prebuilt/linux-x86_64/bin/{gcc}-g++"
    assert "--sysroot $(NDK_ROOT)/platforms/android-21/arch-" in values["CXXFLAGS"]
    assert values["CXXFLAGS"].startswith("--std=c++11 -DIS_SLIM_BUILD -fno-exceptions -DNDEBUG $(OPTFLAGS)")
    assert ("-march=armv7-a -mfloat-abi=softfp -mfpu=neon" in values["CXXFLAGS"]) == (arch == "armeabi-v7a")
    assert f"-I$(NDK_ROOT)/sources/cxx-stl/gnu-libstdc++/4.9/libs/{arch}/include" in values["INCLUDES"]
    assert values["LIBS"] == "$(TARGET_NSYNC_LIB) -lgnustl_static -lprotobuf -llog -lz -lm -ldl -latomic"


def test_the_clang_adapter_keeps_the_trees_flags_without_the_gcc_era(pristine_trees):
    text = (pristine_trees["tf1"] / MAKEFILE).read_text()
    build = get_target("android-armv7").makefile.ndk_clang
    toolchain = clang_toolchain(PurePosixPath("/ndk"), "linux-x86_64", build, None)
    kinds = {"z": frozenset({"shared"}), "atomic": frozenset(), "m": frozenset({"static", "shared"}),
             "dl": frozenset({"static", "shared"}), "protobuf": frozenset()}
    variables, notes = make_variables(toolchain, text, "armeabi-v7a", library_kinds=kinds.__getitem__)
    bin_dir = "/ndk/toolchains/llvm/prebuilt/linux-x86_64/bin"
    assert list(variables) == ["CXX", "CC", "AR", "LD", "CXXFLAGS", "INCLUDES", "LDFLAGS", "LIBS"]
    assert (variables["CXX"], variables["AR"]) == (f"{bin_dir}/clang++", f"{bin_dir}/llvm-ar")
    assert variables["CXXFLAGS"] == (
        "--target=armv7a-linux-androideabi21 --sysroot=/ndk/toolchains/llvm/prebuilt/linux-x86_64/sysroot "
        "-stdlib=libc++ --std=c++11 -DIS_SLIM_BUILD -fno-exceptions -DNDEBUG $(OPTFLAGS) -Wno-narrowing "
        "-fomit-frame-pointer -march=armv7-a -mfloat-abi=softfp -mfpu=neon -fPIE -fPIC"
    )
    assert variables["INCLUDES"].startswith("-I. -I$(MAKEFILE_DIR)/downloads/ ")
    assert "NDK_ROOT" not in variables["INCLUDES"] + variables["LDFLAGS"] + variables["LIBS"]
    assert variables["LDFLAGS"] == (
        "-march=armv7-a -mfloat-abi=softfp -mfpu=neon -L$(MAKEFILE_DIR)/gen/protobuf_android/armeabi-v7a/lib "
        "-fPIE -pie -v -static"
    )
    assert variables["LIBS"] == "$(TARGET_NSYNC_LIB) -lprotobuf -llog -lm -ldl"
    assert [(note.kind, note.text) for note in notes] == [
        ("android-ndk",
         "-lz left out of the benchmark's static link: the NDK has no libz.a for armeabi-v7a (only libz.so)"),
        ("android-ndk", "-latomic left out of the benchmark's static link: the NDK has no libatomic.a for armeabi-v7a"),
    ]
