"""The Android NDK: read like any NDK (the r26-shaped stand-in of ../shared, fake NDKs of older
eras), checked against the target's ABI, its API level and the tree's NDK range, and refused in
one line before a build changes anything in the tree.

The stand-in (``mini_ndk``, tests/android_ndk.py) is a real NDK layout whose clang builds and
links Android programs; the other NDKs are metadata only (tests/android_dirs.py).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from android_dirs import make_ndk, make_sdk
from android_ndk import MINI_NDK_NAME, unpack_mini_ndk
from modelgen import graph_pbtxt

from tfbuild.cli import main
from tfbuild.errors import ConfigError
from tfbuild.pipeline.flavours.makefile import MAKEFILE_NDK_API_LEVEL
from tfbuild.toolchain.android_ndk import check_abi, check_api_level, inspect_ndk, levels_text

HELLO = '#include <cstdio>\n#include <string>\nint main() { std::printf("%s\\n", std::string("hello, android").c_str()); }\n'
ANDROID_VARIABLES = ("TFBUILD_ANDROID_NDK", "ANDROID_NDK_HOME", "ANDROID_NDK_ROOT",
                     "TFBUILD_ANDROID_SDK", "ANDROID_SDK_HOME", "ANDROID_HOME", "TFBUILD_CONFIG")


# -- the stand-in's archive ------------------------------------------------------------------------
def _archive(tmp_path: Path, *files: str) -> Path:
    """A ``.tar.xz`` holding ``files`` (paths relative to its top), each with a line of text."""
    top = tmp_path / "content"
    for name in files:
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(f"{name}\n")
    archive = tmp_path / "android-ndk-r26-mini.tar.xz"
    subprocess.run(["tar", "-cJf", str(archive), "-C", str(top), *files], check=True)
    return archive


def test_the_stand_in_is_unpacked_once_and_found_again(tmp_path):
    archive = _archive(tmp_path, f"{MINI_NDK_NAME}/source.properties", f"{MINI_NDK_NAME}/meta/abis.json")
    ndk = unpack_mini_ndk(tmp_path / "cache", archive)
    assert ndk.name == MINI_NDK_NAME and (ndk / "meta" / "abis.json").read_text() == f"{MINI_NDK_NAME}/meta/abis.json\n"
    (ndk / "meta" / "abis.json").unlink()  # a second call finds source.properties and unpacks nothing
    assert unpack_mini_ndk(tmp_path / "cache", archive) == ndk and not (ndk / "meta" / "abis.json").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == [ndk.parent.name]


@pytest.mark.parametrize("broken", ["not an archive", "no NDK inside"])
def test_a_stand_in_that_is_there_but_broken_fails_everywhere(tmp_path, broken):
    """Present but broken is no missing part: the test fails (it would hide a defect if it were
    skipped), with one line naming the archive, and leaves no half NDK behind."""
    if broken == "not an archive":
        archive = tmp_path / "android-ndk-r26-mini.tar.xz"
        archive.write_bytes(b"\xfd7zXZ\x00 truncated")
        expected = "tar cannot unpack it"
    else:
        archive = _archive(tmp_path, "README.md")
        expected = f"holds no {MINI_NDK_NAME}/source.properties"
    with pytest.raises(pytest.fail.Exception) as failed:
        unpack_mini_ndk(tmp_path / "cache", archive)
    assert str(failed.value).startswith(f"{archive}: {expected}"), failed.value
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []


# -- reading an NDK --------------------------------------------------------------------------------
def test_the_stand_in_reads_as_an_ndk_r26(mini_ndk):
    ndk = inspect_ndk(mini_ndk, origin="--ndk")
    assert ndk.major == 26 and ndk.revision.startswith("26.")
    assert (ndk.api_levels, ndk.api_levels_source) == ((21,), "meta/platforms.json")
    # The stand-in lists three ABIs since it gained x86_64 (its README).
    assert (ndk.abis, ndk.abis_source) == (("arm64-v8a", "armeabi-v7a", "x86_64"), "meta/abis.json")
    assert ndk.hosts == ("linux-x86_64",) and ndk.gcc_toolchains == ()
    assert ndk.prebuilt() == mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64"
    assert (ndk.prebuilt() / "sysroot/usr/include/android/api-level.h").is_file()
    assert ndk.prebuilt("darwin-x86_64") is None
    assert ndk.summary() == f"{ndk.name}: API 21, ABIs arm64-v8a, armeabi-v7a, x86_64, prebuilt linux-x86_64"


@pytest.mark.android_ndk
@pytest.mark.parametrize(("triple", "machine", "qemu"), [
    ("aarch64-linux-android21", "AArch64", "qemu-aarch64"),
    ("armv7a-linux-androideabi21", "ARM", "qemu-arm"),
])
def test_the_stand_ins_clang_builds_a_static_android_program_that_runs(mini_ndk, tmp_path, triple, machine, qemu):
    """The fixture's sanity check: the NDK found by the path tfbuild reads compiles, links
    (lld, libc++, bionic's libc.a) and the program runs under qemu-user."""
    bin_dir = inspect_ndk(mini_ndk).prebuilt() / "bin"
    (tmp_path / "hello.cc").write_text(HELLO)
    program = tmp_path / "hello"
    subprocess.run([str(bin_dir / f"{triple}-clang++"), "-static", "-O2", "hello.cc", "-o", str(program)],
                   cwd=tmp_path, check=True, capture_output=True, text=True, timeout=300)
    header = subprocess.run([str(bin_dir / "llvm-readelf"), "-h", str(program)],
                            check=True, capture_output=True, text=True).stdout
    assert re.search(rf"Machine:\s+{machine}\b", header)
    ran = subprocess.run([qemu, str(program)], capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout) == (0, "hello, android\n"), ran.stderr


def test_an_old_ndk_is_read_from_its_platforms_and_gcc_toolchains(tmp_path):
    old = make_ndk(tmp_path / "android-ndk-r16b", revision="16.1.4479499", api_levels=(14, 16, 19, 21),
                   abis=("armeabi-v7a", "arm64-v8a", "x86"))
    ndk = inspect_ndk(old)
    assert (ndk.major, ndk.revision) == (16, "16.1.4479499")
    assert (ndk.api_levels, ndk.api_levels_source) == ((14, 16, 19, 21), "platforms/android-N")
    assert (ndk.abis, ndk.abis_source) == (("arm64-v8a", "armeabi-v7a", "x86"), "platforms/android-N/arch-*")
    assert ndk.gcc_toolchains == ("aarch64-linux-android-4.9", "arm-linux-androideabi-4.9", "x86-4.9")
    assert "GCC toolchains" in ndk.summary()


def test_meta_files_win_over_platform_directories(tmp_path):
    """NDK r18-r22 have both; meta/ is what their own build systems read."""
    ndk = inspect_ndk(make_ndk(tmp_path / "ndk", revision="21.4.7075529", api_levels=(16, 18, 21, 29)))
    assert (ndk.api_levels, ndk.api_levels_source) == (tuple(range(16, 30)), "meta/platforms.json")
    assert ndk.abis_source == "meta/abis.json" and ndk.gcc_toolchains == ()


@pytest.mark.parametrize(("write", "message"), [
    (lambda ndk: ndk.rmdir(), "Android NDK directory not found"),
    (lambda ndk: None, "no source.properties, so this is not an Android NDK"),
    (lambda ndk: (ndk / "source.properties").write_text("Pkg.Desc = Android NDK\n"), "no 'Pkg.Revision = N...' line"),
    (lambda ndk: _meta(ndk, "platforms.json", "{not json"), "not readable JSON"),
    (lambda ndk: _meta(ndk, "platforms.json", '{"min": 24, "max": 21}'), "expected whole numbers 'min' <= 'max'"),
    (lambda ndk: _meta(ndk, "abis.json", "[]"), "expected a JSON object"),
])
def test_what_is_not_an_ndk_is_one_line_naming_the_path(tmp_path, write, message):
    ndk = tmp_path / "not-an-ndk"
    ndk.mkdir()
    write(ndk)
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        inspect_ndk(ndk, origin="$ANDROID_NDK_HOME")
    assert str(ndk) in caught.value.message and "\n" not in caught.value.one_line()


def _meta(ndk: Path, name: str, text: str) -> None:
    (ndk / "source.properties").write_text("Pkg.Revision = 26.1.10909125\n")
    (ndk / "meta").mkdir()
    (ndk / "meta" / name).write_text(text)


@pytest.fixture
def two_abi_ndk(mini_ndk, tmp_path) -> Path:
    """The stand-in as an NDK without x86_64, as it was before it gained it: its
    meta/abis.json without that entry, everything else linked to the stand-in's own."""
    ndk = tmp_path / mini_ndk.name
    (ndk / "meta").mkdir(parents=True)
    for entry in mini_ndk.iterdir():
        if entry.name != "meta":
            (ndk / entry.name).symlink_to(entry)
    for entry in (mini_ndk / "meta").iterdir():
        if entry.name != "abis.json":
            (ndk / "meta" / entry.name).symlink_to(entry)
    abis = json.loads((mini_ndk / "meta" / "abis.json").read_text())
    abis.pop("x86_64")
    (ndk / "meta" / "abis.json").write_text(json.dumps(abis))
    return ndk


def test_the_checks_name_the_ndk_what_it_has_and_what_is_needed(two_abi_ndk):
    mini_ndk = two_abi_ndk
    ndk = inspect_ndk(mini_ndk, origin="$ANDROID_NDK_HOME")
    check_abi(ndk, "arm64-v8a", target="android-arm64")
    check_api_level(ndk, 21, needs="target android-arm64", why="--ndk-api-level")
    with pytest.raises(ConfigError) as abi:
        check_abi(ndk, "x86_64", target="android-x86_64")
    assert abi.value.message == (
        f"{mini_ndk} (from $ANDROID_NDK_HOME): {ndk.name} has ABIs arm64-v8a, armeabi-v7a (meta/abis.json); "
        "target android-x86_64 needs x86_64"
    )
    with pytest.raises(ConfigError) as level:
        check_api_level(ndk, 24, needs="target android-arm64", why="--ndk-api-level")
    assert level.value.message.endswith(
        "has API levels 21 (meta/platforms.json); target android-arm64 builds for API level 24 (--ndk-api-level)"
    )
    assert level.value.hint == "use an NDK that has API level 24, or pass --ndk-api-level 21"


@pytest.mark.parametrize(("levels", "text"), [
    ((21,), "21"), (tuple(range(21, 35)), "21-34"), ((14, 16, 17, 18, 19, 21, 22), "14, 16-19, 21-22"), ((), "none"),
])
def test_levels_text(levels, text):
    assert levels_text(levels) == text


# -- refused builds change nothing -----------------------------------------------------------------
@pytest.fixture
def android_env(monkeypatch):
    """No NDK or SDK from this machine's environment: each test says where its own come from."""
    for variable in ANDROID_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


@pytest.fixture
def const_model(tmp_path: Path) -> Path:
    model = tmp_path / "model_ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    return model


def lists_ndks(tree: Path, majors: list[int]) -> Path:
    """``tree`` with configure.py listing ``majors`` as its supported NDKs, committed."""
    configure = tree / "configure.py"
    text = re.sub(r"^_SUPPORTED_ANDROID_NDK_VERSIONS = \[[^\]]*\]", f"_SUPPORTED_ANDROID_NDK_VERSIONS = {majors}",
                  configure.read_text(), count=1, flags=re.MULTILINE)
    configure.write_text(text)
    git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
        "commit", "-qam", f"NDKs {majors}")
    return tree


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def tree_state(root: Path) -> tuple[object, ...]:
    """Every file outside .git (untracked and ignored too), HEAD, the branches, git status."""
    files = {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*"))
             if path.is_file() and ".git" not in path.relative_to(root).parts}
    return (files, git(root, "rev-parse", "HEAD"), git(root, "branch", "--format=%(refname:short)"),
            git(root, "status", "--porcelain", "--untracked-files=all", "--ignored"))


def refused_build(tree: Path, model: Path, out: Path, capsys, *args: str) -> str:
    """Run ``tfbuild build`` (not a dry run) that must be refused with exit 2 before it changes
    ``tree`` or writes ``out``; its one error line."""
    before = tree_state(tree)
    code = main(["build", "--source", str(tree), "--model", str(model), "--out", str(out), "--jobs", "2",
                 "--local", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert tree_state(tree) == before
    assert not out.exists()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


CONFIGURE_NDKS = "configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS"


def test_bazel_refuses_an_ndk_too_new_for_the_tree(tf1_tree, const_model, mini_ndk, tmp_path, capsys, android_env):
    """TF 1.13's configure.py lists r10-r18; the stand-in is r26. Found through ANDROID_NDK_HOME."""
    android_env.setenv("ANDROID_NDK_HOME", str(mini_ndk))
    line = refused_build(tf1_tree, const_model, tmp_path / "out", capsys, "--target", "android-arm64",
                         "--flavour", "bazel", "--sdk", str(make_sdk(tmp_path / "sdk")))
    assert line.startswith(f"error: {mini_ndk} (from $ANDROID_NDK_HOME): Android NDK r26 (26.")
    assert f"is too new for TensorFlow 1.13.0, which builds with NDK r10-r18 ({CONFIGURE_NDKS})" in line
    assert "(use an NDK r18 or older" in line


def test_bazel_refuses_an_ndk_too_old_for_the_tree(tf1_tree, const_model, tmp_path, capsys, android_env):
    tree = lists_ndks(tf1_tree, [15, 16, 17, 18])
    r14 = make_ndk(tmp_path / "android-ndk-r14b", revision="14.1.3816874")
    line = refused_build(tree, const_model, tmp_path / "out", capsys, "--target", "android-armv7",
                         "--flavour", "bazel", "--ndk", str(r14), "--sdk", str(make_sdk(tmp_path / "sdk")))
    assert f"{r14} (from --ndk): Android NDK r14 (14.1.3816874) is too old for TensorFlow 1.13.0" in line
    assert "which builds with NDK r15-r18" in line and "(use an NDK r15 or newer" in line


def test_bazel_refuses_an_api_level_outside_the_ndks_range(tf1_tree, const_model, mini_ndk, tmp_path, capsys,
                                                          android_env):
    """A tree that takes r26: its default API level (18) is below the stand-in's 21."""
    tree = lists_ndks(tf1_tree, [19, 20, 21, 25, 26])
    line = refused_build(tree, const_model, tmp_path / "out", capsys, "--target", "android-armv7",
                         "--flavour", "bazel", "--ndk", str(mini_ndk), "--sdk", str(make_sdk(tmp_path / "sdk")))
    assert line.startswith(f"error: {mini_ndk} (from --ndk): Android NDK r26 (")
    assert ("has API levels 21 (meta/platforms.json); target android-armv7 builds for API level 18 "
            "(default, configure.py: ANDROID_NDK_API_LEVEL prompt default)") in line
    assert line.endswith("(use an NDK that has API level 18, or pass --ndk-api-level 21)")


def test_bazel_refuses_an_abi_the_ndk_lacks(tf1_tree, const_model, two_abi_ndk, tmp_path, capsys, android_env):
    mini_ndk = two_abi_ndk
    tree = lists_ndks(tf1_tree, [19, 20, 21, 25, 26])
    config = tmp_path / "tfbuild.toml"
    config.write_text(f'[android]\nndk = "{mini_ndk}"\nsdk = "{make_sdk(tmp_path / "sdk")}"\n')
    android_env.setenv("ANDROID_NDK_HOME", str(tmp_path / "not-this-one"))  # the file wins
    line = refused_build(tree, const_model, tmp_path / "out", capsys, "--target", "android-x86_64",
                         "--flavour", "bazel", "--config", str(config))
    assert line == (
        f"error: {mini_ndk} (from {config}: [android] ndk): {inspect_ndk(mini_ndk).name} has ABIs arm64-v8a, "
        "armeabi-v7a (meta/abis.json); target android-x86_64 needs x86_64 (use an NDK that has x86_64)"
    )


def test_the_makefile_refuses_ndk_r18_which_has_neither_gcc_nor_the_clang_layout(
    tf1_tree, const_model, tmp_path, capsys, android_env
):
    """The contrib Makefile calls toolchains/*-4.9, which NDK r18 removed; tfbuild's clang
    adapter needs the toolchain layout of r19 and newer."""
    r18 = make_ndk(tmp_path / "android-ndk-r18b", revision="18.1.5063045")
    line = refused_build(tf1_tree, const_model, tmp_path / "out", capsys, "--target", "android-arm64",
                         "--flavour", "makefile", "--ndk", str(r18))
    assert "the contrib Makefile builds android-arm64 with the NDK's GCC toolchains (toolchains/*-4.9), " \
           "which Android NDK r18 (18.1.5063045) no longer has, and tfbuild's clang adapter needs NDK r19 or newer" in line
    assert "use NDK r17 or older or r19 and newer, or --flavour bazel" in line


def test_the_makefile_takes_a_clang_only_ndk_and_says_so(tf1_tree, const_model, mini_ndk, tmp_path, capsys,
                                                         android_env):
    """The dry run of a Makefile build with the r26 stand-in: the clang adapter, why, and that
    it goes past the NDKs the tree lists itself (configure.py: r10-r18)."""
    code = main(["build", "--source", str(tf1_tree), "--model", str(const_model), "--out", str(tmp_path / "out"),
                 "--target", "android-arm64", "--flavour", "makefile", "--ndk", str(mini_ndk), "--local", "--dry-run"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "note: Android NDK: Android NDK r26 (26." in text and "has no GCC toolchains: tfbuild's clang adapter" in text
    assert ("the tree lists NDK r10-r18 (configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS): Android NDK r26 (") in text
    make = next(line for line in text.splitlines() if " make -f tensorflow/contrib/makefile/Makefile" in line)
    prebuilt = mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64"
    assert f"CXX={prebuilt}/bin/clang++ " in make and "--target=aarch64-linux-android21" in make
    assert "gnustl" not in make and "platforms/android-21" not in make and "-4.9" not in make
    assert "LDFLAGS=-Wl,--no-whole-archive " in make  # the fix-up, first
    assert "-lz left out of the benchmark's static link: the NDK has no libz.a for arm64-v8a (only libz.so)" in text
    # Const's one kernel is registered with the slim type set: the plan takes it and says why.
    assert "ANDROID_TYPES=-D__ANDROID_TYPES_SLIM__" in make
    assert "note: mobile types: __ANDROID_TYPES_SLIM__: every kernel the models need (1 for 1 ops)" in text
    # The tree has TensorFlow's own Android Java API and its recipe: by default the JNI library is that.
    assert ("note: JNI library: libtensorflow_inference.so for org.tensorflow.contrib.android."
            "TensorFlowInferenceInterface (the tree's, from tensorflow/contrib/android/cmake/CMakeLists.txt)") in text
    # The stand-in's libc++abi was built against a libc that has __cxa_thread_atexit_impl: said before the build.
    abi = prebuilt / "sysroot/usr/lib/aarch64-linux-android/libc++abi.a"
    assert f"note: Android NDK: {abi} references __cxa_thread_atexit_impl strongly; bionic has it from API 23" in text


@pytest.mark.parametrize(("target", "levels", "abis", "expected"), [
    ("android-x86_64", (16, 21), ("armeabi-v7a", "arm64-v8a"),
     "has ABIs arm64-v8a, armeabi-v7a (platforms/android-N/arch-*); target android-x86_64 needs x86_64"),
    ("android-armv7", (16, 19), ("armeabi-v7a",),
     f"has API levels 16, 19 (platforms/android-N); target android-armv7 builds for API level "
     f"{MAKEFILE_NDK_API_LEVEL} (the contrib Makefile's --sysroot platforms/android-21) "
     f"(use an NDK that has API level {MAKEFILE_NDK_API_LEVEL})"),
])
def test_the_makefile_refuses_an_old_ndk_without_the_abi_or_api_level(
    tf1_tree, const_model, tmp_path, capsys, android_env, target, levels, abis, expected
):
    r17 = make_ndk(tmp_path / "android-ndk-r17c", revision="17.2.4988734", api_levels=levels, abis=abis)
    line = refused_build(tf1_tree, const_model, tmp_path / "out", capsys, "--target", target,
                         "--flavour", "makefile", "--ndk", str(r17))
    assert line.startswith(f"error: {r17} (from --ndk): Android NDK r17 (17.2.4988734) ")
    assert expected in line


@pytest.mark.parametrize("flavour", ["makefile", "bazel"])
def test_a_missing_ndk_directory_is_refused_naming_where_it_was_given(
    tf1_tree, const_model, tmp_path, capsys, android_env, flavour
):
    gone = tmp_path / "no-ndk-here"
    android_env.setenv("ANDROID_NDK_ROOT", str(gone))
    line = refused_build(tf1_tree, const_model, tmp_path / "out", capsys, "--target", "android-arm64",
                         "--flavour", flavour, "--sdk", str(make_sdk(tmp_path / "sdk")))
    assert line.startswith(f"error: {gone}: Android NDK directory not found (from $ANDROID_NDK_ROOT)")


def test_a_directory_without_source_properties_is_refused(tf1_tree, const_model, tmp_path, capsys, android_env):
    empty = tmp_path / "empty-ndk"
    empty.mkdir()
    line = refused_build(tf1_tree, const_model, tmp_path / "out", capsys, "--target", "android-armv7",
                         "--flavour", "makefile", "--ndk", str(empty))
    assert line.startswith(f"error: {empty} (from --ndk): no source.properties, so this is not an Android NDK")


def test_the_dry_run_says_which_ndk_and_where_it_was_given(tf1_tree, const_model, tmp_path, capsys, android_env):
    r18 = make_ndk(tmp_path / "android-ndk-r18b", revision="18.1.5063045")
    android_env.setenv("ANDROID_NDK_HOME", str(r18))
    bazel = tmp_path / "bin" / "bazel"  # on PATH: the dry run exits with the code the build would
    bazel.parent.mkdir()
    bazel.write_text("#!/bin/sh\nexit 0\n")
    bazel.chmod(0o755)
    android_env.setenv("PATH", f"{bazel.parent}{os.pathsep}{os.environ['PATH']}")
    code = main(["build", "--source", str(tf1_tree), "--model", str(const_model), "--out", str(tmp_path / "out"),
                 "--target", "android-arm64", "--flavour", "bazel", "--sdk", str(make_sdk(tmp_path / "sdk")),
                 "--local", "--dry-run"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert (f"ok       Android NDK: {r18} (from $ANDROID_NDK_HOME): Android NDK r18 (18.1.5063045): API 16-28, "
            "ABIs arm64-v8a, armeabi-v7a, x86, x86_64, prebuilt linux-x86_64") in text
    assert f"ok       Android SDK: {tmp_path / 'sdk'} (from --sdk)" in text


# -- the contrib Makefile with a clang-only NDK, for real ------------------------------------------
@pytest.mark.android_ndk
@pytest.mark.parametrize(("target", "abi", "machine", "qemu", "arch_flags"), [
    ("android-arm64", "arm64-v8a", "AArch64", "qemu-aarch64", ""),
    ("android-armv7", "armeabi-v7a", "ARM", "qemu-arm", "-march=armv7-a -mfloat-abi=softfp -mfpu=neon"),
    ("android-x86_64", "x86_64", "Advanced Micro Devices X86-64", None, ""),  # runs natively here
])
def test_a_local_makefile_build_with_the_clang_only_ndk(tf1_tree, const_model, mini_ndk, tmp_path, capsys,
                                                       android_env, target, abi, machine, qemu, arch_flags):
    """``tfbuild build --flavour makefile --local`` of the generated TF 1.x tree (TF 1.12's
    Android section: GCC 4.9, platforms/android-21, gnustl) with the r26 stand-in: the clang
    adapter cross-builds protobuf and nsync and TensorFlow with the NDK's clang; every object
    of the three archives is for the ABI, the ABI's flags are on every compile, and the static
    benchmark runs under qemu-user and registers the model's kernel. arm64 is built for an app
    whose minSdk is 23, which packs the JNI library's relocations; the others for 21."""
    import treegen

    out = tmp_path / "out"
    min_sdk = 23 if target == "android-arm64" else 21
    code = main(["build", "--source", str(tf1_tree), "--model", str(const_model), "--out", str(out),
                 "--target", target, "--flavour", "makefile", "--ndk", str(mini_ndk), "--local", "--jobs", "2",
                 "--ndk-api-level", str(min_sdk), "--java-api", "tfbuild"])
    assert code == 0, capsys.readouterr().err[-3000:]
    readelf = inspect_ndk(mini_ndk).prebuilt() / "bin" / "llvm-readelf"
    for archive in ("libtensorflow-core.a", "libprotobuf.a", "libnsync.a"):
        headers = subprocess.run([str(readelf), "-h", str(out / archive)], capture_output=True, text=True,
                                 check=True).stdout
        machines = re.findall(r"Machine:\s+(.+?)\s*$", headers, re.M)
        assert machines and set(machines) == {machine}, (archive, machines)
    log = (out / f"{target}.build.log").read_text()
    compiles = [line for line in log.splitlines() if "/bin/clang++ " in line and " -c tensorflow/" in line]
    assert compiles and all("-stdlib=libc++" in line and arch_flags in line for line in compiles)
    assert not any("-4.9/" in line or "gnustl" in line for line in compiles)
    benchmark = tf1_tree / treegen.MAKEFILE_BENCHMARK.replace("gen/bin/", f"gen/bin/android_{abi}/")
    ran = subprocess.run([*([qemu] if qemu else []), str(benchmark)], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    kernels, _ = treegen.parse_registry_listing(ran.stdout)
    assert ("Const", "CPU", "ConstantOp") in kernels
    assert "fix-up android-static-liblog: an NDK has liblog only as a shared library" in log
    assert "fix-up android-no-whole-archive: the Makefile links the benchmark" in log
    check_jni_library(out, mini_ndk, machine, kernel_symbol="ConstantOp")
    # Packed relocations (DT_ANDROID_RELA), which Android's loader reads from API 23, only for minSdk 23.
    dynamic = subprocess.run([str(readelf), "-d", str(out / "libtensorflow_inference.so")], capture_output=True,
                             text=True, check=True).stdout
    assert ("(ANDROID_RELA)" in dynamic) == (min_sdk >= 23), dynamic
    assert json.loads((out / "manifest.json").read_text())["android_jni"]["min_sdk"] == min_sdk


BIONIC = {"libc.so", "libm.so", "libdl.so", "liblog.so"}
JNI_METHODS = {f"Java_org_tensorflow_tfbuild_TensorFlowInference_{name}" for name in ("nativeCreate", "nativeRun",
                                                                                      "nativeClose")}


def check_jni_library(out: Path, ndk: Path, machine: str, *, kernel_symbol: str) -> None:
    """The build's JNI library, read with the NDK's llvm-readelf and llvm-nm: for the ABI, NEEDED
    only bionic's libraries, exporting JNI_OnLoad and the Java class's native methods and nothing
    else (no libc++, no TensorFlow), and still holding the model's kernel, which only its
    registrar reaches (--whole-archive kept it, --gc-sections did not drop it)."""
    library = out / "libtensorflow_inference.so"
    tools = inspect_ndk(ndk).prebuilt() / "bin"

    def tool(name: str, *args: str) -> str:
        return subprocess.run([str(tools / name), *args, str(library)], capture_output=True, text=True,
                              check=True).stdout

    headers = tool("llvm-readelf", "-h", "-d")
    assert re.search(rf"Machine:\s+{machine}\b", headers) and re.search(r"Type:\s+DYN\b", headers)
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", headers))
    assert "libc.so" in needed and needed <= BIONIC, needed
    assert "(SONAME)" in headers and "[libtensorflow_inference.so]" in headers
    exported = {line.split()[-1] for line in tool("llvm-nm", "-D", "--defined-only").splitlines() if line.strip()}
    assert exported == {"JNI_OnLoad", *JNI_METHODS}, sorted(exported)[:20]
    assert kernel_symbol in tool("llvm-nm", "-C")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["android_jni"]["library"] == "libtensorflow_inference.so"
    assert {"name": "libtensorflow_inference.so", "kind": "shared-lib"}.items() <= next(
        a for a in manifest["artifacts"] if a["name"] == "libtensorflow_inference.so").items()
    # The size report reads the library by its linker map: every byte the link kept has an owner.
    assert manifest["android_jni"]["link_map"] == "jni/libtensorflow_inference.so.map"
    report = json.loads((out / "report.json").read_text())
    shipped = next(a for a in report["artifacts"] if a["name"] == "libtensorflow_inference.so")
    attribution = shipped["attribution"]
    assert attribution["tool"] == "the linker's map, jni/libtensorflow_inference.so.map"
    groups = attribution["groups"]
    assert groups["kernels"] > 0 and groups["c++ runtime"] > 0 and groups["linker-made"] > 0, groups
    assert sum(groups.values()) == attribution["symbol_bytes"] <= shipped["size"]
    sections = set(attribution["sections"])
    assert {".text", ".dynsym"} <= sections and sections & {".rela.dyn", ".rel.dyn"}, sections  # armv7: REL
    assert any(row["file"].endswith("constant_op.cc") and "Const" in row["ops"] for row in attribution["files"])


# -- tfbuild verify of such a build, for real ------------------------------------------------------
@pytest.mark.android_ndk
@pytest.mark.tensorflow
@pytest.mark.parametrize(("target", "machine", "triple"), [
    ("android-arm64", "AArch64", "aarch64-linux-android21"),
    ("android-armv7", "ARM", "armv7a-linux-androideabi21"),
    ("android-x86_64", "Advanced Micro Devices X86-64", "x86_64-linux-android21"),  # natively, no qemu
])
def test_verify_a_local_makefile_build_with_the_clang_only_ndk(tf1_tree, mini_ndk, tmp_path, capsys, android_env,
                                                               target, machine, triple):
    """``tfbuild build --local`` of the generated tree for a Placeholder -> Identity model, then
    ``tfbuild verify``: the manifest records the NDK; the C++ runner (templates/verify) is
    compiled with the NDK's clang and the build's flags, linked -static against the build's
    archives, and run under qemu-user; TensorFlow's wheel is the reference.

    What this checks: the runner's whole path on the target (the graph file read, the inputs'
    bytes fed, the fetched tensors written back, dtype, shape and values compared), and that it
    runs the selective library's registry (a model whose kernel the build left out fails). What
    it does not: kernel arithmetic. The tree's kernels are stand-ins that compute nothing; its
    session (tensorflow/core/public/session.h of the generated tree) forwards Identity's input
    itself once the library has registered an Identity kernel for the CPU."""
    out = tmp_path / "out"
    model = graph_pbtxt(tmp_path / "identity.pbtxt", "Identity")
    code = main(["build", "--source", str(tf1_tree), "--model", str(model), "--out", str(out), "--target", target,
                 "--flavour", "makefile", "--ndk", str(mini_ndk), "--local", "--jobs", "2"])
    assert code == 0, capsys.readouterr().err[-3000:]
    recorded = json.loads((out / "manifest.json").read_text())["android_ndk"]
    assert recorded == {"path": str(mini_ndk), "revision": inspect_ndk(mini_ndk).revision, "adapter": "clang",
                        "stl": "c++_static"}
    capsys.readouterr()

    code = main(["verify", "--out", str(out)])
    text, err = capsys.readouterr()
    assert code == 0, text + err
    record = json.loads((out / "manifest.json").read_text())["verify"]
    assert record["passed"] and "compiled with Android NDK r26" in record["runner"]
    tensors = {tensor["tensor"]: tensor for tensor in record["models"][0]["tensors"]}
    assert tensors["y:0"]["role"] == "output" and tensors["y:0"]["shape"] == [2, 3]
    assert tensors["y:0"]["max_abs_diff"] == 0
    runner = out / "verify" / f"runner-{target}"
    readelf = inspect_ndk(mini_ndk).prebuilt() / "bin" / "llvm-readelf"
    headers = subprocess.run([str(readelf), "-h", "-l", str(runner)], capture_output=True, text=True, check=True).stdout
    assert re.search(rf"Machine:\s+{re.escape(machine)}\b", headers) and "INTERP" not in headers  # static
    log = (out / "verify" / f"verify-{target}.build.log").read_text()
    compile_line = next(line for line in log.splitlines() if "/bin/clang++ " in line and "runner.cc" in line)
    assert f"--target={triple}" in compile_line and "-stdlib=libc++" in compile_line and " -static" in compile_line
    assert "/gen/tfbuild_fixups/" in compile_line and "-llog" in compile_line

    # The runner runs the selective library: Sqrt's kernel was left out, so the target cannot
    # run a Sqrt model that TensorFlow runs (exit 8, naming the op).
    code = main(["verify", "--out", str(out), "--model", str(graph_pbtxt(tmp_path / "sqrt.pbtxt", "Sqrt"))])
    err = capsys.readouterr().err
    assert code == 8, err
    assert "No OpKernel was registered to support Op 'Sqrt'" in err


# -- 16 KB pages on every NDK -----------------------------------------------------------------------
def four_kb_ndk(ndk: Path, root: Path) -> Path:
    """The stand-in as an NDK r26 whose clang links with 4 KB pages unless told otherwise, as a real
    r26 does (the stand-in's clang 19 defaults to 16 KB): each clang driver is wrapped to put
    ``-Wl,-z,max-page-size=4096`` before the caller's flags when it links; the rest is linked."""
    copy = root / ndk.name
    prebuilt = "toolchains/llvm/prebuilt/linux-x86_64"
    for directory in (copy, *(copy / part for part in ("toolchains", "toolchains/llvm", "toolchains/llvm/prebuilt")),
                      copy / prebuilt, copy / prebuilt / "bin"):
        directory.mkdir(parents=True, exist_ok=True)
    for parent in ("", "toolchains", "toolchains/llvm", "toolchains/llvm/prebuilt", prebuilt, f"{prebuilt}/bin"):
        for entry in (ndk / parent).iterdir():
            target = copy / parent / entry.name
            if target.exists():
                continue
            if parent.endswith("bin") and "clang" in entry.name:
                target.write_text(f'#!/bin/sh\ncase " $* " in *" -c "*) exec "{entry}" "$@";; esac\n'
                                  f'exec "{entry}" -Wl,-z,max-page-size=4096 "$@"\n')
                target.chmod(0o755)
            else:
                target.symlink_to(entry)
    return copy


def readelf_load_alignments(ndk: Path, path: Path) -> set[int]:
    out = subprocess.run([str(inspect_ndk(ndk).prebuilt() / "bin" / "llvm-readelf"), "-lW", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return {int(line.split()[-1], 16) for line in out.splitlines() if line.strip().startswith("LOAD")}


@pytest.mark.android_ndk
def test_the_four_kb_wrapper_links_four_kb_and_the_check_reads_it(mini_ndk, tmp_path):
    """The wrapper does what a real r26 does (4 KB), a later flag wins over it (16 KB), and the
    alignment tfbuild reads from the program headers is llvm-readelf's, 64-bit and 32-bit."""
    from tfbuild.errors import BuildError
    from tfbuild.pipeline.outputs.elf_pages import check_page_alignment, load_alignment

    ndk = four_kb_ndk(mini_ndk, tmp_path / "ndk")
    source = tmp_path / "x.cc"
    source.write_text("int f() { return 1; }\n")
    bin_dir = inspect_ndk(ndk).prebuilt() / "bin"
    built = {}
    for name, compiler, flags in (("default", "aarch64-linux-android21-clang++", ()),
                                  ("told", "aarch64-linux-android21-clang++", ("-Wl,-z,max-page-size=16384",)),
                                  ("arm32", "armv7a-linux-androideabi21-clang++", ())):
        library = tmp_path / f"lib{name}.so"
        subprocess.run([str(bin_dir / compiler), "-shared", "-fPIC", "-static-libstdc++", str(source), "-o", str(library), *flags],
                       check=True, capture_output=True)
        built[name] = library
        assert {load_alignment(library)} == readelf_load_alignments(ndk, library)
    assert (load_alignment(built["default"]), load_alignment(built["told"])) == (4096, 16384)
    assert load_alignment(built["arm32"]) == 4096 and load_alignment(source) is None
    check_page_alignment([built["told"], source], 16384)
    with pytest.raises(BuildError, match=rf"{built['default']}: LOAD segments aligned to 4096 bytes, below 16384"):
        check_page_alignment([built["told"], built["default"]], 16384)
    assert BuildError.exit_code == 7


@pytest.mark.android_ndk
def test_android_arm64_links_16_kb_pages_with_an_ndk_that_defaults_to_4_kb(tf1_tree, const_model, mini_ndk, tmp_path,
                                                                         capsys, android_env):
    """A real build with the 4 KB NDK: every ELF it links (JNI library, static benchmark) has 16 KB
    LOAD alignment, read with llvm-readelf, and the manifest records it; the JNI link run again
    as the build ran it but without tfbuild's page-size flag gives 4 KB, which the build's own
    check refuses, naming the file."""
    import shlex

    import treegen

    from tfbuild.errors import BuildError
    from tfbuild.pipeline.outputs.elf_pages import check_page_alignment

    ndk = four_kb_ndk(mini_ndk, tmp_path / "ndk")
    out = tmp_path / "out"
    code = main(["build", "--source", str(tf1_tree), "--model", str(const_model), "--out", str(out),
                 "--target", "android-arm64", "--flavour", "makefile", "--ndk", str(ndk), "--local", "--jobs", "2"])
    assert code == 0, capsys.readouterr().err[-3000:]
    jni = out / "libtensorflow_inference.so"
    benchmark = tf1_tree / treegen.MAKEFILE_BENCHMARK.replace("gen/bin/", "gen/bin/android_arm64-v8a/")
    assert readelf_load_alignments(ndk, jni) == {16384} and readelf_load_alignments(ndk, benchmark) == {16384}
    manifest = json.loads((out / "manifest.json").read_text())
    assert next(a for a in manifest["artifacts"] if a["name"] == jni.name)["load_alignment"] == 16384
    log = (out / "android-arm64.build.log").read_text()
    link = next(line for line in log.splitlines() if line.startswith("==> ") and "link libtensorflow_inference.so" in line)
    command, _, workdir = link.split("): ", 1)[1].rpartition(" (in ")
    argv = [word for word in shlex.split(command) if word != "-Wl,-z,max-page-size=16384"]
    unflagged = tmp_path / "libunflagged.so"
    argv[argv.index("-o") + 1] = str(unflagged)
    subprocess.run(argv, check=True, capture_output=True, cwd=workdir.rstrip(")"))
    assert readelf_load_alignments(ndk, unflagged) == {4096}
    with pytest.raises(BuildError, match="below 16384"):
        check_page_alignment([unflagged], 16384)


def test_every_compile_the_android_plan_records_names_the_profiles_one_level(tf1_tree, const_model, mini_ndk,
                                                                              tmp_path, capsys, android_env):
    """The size profile's ``-Os`` replaces the target's ``-O2`` on make's ``OPTFLAGS`` and on the
    JNI library's compiles (both recorded in the manifest's ``effective_flags``), not after it."""
    code = main(["build", "--source", str(tf1_tree), "--model", str(const_model), "--out", str(tmp_path / "out"),
                 "--target", "android-x86_64", "--flavour", "makefile", "--ndk", str(mini_ndk), "--local",
                 "--size-profile", "small", "--dry-run"])
    text = capsys.readouterr().out
    assert code == 0, text
    lines = [shlex.split(line) for line in text.splitlines() if line.startswith("    ") and (
        " make -f tensorflow/contrib/makefile/Makefile" in line or ("/bin/clang++ " in line and " -c " in line))]
    make = next(words for words in lines if "make" in words)
    optflags = next(word for word in make if word.startswith("OPTFLAGS=")).removeprefix("OPTFLAGS=").split()
    jni = [words for words in lines if "-c" in words and any("jni" in word for word in words)]
    assert jni, text
    for words in (optflags, *jni):
        assert [word for word in words if word.startswith("-O")] == ["-Os"], words
