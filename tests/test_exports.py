"""What a shared library exports (``tfbuild.pipeline.outputs.exports``), and where export files go.

- Real g++ and nm: a JNI library linked with the JNI version script and ``--gc-sections``
  exports only its JNI symbols and loses an unused function, which the same link exporting
  everything keeps (GNU ld and gold).
- The files: a GNU version script, ld64's exported-symbols list, names refused with a one-line
  error naming them.
- ``tfbuild linkflags --jni/--export`` writes the export file beside the snippets, which give
  its flag to shared-library links, and carry the size profile's link flags from the manifest;
  real make and CMake link a JNI library and an app through the snippets.
- The op-library flavour links a shared library under a size profile with an export file that
  exports nothing; the example op library built that way still loads and computes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import missing_part
from manifests import write_manifest as write_whole_manifest
from op_library_probe import EXAMPLE_REQUEST, N, X
from test_build_flow import op_args, tfbuild
from test_build_plans import HEADER, options_for, world  # noqa: F401
from test_linkflags import LIBS, artifacts  # noqa: F401
from test_size_profiles import FAKE_TENSORFLOW

from tfbuild.cli import main
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.pipeline.example import example_model
from tfbuild.pipeline.flavours import plan_build
from tfbuild.pipeline.outputs.exports import (
    JNI,
    OP_LIBRARY,
    ExportList,
    export_flag,
    render_export_file,
    requested_exports,
)
from tfbuild.pipeline.outputs.linkflags import link_inputs, render_link_snippets, write_export_file, write_link_snippets
from tfbuild.pipeline.plan_text import plan_text
from tfbuild.toolchain.targets import get_target

PROBE = Path(__file__).resolve().parent / "op_library_probe.py"
JNI_SYMBOLS = {"JNI_OnLoad", "Java_com_x_Y_run"}

# A JNI library: the two entry points call a helper; a large function (code and a table) is
# called by nothing. noinline keeps the helper a function of its own; JNI_OnUnload is left out,
# as most JNI libraries leave it out.
TABLE = ", ".join(str((index * 7919) % 65521) for index in range(4096))
JNI_SOURCE = f"""
int registered_kernels = 0;
extern "C" __attribute__((noinline)) int tfbuild_helper(int x) {{ return x + registered_kernels; }}
extern "C" int JNI_OnLoad(void*, void*) {{ return tfbuild_helper(0x10006); }}
extern "C" int Java_com_x_Y_run(void*, void*) {{ return tfbuild_helper(0); }}
static const unsigned tfbuild_table[4096] = {{{TABLE}}};
extern "C" unsigned tfbuild_unused_big(unsigned x) {{
  unsigned sum = 0;
  for (unsigned i = 0; i < 4096; ++i) sum += tfbuild_table[(i * x) & 4095] * (i ^ x);
  return sum;
}}
"""
CFLAGS = ("-O2", "-fPIC", "-ffunction-sections", "-fdata-sections")


def defined_symbols(library: Path, *, dynamic: bool) -> set[str]:
    """Names nm lists as defined: the dynamic symbol table (what the library exports), or the
    whole symbol table (what is in it at all)."""
    done = subprocess.run(
        ["nm", *(["-D"] if dynamic else []), "--defined-only", str(library)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return {fields[2] for fields in (line.split() for line in done.stdout.splitlines()) if len(fields) == 3}


def link_shared(tmp_path: Path, name: str, ldflags: list[str]) -> Path:
    source = tmp_path / "jni.cc"
    if not source.exists():
        source.write_text(JNI_SOURCE)
        subprocess.run(["g++", *CFLAGS, "-c", "jni.cc", "-o", "jni.o"], cwd=tmp_path, check=True)
    subprocess.run(["g++", "-shared", "jni.o", "-o", name, *ldflags], cwd=tmp_path, check=True)
    return tmp_path / name


# -- real g++ and nm ------------------------------------------------------------------------------


@pytest.mark.compiler
@pytest.mark.parametrize("linker", ["bfd", "gold"])
def test_the_jni_version_script_exports_only_jni_symbols_and_lets_gc_drop_the_rest(tmp_path, linker):
    select = ["-fuse-ld=gold"] if linker == "gold" else []
    if subprocess.run(["g++", *select, "-Wl,--version"], capture_output=True).returncode != 0:
        missing_part(f"g++ cannot link with {linker} here (apt-get install binutils; binutils-gold from Debian 13)")
    export_file = render_export_file(JNI, linker)
    script = tmp_path / export_file.file_name
    script.write_text(export_file.text)
    exported = link_shared(
        tmp_path, "libjni.so", [*select, export_file.link_flag(script), "-Wl,--gc-sections"]
    )
    assert defined_symbols(exported, dynamic=True) == JNI_SYMBOLS
    inside = defined_symbols(exported, dynamic=False)
    assert "tfbuild_helper" in inside  # still there, called, but local
    assert "tfbuild_unused_big" not in inside and "_ZL13tfbuild_table" not in inside
    # The same link exporting everything: every exported function is a root, so nothing goes.
    everything = link_shared(tmp_path, "libeverything.so", [*select, "-Wl,--gc-sections"])
    assert {"tfbuild_unused_big", "tfbuild_helper", *JNI_SYMBOLS} <= defined_symbols(everything, dynamic=True)
    assert exported.stat().st_size + 4 * 4096 < everything.stat().st_size  # the table went too


# -- the files ------------------------------------------------------------------------------------


def listed(text: str, linker: str) -> list[str]:
    """The names or patterns an export file lists, comments left out."""
    if linker == "ld64":
        return [line for line in text.splitlines() if line and not line.startswith("#")]
    body = text[text.index("*/") + 2:]
    return [line.strip().rstrip(";") for line in body.splitlines() if line.startswith("    ")]


def test_a_version_script_for_the_gnu_linkers_and_a_list_for_ld64():
    for linker in ("bfd", "gold", "lld"):
        gnu = render_export_file(JNI, linker)
        assert gnu.file_name == "tensorflow.version"
        assert listed(gnu.text, linker) == ["JNI_OnLoa[d]", "JNI_OnUnloa[d]", "Java_*", "*"]
        assert "  global:\n" in gnu.text and gnu.text.rstrip().endswith("local:\n    *;\n};")
        assert gnu.link_flag("/x/tensorflow.version") == "-Wl,--version-script=/x/tensorflow.version"
    apple = render_export_file(JNI, "ld64")
    assert apple.file_name == "tensorflow.exports"
    assert listed(apple.text, "ld64") == ["_JNI_OnLoa[d]", "_JNI_OnUnloa[d]", "_Java_*"]
    assert apple.link_flag("/x/tensorflow.exports") == "-Wl,-exported_symbols_list,/x/tensorflow.exports"


def test_an_op_library_exports_nothing():
    gnu = render_export_file(OP_LIBRARY, "gold", stem="libtfbuild_ops")
    assert gnu.file_name == "libtfbuild_ops.version"
    assert "global:" not in gnu.text and listed(gnu.text, "gold") == ["*"]
    assert "static initializers" in gnu.text
    assert listed(render_export_file(OP_LIBRARY, "ld64").text, "ld64") == []


def test_requested_exports_combine_the_jni_preset_and_explicit_names():
    assert requested_exports((), jni=False) is None
    assert requested_exports((), jni=True) == JNI
    both = requested_exports(("myapp_init", "myapp_*", "myapp_init"), jni=True)
    assert both.patterns() == ("JNI_OnLoa[d]", "JNI_OnUnloa[d]", "Java_*", "myapp_init", "myapp_*")
    plain = requested_exports(("_ZN5myapp3runEv", "run?"), jni=False)
    assert listed(render_export_file(plain, "ld64").text, "ld64") == ["__ZN5myapp3runEv", "_run?"]
    # A name the list also requires exactly is not written a second time as a pattern.
    assert ExportList("x", ("JNI_OnLoad",), ("JNI_OnLoad",)).patterns() == ("JNI_OnLoad",)


@pytest.mark.parametrize("symbol", ["my-app", "1abc", "foo bar", "ns::run", "", "*", "**?", "a;b", "x}", "f()"])
def test_names_that_are_not_symbols_are_refused_naming_them(symbol):
    with pytest.raises(ConfigError) as caught:
        requested_exports((symbol,), jni=True)
    line = caught.value.one_line()
    assert repr(symbol) in line and "\n" not in line


def test_a_path_with_a_comma_cannot_pass_through_wl():
    with pytest.raises(ConfigError, match="comma"):
        export_flag("bfd", "/a,b/tensorflow.version")


# -- tfbuild linkflags ----------------------------------------------------------------------------


def write_manifest(directory: Path, target: str, ldflags: list[str], name: str = "small") -> None:
    record = {"name": name, "description": "", "cflags": [], "ldflags": ldflags, "hot_cflags": [], "hot_files": [],
              "notes": []}
    write_whole_manifest(directory, target=target, size_profile=record)


def line_of(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_the_cli_writes_the_export_file_beside_the_snippets(artifacts, tmp_path, capsys):  # noqa: F811
    out_dir = tmp_path / "snippets"
    argv = ["linkflags", "--target", "android-arm64", "--artifacts", str(artifacts), "--out", str(out_dir)]
    assert main([*argv, "--jni", "--export", "myapp_*"]) == 0
    printed = capsys.readouterr().out
    script = out_dir / "tensorflow.version"
    assert listed(script.read_text(), "bfd") == ["JNI_OnLoa[d]", "JNI_OnUnloa[d]", "Java_*", "myapp_*", "*"]
    assert script.read_text() in printed and f"wrote {script}" in printed
    flag = f"-Wl,--version-script={script}"
    ndk = (out_dir / "tensorflow-ndk.mk").read_text()
    assert line_of(ndk, "TENSORFLOW_SHARED_LDFLAGS :=") == f"TENSORFLOW_SHARED_LDFLAGS := {flag}"
    assert "LOCAL_LDFLAGS += $(TENSORFLOW_LDFLAGS) $(TENSORFLOW_SHARED_LDFLAGS)" in ndk
    cmake = (out_dir / "tensorflow.cmake").read_text()
    assert 'if(tfbuild_type STREQUAL "SHARED_LIBRARY" OR tfbuild_type STREQUAL "MODULE_LIBRARY")' in cmake
    assert f'target_link_options(${{app}} PRIVATE "{flag}")' in cmake
    assert not (artifacts / "tensorflow.version").exists()


def test_the_cli_writes_an_exported_symbols_list_for_apple(artifacts, capsys):  # noqa: F811
    argv = ["linkflags", "--target", "ios-arm64", "--artifacts", str(artifacts), "--export", "myapp_run"]
    assert main(argv) == 0
    capsys.readouterr()
    assert listed((artifacts / "tensorflow.exports").read_text(), "ld64") == ["_myapp_run"]
    xcconfig = (artifacts / "tensorflow.xcconfig").read_text()
    flag = f"-Wl,-exported_symbols_list,{artifacts / 'tensorflow.exports'}"
    assert line_of(xcconfig, "TFBUILD_SHARED_LDFLAGS_mh_dylib =") == f'TFBUILD_SHARED_LDFLAGS_mh_dylib = "{flag}"'
    assert line_of(xcconfig, "OTHER_LDFLAGS").endswith(" $(TFBUILD_SHARED_LDFLAGS_$(MACH_O_TYPE))")


def test_the_cli_refuses_a_bad_name_and_writes_nothing(artifacts, capsys):  # noqa: F811
    argv = ["linkflags", "--target", "linux-x86_64", "--artifacts", str(artifacts), "--export", "my-app"]
    assert main(argv) == 2
    assert "cannot export 'my-app'" in capsys.readouterr().err
    assert not (artifacts / "tensorflow.version").exists() and not (artifacts / "tensorflow.mk").exists()


def test_without_exports_the_snippets_add_no_shared_flags(artifacts):  # noqa: F811
    profile = get_target("linux-x86_64")
    inputs = link_inputs(profile, artifacts)
    assert inputs.exports is None and write_export_file(inputs) is None
    makefile = {s.kind: s.text for s in render_link_snippets(profile, inputs)}["makefile"]
    assert line_of(makefile, "TENSORFLOW_SHARED_LDFLAGS :=") == "TENSORFLOW_SHARED_LDFLAGS :="
    assert line_of(makefile, "TENSORFLOW_LDFLAGS :=") == "TENSORFLOW_LDFLAGS :="


def test_the_manifests_size_profile_flags_reach_every_snippet(artifacts):  # noqa: F811
    ldflags = ["-fuse-ld=gold", "-Wl,--gc-sections", "-Wl,--icf=all", "-s"]
    write_manifest(artifacts, "linux-x86_64", ldflags)
    profile = get_target("linux-x86_64")
    inputs = link_inputs(profile, artifacts)
    assert inputs.ldflags == tuple(ldflags) and inputs.size_profile == "small"
    snippets = {s.kind: s.text for s in render_link_snippets(profile, inputs)}
    makefile = snippets["makefile"]
    assert line_of(makefile, "TENSORFLOW_LDFLAGS :=") == f"TENSORFLOW_LDFLAGS := {' '.join(ldflags)}"
    assert "built with the small size profile" in makefile and "section garbage collection" in makefile
    assert 'target_link_options(${app} PRIVATE "-fuse-ld=gold" "-Wl,--gc-sections" "-Wl,--icf=all" "-s")' in snippets[
        "cmake"
    ]
    write_manifest(artifacts, "ios-arm64", ["-Wl,-dead_strip", "-Wl,-S", "-Wl,-x"])
    ios = get_target("ios-arm64")
    xcconfig = render_link_snippets(ios, link_inputs(ios, artifacts))[0].text
    assert line_of(xcconfig, "TENSORFLOW_LDFLAGS =") == "TENSORFLOW_LDFLAGS = -Wl,-dead_strip -Wl,-S -Wl,-x"
    assert "$(TENSORFLOW_LDFLAGS)" in line_of(xcconfig, "OTHER_LDFLAGS")


def test_a_stock_build_adds_no_link_flags_and_says_so(artifacts):  # noqa: F811
    write_manifest(artifacts, "android-arm64", [], name="stock")
    profile = get_target("android-arm64")
    ndk = {s.kind: s.text for s in render_link_snippets(profile, link_inputs(profile, artifacts))}["ndk-build"]
    assert "The stock size profile the libraries were built with adds no link flags." in ndk
    # What 64-bit Android code needs whatever the profile: 16 KB pages (Google Play).
    assert line_of(ndk, "TENSORFLOW_LDFLAGS :=") == "TENSORFLOW_LDFLAGS := -Wl,-z,max-page-size=16384"
    assert "must use 16 KB pages" in ndk
    write_manifest(artifacts, "android-armv7", [], name="stock")  # 32-bit: 4 KB pages, no flag
    armv7 = get_target("android-armv7")
    ndk = {s.kind: s.text for s in render_link_snippets(armv7, link_inputs(armv7, artifacts))}["ndk-build"]
    assert line_of(ndk, "TENSORFLOW_LDFLAGS :=") == "TENSORFLOW_LDFLAGS :=" and "16 KB" not in ndk


@pytest.mark.parametrize("flag", ["-Wl,--gc-sections $(shell rm -rf /)", "-Wl,a;b", "", 7])
def test_a_manifest_flag_no_snippet_can_hold_is_refused(artifacts, flag):  # noqa: F811
    write_manifest(artifacts, "linux-x86_64", [flag])
    profile = get_target("linux-x86_64")
    with pytest.raises(InputFileError, match="manifest"):
        render_link_snippets(profile, link_inputs(profile, artifacts))


REGISTRAR = r"""
extern int registered_kernels;
namespace { struct Registrar { Registrar() { ++registered_kernels; } } registrar; }
"""
LOADER = r"""
#include <dlfcn.h>
#include <cstdio>
int main() {
  void* library = dlopen("./libapp.so", RTLD_NOW);
  if (!library) { std::printf("%s\n", dlerror()); return 1; }
  auto run = reinterpret_cast<int (*)(void*, void*)>(dlsym(library, "Java_com_x_Y_run"));
  std::printf("%d %d\n", run ? run(nullptr, nullptr) : -1, dlsym(library, "tfbuild_helper") != nullptr);
  return 0;
}
"""
SHARED_MAKEFILE = """include {snippet}
libapp.so: jni.o
\t$(CXX) -shared -o $@ $(TENSORFLOW_LDFLAGS) $(TENSORFLOW_SHARED_LDFLAGS) jni.o $(TENSORFLOW_LDLIBS)
"""


def fake_libraries(tmp_path: Path) -> Path:
    """A TensorFlow archive whose one object registers from a static initializer, and empty
    protobuf and nsync archives."""
    libs = tmp_path / "libs"
    libs.mkdir()
    (tmp_path / "registrar.cc").write_text(REGISTRAR)
    subprocess.run(["g++", *CFLAGS, "-c", "registrar.cc", "-o", "registrar.o"], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rcs", str(libs / "libtensorflow-core.a"), "registrar.o"], cwd=tmp_path, check=True)
    (tmp_path / "empty.cc").write_text("int tfbuild_test_unused_symbol = 0;\n")
    subprocess.run(["g++", "-fPIC", "-c", "empty.cc", "-o", "empty.o"], cwd=tmp_path, check=True)
    for name in ("libprotobuf.a", "libnsync.a"):
        subprocess.run(["ar", "rcs", str(libs / name), "empty.o"], cwd=tmp_path, check=True)
    return libs


@pytest.mark.compiler
def test_a_jni_library_linked_through_the_makefile_snippet(tmp_path):
    """make links a JNI library through tensorflow.mk with the manifest's size flags and the
    JNI export file: it exports only its JNI symbols, the archive's registration survives the
    section garbage collection, and the Java entry point runs."""
    libs = fake_libraries(tmp_path)
    write_manifest(libs, "linux-x86_64", ["-Wl,--gc-sections", "-s"])
    profile = get_target("linux-x86_64")
    inputs = link_inputs(profile, libs, exports=JNI, out_dir=tmp_path)
    write_export_file(inputs)
    write_link_snippets(render_link_snippets(profile, inputs), tmp_path)
    (tmp_path / "jni.cc").write_text(JNI_SOURCE)
    subprocess.run(["g++", *CFLAGS, "-c", "jni.cc", "-o", "jni.o"], cwd=tmp_path, check=True)
    (tmp_path / "Makefile").write_text(SHARED_MAKEFILE.format(snippet=tmp_path / "tensorflow.mk"))
    done = subprocess.run(["make", "libapp.so", "CXX=g++"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "-Wl,--gc-sections -s -Wl,--version-script=" in done.stdout
    library = tmp_path / "libapp.so"
    assert defined_symbols(library, dynamic=True) == JNI_SYMBOLS
    assert b"tfbuild_unused_big" not in library.read_bytes()  # stripped, and collected
    (tmp_path / "loader.cc").write_text(LOADER)
    subprocess.run(["g++", "loader.cc", "-o", "loader", "-ldl"], cwd=tmp_path, check=True)
    ran = subprocess.run(["./loader"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["1", "0"]  # one registration; the helper is not exported


@pytest.mark.compiler
def test_the_cmake_snippet_gives_the_export_file_to_shared_libraries_only(tmp_path):
    if shutil.which("cmake") is None:
        missing_part("cmake not installed (apt-get install cmake)")
    libs = fake_libraries(tmp_path)
    write_manifest(libs, "linux-x86_64", ["-Wl,--gc-sections"])
    profile = get_target("linux-x86_64")
    inputs = link_inputs(profile, libs, exports=JNI, out_dir=tmp_path)
    write_export_file(inputs)
    write_link_snippets(render_link_snippets(profile, inputs), tmp_path)
    (tmp_path / "jni.cc").write_text(JNI_SOURCE)
    (tmp_path / "app.cc").write_text("int registered_kernels = 0;\nint main() { return registered_kernels - 1; }\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(app CXX)\ninclude(tensorflow.cmake)\n"
        "add_library(app_jni SHARED jni.cc)\ntfbuild_link_tensorflow(app_jni)\n"
        "add_executable(app app.cc)\ntfbuild_link_tensorflow(app)\n"
    )
    configured = subprocess.run(["cmake", "-S", ".", "-B", "build"], cwd=tmp_path, capture_output=True, text=True)
    assert configured.returncode == 0, configured.stderr
    built = subprocess.run(["cmake", "--build", "build", "--", "VERBOSE=1"], cwd=tmp_path, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert defined_symbols(tmp_path / "build" / "libapp_jni.so", dynamic=True) == JNI_SYMBOLS
    app_link = next(line for line in built.stdout.splitlines() if " -o app " in line)
    assert "--version-script" not in app_link and "-Wl,--gc-sections" in app_link
    assert subprocess.run([str(tmp_path / "build" / "app")]).returncode == 0  # registered once


# -- the op-library flavour ------------------------------------------------------------------------


def op_library_plan(world, target: str, profile: str, **cli):  # noqa: F811
    options = options_for(world, target, "ops-library", tree=None, size_profile=profile,
                          op_sources=(str(world / "ops" / "a.cc"),), **cli)
    return plan_build(options, header_text=HEADER, tensorflow=FAKE_TENSORFLOW)


def test_a_shared_op_library_under_a_size_profile_links_with_an_export_file(world):  # noqa: F811
    plan = op_library_plan(world, "linux-x86_64", "small")
    export = next(file for file in plan.generated_files if file.path.suffix == ".version")
    assert export.path == world / "out" / "linux-x86_64" / "libtfbuild_ops.version"
    linker = get_target("linux-x86_64").ops_library.linker
    assert export.content == render_export_file(OP_LIBRARY, linker, stem="libtfbuild_ops").text
    link = next(step.argv for step in plan.steps if step.name.startswith("link "))
    size = plan.size_profile.ldflags
    assert link[-len(size) - 1:] == ("-Wl,--version-script=/out/libtfbuild_ops.version", *size)
    assert f"    {export.path} ({len(export.content.splitlines())} lines)\n" in plan_text(plan)
    local = op_library_plan(world, "linux-x86_64", "balanced", local=True)
    local_link = next(step.argv for step in local.steps if step.name.startswith("link "))
    assert f"-Wl,--version-script={export.path}" in local_link


@pytest.mark.parametrize("target, profile", [("linux-x86_64", "stock"), ("pi-armv7", "small")])
def test_no_export_file_without_link_flags_or_without_a_link(world, target, profile):  # noqa: F811
    plan = op_library_plan(world, target, profile)
    assert [file.path.name for file in plan.generated_files] == ["ops_to_register.h"]
    assert not any("--version-script" in arg for step in plan.steps for arg in step.argv)


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_the_example_op_library_built_small_exports_nothing_and_still_runs(tmp_path):
    out = tmp_path / "out"
    done = tfbuild("build", "--target", "linux-x86_64", "--local", "--out", str(out), *op_args("--size-profile", "small"))
    assert done.returncode == 0, done.stderr[-2000:]
    library = out / "libtfbuild_ops.so"
    assert (out / "libtfbuild_ops.version").is_file()
    log = (out / "linux-x86_64.build.log").read_text()
    assert f"-Wl,--version-script={out / 'libtfbuild_ops.version'} -Wl,--gc-sections -s" in log
    assert defined_symbols(library, dynamic=True) == set()
    probe = subprocess.run(
        [sys.executable, str(PROBE), str(library), str(example_model()), json.dumps(EXAMPLE_REQUEST)],
        capture_output=True, text=True,
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    report = json.loads(probe.stdout)
    assert report["ops"] == {"ExampleScale": True, "ExampleClip": True, "ExampleSquare": False, "ExampleCount": True}
    x, n = np.asarray(X, dtype=np.float32), np.asarray(N, dtype=np.int32)
    clipped = np.clip(x * np.float32(2.0), -1.0, 3.0)
    assert report["outputs"] == {
        "clipped": {"dtype": "float32", "values": clipped.tolist()},
        "positives": {"dtype": "int32", "values": int((clipped > 0).sum())},
        "n_scaled": {"dtype": "int32", "values": (n * 3).tolist()},
    }
