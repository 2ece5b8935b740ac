"""The contrib Makefile's variables as make computes them for a command line, and the clang
adapter's make variables derived from them (the generated TF 1.x tree's Makefile has TF 1.12's
Android section: GCC 4.9 toolchains, platforms/android-21, gnustl)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
import treegen
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


# -- TF 2.0.0 through its contrib Makefile (the tf2-makefile tree) ----------------------------------
def test_the_tf2_makefile_tree_states_what_a_real_v2_0_0_checkout_states(pristine_tf2_makefile_tree):
    """What tfbuild reads in a real v2.0.0 checkout (``tfbuild source`` on it, 2026-11-29), read in
    the generated tree: the version, the Bazel range in constants, the NDKs and API level, the
    protobuf commit and what its autotools do, the Java API's eager calls, the lite-blocking import."""
    from tfbuild.pipeline.flavours.fixups import fixup_table
    from tfbuild.tree.facts import read_tree_facts
    from tfbuild.tree.java_api import missing_eager_api, read_java_api
    from tfbuild.tree.protobuf_pin import read_protobuf_pin

    tree = pristine_tf2_makefile_tree
    facts = read_tree_facts(tree)
    assert str(facts.version) == treegen.TF2_MAKEFILE_VERSION
    assert [flavour.value for flavour in facts.flavours] == ["makefile", "bazel"]
    assert facts.bazel.bounds == treegen.TF2_MAKEFILE_BAZEL_VERSIONS and facts.bazel_version == "0.26.1"
    assert facts.bazel.source == "configure.py: _TF_MIN/_TF_MAX_BAZEL_VERSION"
    assert facts.android_ndk_majors.value == treegen.TF1_NDK_MAJORS and facts.default_ndk_api_level.value == 18
    pin = read_protobuf_pin(tree)
    assert (pin.ref, pin.fetches_gmock, pin.subdirs) == (treegen.TF2_MAKEFILE_PROTOBUF, False, "third_party/googletest")
    assert missing_eager_api(tree, read_java_api(tree)) == treegen.TF2_MAKEFILE_EAGER_JNI
    assert treegen.TF2_MAKEFILE_TEST_LOG_PROTO in (tree / treegen.MAKEFILE_DIR / "tf_proto_files.txt").read_text()
    # Every fix-up of the TF 1.x Makefile builds is for 2.0 too, but the gmock one (this protobuf fetches none).
    applied = {fixup.name for fixup in fixup_table().fixups if fixup.applies_to(facts.version, pin.facts())}
    assert applied == {fixup.name for fixup in fixup_table().fixups} - {"protobuf-without-gmock"}


@pytest.mark.parametrize(("args", "message"), [
    ((), "{tree}/" + treegen.TF2_MAKEFILE_EAGER_JNI + ": calls TensorFlow's eager C API (TFE_*), which neither "),
    (("--java-api", "tfbuild", "--protobuf-runtime", "lite"),
     "{tree}/" + treegen.TF2_MAKEFILE_TEST_LOG_PROTO + ": imports google/protobuf/wrappers.proto, whose messages "
     "libprotobuf-lite does not hold"),
])
def test_what_v2_0_0_cannot_build_is_refused_before_the_build(tf2_makefile_tree, tmp_path, capsys, monkeypatch,
                                                              args, message):
    """As on the real tree: the Android Java API of 2.0.0 needs the eager C API (exit 4, naming
    ``--java-api tfbuild``), and its test_log.proto keeps the lite protobuf runtime out (exit 4)."""
    import json

    from android_dirs import make_ndk

    from tfbuild.cli import main

    for variable in ("TFBUILD_ANDROID_NDK", "ANDROID_NDK_HOME", "ANDROID_NDK_ROOT", "ANDROID_HOME", "ANDROID_SDK_ROOT"):
        monkeypatch.delenv(variable, raising=False)
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    ndk = make_ndk(tmp_path / "ndk", revision="26.1.10909125", api_levels=(21, 34))
    code = main(["build", "--source", str(tf2_makefile_tree), "--model", str(model), "--out", str(tmp_path / "out"),
                 "--target", "android-arm64", "--flavour", "makefile", "--ndk", str(ndk), "--local", "--dry-run",
                 *args])
    err = capsys.readouterr().err
    assert code == 4, err
    assert message.format(tree=tf2_makefile_tree) in err


@pytest.mark.android_ndk
@pytest.mark.tensorflow
def test_v2_0_0_builds_for_android_arm64_with_the_clang_only_ndk_and_verifies(tf2_makefile_tree, mini_ndk, tmp_path,
                                                                              capsys, monkeypatch):
    """The real 2.0.0 build's command on the tf2-makefile tree: ``--local``, the r26 stand-in,
    ``small``, ``--java-api tfbuild``, the full protobuf runtime (its test_log.proto is compiled,
    the wrappers import read and skipped by the stand-in protoc). Every fix-up of [1.4, 2.1) that
    the plan lists runs and is logged, the gmock one is left out (310ba5ee downloads none), the
    JNI library is built, and ``tfbuild verify`` runs the model on the build under qemu-aarch64."""
    import json

    from modelgen import graph_pbtxt

    from tfbuild.cli import main

    for variable in ("TFBUILD_ANDROID_NDK", "ANDROID_NDK_HOME", "ANDROID_NDK_ROOT", "ANDROID_HOME", "ANDROID_SDK_ROOT"):
        monkeypatch.delenv(variable, raising=False)
    out = tmp_path / "out"
    model = graph_pbtxt(tmp_path / "identity.pbtxt", "Identity")
    code = main(["build", "--source", str(tf2_makefile_tree), "--model", str(model), "--out", str(out),
                 "--target", "android-arm64", "--flavour", "makefile", "--ndk", str(mini_ndk), "--local",
                 "--jobs", "2", "--ndk-api-level", "23", "--size-profile", "small", "--java-api", "tfbuild"])
    assert code == 0, capsys.readouterr().err[-3000:]
    log = (out / "android-arm64.build.log").read_text()
    for fixup in ("nsync-without-werror", "protobuf-distclean-without-gmock", "android-protobuf-static-libcxx",
                  "android-static-liblog", "android-no-whole-archive", "host-protobuf-library-path",
                  "eigen-transpositions-clang19", "absl-sigstksz-glibc234", "absl-graphcycles-include-limits"):
        assert f"fix-up {fixup}: " in log, fixup
    assert "protobuf-without-gmock" not in log
    generated = tf2_makefile_tree / treegen.MAKEFILE_DIR / "gen/proto" / treegen.TF2_MAKEFILE_TEST_LOG_PROTO
    assert generated.with_suffix(".pb.h").is_file() and "BenchmarkEntryStandin" in generated.with_suffix(".pb.h").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["android_jni"]["library"] == "libtensorflow_inference.so" and manifest["android_jni"]["min_sdk"] == 23
    assert (out / "libtensorflow_inference.so").stat().st_size > 0
    capsys.readouterr()
    code = main(["verify", "--out", str(out)])
    text, err = capsys.readouterr()
    assert code == 0, text + err
    record = json.loads((out / "manifest.json").read_text())["verify"]
    assert record["passed"] and record["models"][0]["tensors"]


@pytest.mark.parametrize("filled", [(), ("eigen/Eigen/Core", "nsync/public/nsync.h")])
def test_a_downloads_directory_that_is_there_but_not_filled_is_refused_before_the_build(tf2_makefile_tree, tmp_path,
                                                                                         capsys, filled):
    """The real v2.0.0 checkout came with an empty downloads/ (its script needs the network):
    the build skips the download step when the directory is there, so an empty or half-filled one
    is refused before anything changes (exit 4), naming what is missing; the build would
    otherwise stop in compile_linux_protobuf.sh ("You need to download dependencies")."""
    import json

    from tfbuild.cli import main

    downloads = tf2_makefile_tree / treegen.MAKEFILE_DIR / "downloads"
    downloads.mkdir()
    for name in filled:
        (downloads / name).parent.mkdir(parents=True)
        (downloads / name).write_text("// laid out by hand\n")
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    code = main(["build", "--source", str(tf2_makefile_tree), "--model", str(model), "--out", str(tmp_path / "out"),
                 "--target", "linux-x86_64", "--flavour", "makefile", "--local"])
    err = capsys.readouterr().err
    assert code == 4, err
    missing = "protobuf/autogen.sh" if filled else "eigen, nsync, protobuf/autogen.sh"
    assert f"error: {downloads}: there, so the build skips download_dependencies.sh, but it has no {missing} " in err
    assert not (tmp_path / "out").exists() and "tfbuild/selective-edits" not in subprocess_branches(tf2_makefile_tree)


def subprocess_branches(tree) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(tree), "branch", "--list"], capture_output=True, text=True,
                          check=True).stdout
