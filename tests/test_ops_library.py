"""Op-library builds: the plan as data (fast), and real g++/ar runs for failures and archives.

The proof that plain and selective builds of the example library register the right kernels is
in test_selective_build.py; here are the plan's shape and the executor's error handling.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from tfbuild.errors import BuildError, ConfigError, InputFileError, ToolchainError
from tfbuild.pipeline.op_library.build import build_ops_library, first_error_line
from tfbuild.pipeline.op_library.compile_plan import OpsLibrarySpec, plan_ops_library
from tfbuild.pipeline.op_library.compile_plan import installed_tensorflow as installed_tensorflow_flags

DATA = Path(__file__).resolve().parent / "data" / "ops_library"
BROKEN_SOURCES = sorted(DATA.glob("broken_*.cc"))
TF_FLAGS = ("-I/tf/include", "-D_GLIBCXX_USE_CXX11_ABI=1", "--std=c++17")
TF_LINK = ("-L/tf", "-l:libtensorflow_framework.so.2")


def _spec(tmp_path: Path, **options) -> OpsLibrarySpec:
    values = {
        "sources": (Path("/app/ops/a_ops.cc"), Path("/app/ops/a_kernels.cc")),
        "output": tmp_path / "out" / "libapp_ops.so",
        "tf_compile_flags": TF_FLAGS,
        "tf_link_flags": TF_LINK,
    }
    values.update(options)
    return OpsLibrarySpec(**values)


def test_plain_shared_plan_compiles_each_source_then_links_with_tensorflow(tmp_path):
    plan = plan_ops_library(_spec(tmp_path))
    objs = tmp_path / "out" / "libapp_ops.so.objs"
    assert [step.object_file for step in plan.compile_steps] == [objs / "a_ops.o", objs / "a_kernels.o"]
    first = plan.compile_steps[0].argv
    assert first[:5] == ("g++", "-c", "/app/ops/a_ops.cc", "-o", str(objs / "a_ops.o"))
    assert {"-O2", "-fPIC", *TF_FLAGS} <= set(first)
    assert "-DSELECTIVE_REGISTRATION" not in first
    assert plan.link_argv[:2] == ("g++", "-shared")
    assert plan.link_argv[-2:] == TF_LINK
    assert plan.link_argv[plan.link_argv.index("-o") + 1] == str(plan.staging_output)
    assert plan.staging_output.parent == plan.output.parent != plan.staging_output


def test_standard_flag_added_only_when_tensorflow_gives_none(tmp_path):
    with_std = plan_ops_library(_spec(tmp_path)).cflags
    assert [f for f in with_std if "std=" in f] == ["--std=c++17"]
    without = plan_ops_library(_spec(tmp_path, tf_compile_flags=("-I/tf/include",))).cflags
    assert [f for f in without if "std=" in f] == ["-std=c++17"]


def test_selective_plan_defines_the_macro_and_sees_the_header(tmp_path):
    header = tmp_path / "gen" / "ops_to_register.h"
    cflags = plan_ops_library(_spec(tmp_path, selective_header=header)).cflags
    assert "-DSELECTIVE_REGISTRATION" in cflags
    assert cflags[cflags.index("-DSELECTIVE_REGISTRATION") + 1 :][:2] == ("-I", str(header.parent))


def test_selective_header_must_have_the_name_tensorflow_includes(tmp_path):
    with pytest.raises(ConfigError, match="ops_to_register.h"):
        plan_ops_library(_spec(tmp_path, selective_header=tmp_path / "selection.h"))


def test_cross_static_plan_uses_the_given_tools_and_flags(tmp_path):
    spec = _spec(
        tmp_path,
        output=Path("/out/libapp_ops.a"),
        kind="static",
        compiler="arm-linux-gnueabihf-g++",
        archiver="arm-linux-gnueabihf-ar",
        extra_cflags=("-mfpu=neon-vfpv4", "-Os"),
        include_dirs=(Path("/app/include"),),
    )
    plan = plan_ops_library(spec)
    argv = plan.compile_steps[0].argv
    assert argv[0] == "arm-linux-gnueabihf-g++"
    assert argv[-2:] == ("-mfpu=neon-vfpv4", "-Os")  # last, so -Os overrides -O2
    assert argv[argv.index("/app/include") - 1 : argv.index("/app/include") + 1] == ("-I", "/app/include")
    assert plan.link_argv == (
        "arm-linux-gnueabihf-ar", "rcs", "/out/.libapp_ops.a.partial",
        "/out/libapp_ops.a.objs/a_ops.o", "/out/libapp_ops.a.objs/a_kernels.o",
    )
    assert plan.tools == ("arm-linux-gnueabihf-g++", "arm-linux-gnueabihf-ar")
    steps = plan.build_steps(PurePosixPath("/work"))
    assert [s.name for s in steps] == [
        "mkdir objects", "compile a_ops.cc", "compile a_kernels.cc", "archive libapp_ops.a", "publish",
    ]
    assert steps[-1].argv == ("mv", "-f", "/out/.libapp_ops.a.partial", "/out/libapp_ops.a")


def test_sources_that_would_share_an_object_are_refused(tmp_path):
    spec = _spec(tmp_path, sources=(Path("/a/ops.cc"), Path("/b/ops.cc")))
    with pytest.raises(ConfigError, match=r"/a/ops.cc and /b/ops.cc"):
        plan_ops_library(spec)


def test_an_empty_source_list_is_refused(tmp_path):
    with pytest.raises(ConfigError):
        plan_ops_library(_spec(tmp_path, sources=()))


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("In file included from x.h:1,\nx.cc:4:1: error: expected ';' before '}'\nx.cc:9:2: error: later",
         "x.cc:4:1: error: expected ';' before '}'"),
        ("x.cc:1:10: fatal error: missing.h: No such file or directory",
         "x.cc:1:10: fatal error: missing.h: No such file or directory"),
        ("/usr/bin/ld: cannot find -lnothere\ncollect2: error: ld returned 1 exit status",
         "collect2: error: ld returned 1 exit status"),
        ("ar: out.a: No such file", "ar: out.a: No such file"),
        ("", "no output"),
    ],
)
def test_first_error_line_picks_the_line_a_user_needs(output, expected):
    assert first_error_line(output) == expected


def test_a_missing_compiler_is_a_toolchain_error(tmp_path):
    spec = _spec(tmp_path, sources=(DATA / "plain_math.cc",), compiler="tfbuild-no-such-g++")
    with pytest.raises(ToolchainError, match="tfbuild-no-such-g\\+\\+"):
        build_ops_library(plan_ops_library(spec))
    assert not spec.output.exists()


@pytest.mark.compiler
def test_a_missing_source_is_an_input_error(tmp_path):
    spec = _spec(tmp_path, sources=(tmp_path / "nowhere.cc",))
    with pytest.raises(InputFileError, match="nowhere.cc"):
        build_ops_library(plan_ops_library(spec))


@pytest.mark.compiler
@pytest.mark.tensorflow
@pytest.mark.parametrize("source", BROKEN_SOURCES, ids=lambda p: p.name)
def test_a_compiler_error_names_the_source_and_leaves_no_library(tmp_path, source):
    expected = re.search(r"// expect-error: (.*)", source.read_text()).group(1)  # a regex
    flags = installed_tensorflow_flags()
    spec = OpsLibrarySpec(
        sources=(DATA / "plain_math.cc", source),
        output=tmp_path / "libbroken.so",
        tf_compile_flags=flags.compile_flags,
        tf_link_flags=flags.link_flags,
    )
    with pytest.raises(BuildError) as raised:
        build_ops_library(plan_ops_library(spec), jobs=1)
    message = raised.value.one_line()
    assert "\n" not in message
    assert message.startswith(f"{source}: compiling failed: ")
    assert re.search(rf"{source.name}:\d+:\d+: error: .*{expected}", message)
    log = plan_ops_library(spec).compile_steps[1].log
    assert str(log) in message and re.search(expected, log.read_text())
    assert not spec.output.exists()
    assert not list(tmp_path.glob(".libbroken.so.partial"))


@pytest.mark.compiler
def test_static_archive_is_built_with_ar_and_published(tmp_path):
    spec = OpsLibrarySpec(sources=(DATA / "plain_math.cc",), output=tmp_path / "lib" / "libmath.a", kind="static")
    result = build_ops_library(plan_ops_library(spec))
    assert result.path == spec.output and result.size_bytes == spec.output.stat().st_size
    members = subprocess.run(["ar", "t", str(result.path)], capture_output=True, text=True, check=True)
    assert members.stdout.split() == ["plain_math.o"]
    symbols = subprocess.run(["nm", str(result.path)], capture_output=True, text=True, check=True)
    assert "T tfbuild_plain_math_twice" in symbols.stdout
    assert not (tmp_path / "lib" / ".libmath.a.partial").exists()


@pytest.mark.compiler
def test_a_failed_link_keeps_no_partial_library(tmp_path):
    spec = OpsLibrarySpec(
        sources=(DATA / "plain_math.cc",),
        output=tmp_path / "libmath.so",
        tf_link_flags=("-l:libtfbuild-does-not-exist.so",),
    )
    with pytest.raises(BuildError, match=r"libmath.so: linking failed: .*error"):
        build_ops_library(plan_ops_library(spec))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["libmath.so.objs"]
