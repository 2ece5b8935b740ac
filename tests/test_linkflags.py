"""``tfbuild linkflags``: link snippets per platform, from the artifacts (and their manifest)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing_part
from manifests import manifest_data, write_manifest

from tfbuild.cli import main
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.pipeline.outputs.linkflags import link_inputs, render_link_snippets, write_link_snippets
from tfbuild.toolchain.targets import get_target

LIBS = ("libtensorflow-core.a", "libprotobuf.a", "libnsync.a")


def snippets_for(target: str, artifacts: Path, **kw) -> dict[str, str]:
    profile = get_target(target)
    return {s.kind: s.text for s in render_link_snippets(profile, link_inputs(profile, artifacts, **kw))}


@pytest.fixture
def artifacts(tmp_path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    for name in LIBS:
        (directory / name).write_bytes(b"!<arch>\n")
    return directory


@pytest.mark.parametrize(
    "target, kinds",
    [
        ("ios-arm64", {"xcconfig"}),
        ("ios-sim-x86_64", {"xcconfig"}),
        ("android-arm64", {"cmake", "ndk-build", "gradle"}),
        ("android-armv7", {"cmake", "ndk-build", "gradle"}),
        ("linux-x86_64", {"cmake", "makefile"}),
        ("pi-armv7", {"cmake", "makefile"}),
    ],
)
def test_only_the_snippets_that_fit_the_platform(target, kinds, artifacts):
    assert set(snippets_for(target, artifacts)) == kinds


def test_xcconfig_force_loads_tensorflow_and_links_the_rest(artifacts, tmp_path):
    text = snippets_for("ios-arm64", artifacts, source=tmp_path / "tf")["xcconfig"]
    ldflags = next(line for line in text.splitlines() if line.startswith("OTHER_LDFLAGS"))
    assert f"TFBUILD_LIB_DIR = {artifacts}" in text
    assert '-force_load "$(TFBUILD_LIB_DIR)/libtensorflow-core.a"' in ldflags
    assert ldflags.count("-force_load") == 1  # protobuf and nsync are linked plainly
    assert '"$(TFBUILD_LIB_DIR)/libprotobuf.a"' in ldflags and '"$(TFBUILD_LIB_DIR)/libnsync.a"' in ldflags
    assert "-framework Accelerate" in ldflags
    assert f"TENSORFLOW_ROOT = {tmp_path / 'tf'}" in text
    assert '"$(TENSORFLOW_ROOT)/tensorflow/contrib/makefile/gen/proto"' in text


def test_cmake_links_tensorflow_whole_archive(artifacts):
    text = snippets_for("android-arm64", artifacts)["cmake"]
    flat = " ".join(text.split())
    assert re.search(
        r'-Wl,--whole-archive "\$\{TFBUILD_LIB_DIR\}/libtensorflow-core.a" -Wl,--no-whole-archive '
        r'"\$\{TFBUILD_LIB_DIR\}/libprotobuf.a" "\$\{TFBUILD_LIB_DIR\}/libnsync.a" log z m dl atomic',
        flat,
    )
    assert 'ANDROID_STL STREQUAL "c++_static"' in text


def test_android_snippets_name_the_abi_and_stl(artifacts):
    snippets = snippets_for("android-armv7", artifacts)
    assert 'abiFilters "armeabi-v7a"' in snippets["gradle"] and "-DANDROID_STL=c++_static" in snippets["gradle"]
    ndk = snippets["ndk-build"]
    assert "LOCAL_WHOLE_STATIC_LIBRARIES += tensorflow-core" in ndk
    assert "LOCAL_STATIC_LIBRARIES += protobuf nsync" in ndk
    assert ndk.count("include $(PREBUILT_STATIC_LIBRARY)") == 3


@pytest.mark.parametrize(("adapter", "stl"), [("clang", "c++_static"), ("gcc", "gnustl_static")])
def test_android_snippets_name_the_runtime_the_build_compiled_against(artifacts, adapter, stl):
    """The manifest records the NDK adapter's C++ runtime: libc++ for tfbuild's clang adapter
    (NDK r19+), gnustl for the Makefile's own GCC section (NDK r17 and older)."""
    ndk = {"path": "/ndk", "revision": "26.1.10909125", "adapter": adapter, "stl": stl}
    write_manifest(artifacts, target="android-arm64", android_ndk=ndk)
    snippets = snippets_for("android-arm64", artifacts)
    assert f"-DANDROID_STL={stl}" in snippets["gradle"] and f"APP_STL := {stl}" in snippets["ndk-build"]
    assert f'ANDROID_STL STREQUAL "{stl}"' in snippets["cmake"]


def test_manifest_adds_the_apps_op_library_and_the_tree(artifacts, tmp_path):
    (artifacts / "libtfbuild_ops.a").write_bytes(b"!<arch>\n")
    write_manifest(
        artifacts, target="pi-armv7", tensorflow={**manifest_data(artifacts)["tensorflow"], "source": str(tmp_path / "tensorflow-src")},
        artifacts=[{"name": "libtfbuild_ops.a", "kind": "static-lib"}, {"name": "benchmark", "kind": "executable"}],
    )
    text = snippets_for("pi-armv7", artifacts)["makefile"]
    ldlibs = next(line for line in text.splitlines() if line.startswith("TENSORFLOW_LDLIBS"))
    assert re.search(r"--whole-archive \S+/libtfbuild_ops.a \S+/libtensorflow-core.a -Wl,--no-whole-archive", ldlibs)
    assert "benchmark" not in ldlibs
    assert f"TENSORFLOW_ROOT := {tmp_path / 'tensorflow-src'}" in text


def test_manifest_for_another_target_is_refused(artifacts):
    write_manifest(artifacts, target="linux-x86_64")
    with pytest.raises(InputFileError, match="built for linux-x86_64, not pi-armv7"):
        snippets_for("pi-armv7", artifacts)


def test_paths_a_snippet_cannot_hold_are_refused(tmp_path):
    spaced = tmp_path / "my libs"
    spaced.mkdir()
    snippets_for("ios-arm64", spaced)  # a quoted xcconfig path may hold spaces
    with pytest.raises(ConfigError, match="cannot be written into a tensorflow.mk snippet"):
        snippets_for("linux-x86_64", spaced)


def test_missing_libraries_are_reported(tmp_path):
    inputs = link_inputs(get_target("linux-x86_64"), tmp_path)
    assert set(inputs.missing) == set(LIBS)


def test_cli_prints_and_writes(artifacts, tmp_path, capsys):
    out_dir = tmp_path / "snippets"
    code = main(["linkflags", "--target", "ios-arm64", "--artifacts", str(artifacts), "--out", str(out_dir)])
    out = capsys.readouterr().out
    assert code == 0 and "-force_load" in out
    written = (out_dir / "tensorflow.xcconfig").read_text()
    assert next(line for line in written.splitlines() if line.startswith("OTHER_LDFLAGS")).count("-force_load") == 1


REGISTRAR = r"""
extern int registered_kernels;
namespace { struct Registrar { Registrar() { ++registered_kernels; } } registrar; }
"""
APP = r"""
#include <cstdio>
int registered_kernels = 0;
int main() { std::printf("%d\n", registered_kernels); return 0; }
"""
APP_MAKEFILE = """include {snippet}
app: app.o
\t$(CXX) -o $@ app.o $(TENSORFLOW_LDLIBS)
"""


@pytest.mark.compiler
def test_the_makefile_snippet_keeps_static_registrations(tmp_path):
    """Link an app through tensorflow.mk: the archive's static-initializer registration survives,
    which a plain link of the same archive loses (the reason for whole-archive)."""
    libs = tmp_path / "libs"
    libs.mkdir()
    (tmp_path / "registrar.cc").write_text(REGISTRAR)
    subprocess.run(["g++", "-c", "registrar.cc", "-o", "registrar.o"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcs", str(libs / "libtensorflow-core.a"), "registrar.o"], cwd=tmp_path, check=True)
    (tmp_path / "empty.cc").write_text("int tfbuild_test_unused_symbol = 0;\n")
    subprocess.run(["g++", "-c", "empty.cc", "-o", "empty.o"], cwd=tmp_path, check=True)
    for name in ("libprotobuf.a", "libnsync.a"):
        subprocess.run(["ar", "rcs", str(libs / name), "empty.o"], cwd=tmp_path, check=True)
    profile = get_target("linux-x86_64")
    paths = write_link_snippets(render_link_snippets(profile, link_inputs(profile, libs)), tmp_path)
    (tmp_path / "app.cc").write_text(APP)
    (tmp_path / "Makefile").write_text(APP_MAKEFILE.format(snippet=tmp_path / "tensorflow.mk"))
    assert tmp_path / "tensorflow.mk" in paths
    subprocess.run(["make", "-s", "app", "CXX=g++"], cwd=tmp_path, check=True, capture_output=True)
    assert subprocess.run(["./app"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip() == "1"
    plain = subprocess.run(
        ["g++", "-o", "plain", "app.o", str(libs / "libtensorflow-core.a")], cwd=tmp_path, capture_output=True
    )
    assert plain.returncode == 0
    assert subprocess.run(["./plain"], cwd=tmp_path, capture_output=True, text=True).stdout.strip() == "0"


@pytest.mark.compiler
def test_the_cmake_snippet_is_valid_cmake(tmp_path, artifacts):
    if shutil.which("cmake") is None:
        missing_part("cmake not installed (apt-get install cmake)")
    profile = get_target("linux-x86_64")
    write_link_snippets(render_link_snippets(profile, link_inputs(profile, artifacts)), tmp_path)
    (tmp_path / "app.cc").write_text(APP)
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.10)\nproject(app CXX)\ninclude(tensorflow.cmake)\n"
        "add_executable(app app.cc)\ntfbuild_link_tensorflow(app)\n"
    )
    done = subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
