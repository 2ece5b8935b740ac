"""Target profiles (toolchains/*.toml): every shipped profile loads and is consistent with the
rest of the repository; broken profiles (tests/invalid_targets) fail with the file and key."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.errors import ConfigError
from tfbuild.resources import docker_dir, toolchains_dir
from tfbuild.toolchain.architectures import architectures, find_architecture, host_architecture, load_architectures
from tfbuild.toolchain.debian_packages import debian_package
from tfbuild.toolchain.targets import FLAVOURS, Platform, get_target, load_profile, load_targets
from tfbuild.toolchain.tf_versions import version_table
from tfbuild.tree.facts import TensorFlowVersion

INVALID = sorted((Path(__file__).parent / "invalid_targets").glob("*.toml"))
EXPECTED_TARGETS = {path.stem for path in toolchains_dir().glob("*.toml")}
"""Every target file shipped: a target is added by adding its file."""
REPO = Path(__file__).resolve().parent.parent


def expected_error(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# error: "), f"{path} must start with '# error: <expected message part>'"
    return first.removeprefix("# error: ")


def test_every_target_of_the_issue_has_a_profile():
    assert {"android-arm64", "android-armv7", "android-x86_64", "ios-arm64", "ios-sim-arm64", "ios-sim-x86_64",
            "pi-armv7", "linux-aarch64", "linux-x86_64"} <= EXPECTED_TARGETS
    assert set(load_targets()) == EXPECTED_TARGETS


# -- architectures (toolchains/architectures) ---------------------------------------------------------
def test_every_target_names_an_architecture_whose_facts_agree():
    for name, profile in load_targets().items():
        architecture = profile.architecture
        assert profile.arch in architecture.names
        assert profile.is_64bit == (architecture.bits == 64), name
        if profile.platform is Platform.LINUX:
            compilers = {profile.ops_library.compiler, profile.makefile.variables.get("CXX", "g++")}
            expected = "g++" if architecture.native else f"{architecture.tool_prefix}g++"
            assert compilers == {expected}, name
            assert profile.launcher == architecture.launcher(static=False)


def test_architecture_records_are_complete_and_their_names_unique():
    records = architectures()
    assert {"x86_64", "aarch64", "armv7"} <= set(records)
    spellings = [spelling for record in records.values() for spelling in record.names]
    assert len(spellings) == len(set(spellings))
    assert len({record.elf_machine for record in records.values()}) == len(records)
    for record in records.values():
        assert record.name in record.names and record.sysroot == f"/usr/{record.gnu_triple}"
        if not record.native:
            assert record.runs.startswith("qemu-") and record.runner_packages
            assert record.launcher(static=True) == (record.runs,)
            assert record.launcher(static=False) == (record.runs, "-L", record.sysroot)
            assert debian_package(f"{record.tool_prefix}g++") == f"g++-{record.gnu_triple}"
            assert debian_package(f"{record.tool_prefix}nm") == f"binutils-{record.gnu_triple}"
            assert debian_package(record.runs) == record.runner_packages[0]
    assert find_architecture("armv7l") is records["armv7"] and host_architecture("AMD64") is records["x86_64"]


def test_an_architecture_spelling_claimed_twice_is_refused(tmp_path):
    for name in ("aarch64", "x86_64"):
        (tmp_path / f"{name}.toml").write_text((toolchains_dir() / "architectures" / f"{name}.toml").read_text())
    text = (tmp_path / "x86_64.toml").read_text().replace('names = ["x86_64"', 'names = ["x86_64", "arm64"')
    (tmp_path / "x86_64.toml").write_text(text)
    with pytest.raises(ConfigError, match=r"x86_64.toml: names: 'arm64' is already aarch64's"):
        load_architectures(tmp_path)
    (tmp_path / "x86_64.toml").write_text(text.replace('runs = "native"', 'runs = "qemu arm"'))
    with pytest.raises(ConfigError, match=r"x86_64.toml: runs: 'qemu arm' is neither"):
        load_architectures(tmp_path)


def test_the_install_script_takes_the_architectures_packages_and_zlib_from_the_records():
    """scripts/install-system-deps.sh asks the records (with Python's standard library alone)."""
    script = (REPO / "scripts" / "install-system-deps.sh").read_text()
    assert "python3 -m tfbuild.toolchain.architectures" in script
    assert "architectures packages" in script and "architectures zlib" in script
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-S", "-m", "tfbuild.toolchain.architectures", "packages"],
                          capture_output=True, text=True, env=env, cwd=REPO, check=True)
    listed = done.stdout.split()
    for record in architectures().values():
        assert set(record.compiler_packages + record.runner_packages) <= set(listed)
    done = subprocess.run([sys.executable, "-S", "-m", "tfbuild.toolchain.architectures", "zlib"],
                          capture_output=True, text=True, env=env, cwd=REPO, check=True)
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows == [[r.gnu_triple, r.target_zlib.url, r.target_zlib.sha256]
                    for r in architectures().values() if r.target_zlib is not None]
    assert {row[0] for row in rows} == {r.gnu_triple for r in architectures().values() if not r.native}


def test_the_linux_image_installs_what_its_targets_architectures_need():
    """docker/linux.Dockerfile lists the compiler and runner packages of every architecture a
    target builds for in it (a target built only on this machine has no dockerfile)."""
    installed = set(re.findall(r"[a-z0-9][a-z0-9+.-]+", (docker_dir() / "linux.Dockerfile").read_text()))
    for name, profile in load_targets().items():
        sections = (profile.makefile, profile.ops_library)
        if profile.platform is Platform.LINUX and any(s and s.dockerfile == "linux.Dockerfile" for s in sections):
            record = profile.architecture
            assert set(record.compiler_packages + record.runner_packages) <= installed, name


@pytest.mark.parametrize("name", sorted(EXPECTED_TARGETS))
def test_profile_dockerfiles_exist_under_docker(name):
    profile = get_target(name)
    for section in (profile.makefile, profile.bazel, profile.ops_library):
        if section is not None and section.dockerfile is not None:
            assert (docker_dir() / section.dockerfile).is_file(), section.dockerfile


@pytest.mark.parametrize("name", sorted(EXPECTED_TARGETS))
def test_profiles_are_internally_consistent(name):
    profile = get_target(name)
    assert profile.flavours and set(profile.flavours) <= set(FLAVOURS)
    if profile.makefile is not None:
        names = [artifact.name for artifact in profile.makefile.artifacts]
        # what the app links is what the Makefile build yields
        assert set(profile.link.whole_archive + profile.link.libs) <= set(names)
        assert profile.makefile.nsync.lib in [artifact.path for artifact in profile.makefile.artifacts]
    if profile.platform is Platform.IOS:
        assert "xcode" in profile.requires and not profile.runnable_here
        assert profile.link.snippets == ("xcconfig",) and "Accelerate" in profile.link.frameworks
    if profile.platform is Platform.ANDROID:
        assert "ndk" in profile.requires and not profile.runnable_here
        assert {"cmake", "ndk-build", "gradle"} <= set(profile.link.snippets)


def test_pi_profile_carries_the_neon_flags():
    pi = get_target("pi-armv7")
    for flag in ("-march=armv7-a", "-mfpu=neon-vfpv4", "-mfloat-abi=hard", "-funsafe-math-optimizations", "-ftree-vectorize"):
        assert flag in pi.ops_library.cflags
        assert flag in pi.makefile.optflags
    assert pi.makefile.variables["TARGET"] == "PI"
    assert pi.ops_library.compiler == "arm-linux-gnueabihf-g++"


def test_unknown_target_name_suggests_the_closest():
    with pytest.raises(ConfigError, match=r"unknown target 'pi-armv6' \(did you mean 'pi-armv7'\?\)"):
        get_target("pi-armv6")


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_profile_is_a_config_error_naming_the_file(path):
    with pytest.raises(ConfigError) as caught:
        load_profile(path)
    message = caught.value.one_line()
    assert expected_error(path) in message
    assert str(path) in message
    assert "\n" not in message


def test_invalid_profile_in_a_directory_fails_the_whole_load(tmp_path):
    good = toolchains_dir() / "pi-armv7.toml"
    (tmp_path / "pi-armv7.toml").write_text(good.read_text())
    (tmp_path / "broken.toml").write_text(INVALID[0].read_text())
    with pytest.raises(ConfigError, match="broken.toml"):
        load_targets(tmp_path)


def test_version_table_answers_for_the_generated_trees_versions():
    table = version_table()
    assert table.for_version(TensorFlowVersion(1, 12, 0)).android_inference_package == "//tensorflow/contrib/android"
    later = table.for_version(TensorFlowVersion(2, 6, 0))
    assert later.android_inference_package == "//tensorflow/tools/android/inference_interface"
    assert 21 in later.android_ndk_majors


def test_targets_command_lists_every_target(capsys):
    assert main(["targets"]) == 0
    out = capsys.readouterr().out
    for name in EXPECTED_TARGETS:
        assert name in out
    assert "xcode" in out and "ndk" in out


def test_builds_here_says_what_this_machine_has(tmp_path):
    """``tfbuild targets``: a Linux target builds here only with its compiler on the PATH or a
    Docker client to run its toolchain image; without either it says what it needs."""
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bare)}
    env.pop("DOCKER_HOST", None)
    done = subprocess.run([sys.executable, "-m", "tfbuild", "targets", "--json"], capture_output=True, text=True,
                          env=env, check=True)
    targets = {target["name"]: target for target in json.loads(done.stdout)}
    for name, compiler in (("pi-armv7", "arm-linux-gnueabihf-g++"), ("linux-aarch64", "aarch64-linux-gnu-g++")):
        assert targets[name]["builds_here"] is False
        assert compiler in targets[name]["builds_here_detail"] and "Docker" in targets[name]["builds_here_detail"]
    assert targets["android-arm64"]["builds_here_detail"] == "plan only (needs ndk)"

    tool = bare / "arm-linux-gnueabihf-g++"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    done = subprocess.run([sys.executable, "-m", "tfbuild", "targets", "--json"], capture_output=True, text=True,
                          env=env, check=True)
    pi = next(target for target in json.loads(done.stdout) if target["name"] == "pi-armv7")
    assert pi["builds_here"] is True and pi["builds_here_detail"] == "yes (arm-linux-gnueabihf-g++)"


def test_the_launchers_the_records_make_are_the_known_commands():
    """The launchers as the data makes them, spelled out: what verify runs each target's programs with."""
    assert get_target("linux-x86_64").launcher == ()
    assert get_target("pi-armv7").launcher == ("qemu-arm", "-L", "/usr/arm-linux-gnueabihf")
    assert get_target("linux-riscv64").launcher == ("qemu-riscv64", "-L", "/usr/riscv64-linux-gnu")
    assert get_target("android-arm64").launcher == ("qemu-aarch64",)  # a static runner: no system root
    assert get_target("android-armv7").launcher == ("qemu-arm",)
    assert get_target("ios-arm64").launcher is None
