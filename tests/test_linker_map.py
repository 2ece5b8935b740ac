"""lld's map of a real link (the NDK's clang, a small JNI-style library from an archive, libc++
static) read into groups and sections, and a file of another shape refused."""

from __future__ import annotations

import subprocess

import pytest

from tfbuild.pipeline.report.attribution import SourceMap
from tfbuild.pipeline.report.linker_map import LinkMapError, attribute_link_map, read_link_map
from tfbuild.toolchain.android_ndk import inspect_ndk

pytestmark = pytest.mark.android_ndk

KERNEL = "struct OpKernel { virtual ~OpKernel() {} virtual int Compute(int x) { return x * 3; } };\n" \
         "OpKernel* MakeKernel() { return new OpKernel; }\n"
FRAMEWORK = "int Session(int x) { return x + 1; }\n"
GLUE = ('#include <string>\nstruct OpKernel; OpKernel* MakeKernel(); int Session(int);\n'
        'extern "C" int Java_run(int n) { std::string s(n, 0x41); MakeKernel(); return Session(n) + s.size(); }\n')


def test_a_real_link_map_gives_every_kept_byte_an_owner(mini_ndk, tmp_path):
    clang = inspect_ndk(mini_ndk).prebuilt() / "bin" / "aarch64-linux-android21-clang++"
    tools = clang.parent
    (tmp_path / "relu_op.cc").write_text(KERNEL)
    (tmp_path / "session.cc").write_text(FRAMEWORK)
    (tmp_path / "glue.cc").write_text(GLUE)
    for name in ("relu_op", "session", "glue"):
        subprocess.run([str(clang), "-fPIC", "-ffunction-sections", "-c", str(tmp_path / f"{name}.cc"),
                        "-o", str(tmp_path / f"{name}.o")], check=True)
    archive = tmp_path / "libtensorflow-core.a"
    subprocess.run([str(tools / "llvm-ar"), "rcs", str(archive), str(tmp_path / "relu_op.o"),
                    str(tmp_path / "session.o")], check=True)
    library, map_file = tmp_path / "libjni.so", tmp_path / "libjni.so.map"
    subprocess.run([str(clang), "-shared", "-fPIC", "-o", str(library), str(tmp_path / "glue.o"),
                    "-Wl,--whole-archive", str(archive), "-Wl,--no-whole-archive", "-static-libstdc++",
                    "-Wl,--gc-sections", "-s", f"-Wl,-Map={map_file}"], check=True)

    link_map = read_link_map(map_file)
    sources = SourceMap(
        kernel_ops={"tensorflow/core/kernels/relu_op.cc": ("Relu",)},
        sources_by_stem={"relu_op": ("tensorflow/core/kernels/relu_op.cc",),
                         "session": ("tensorflow/core/common_runtime/session.cc",)},
    )
    attribution = attribute_link_map(link_map, sources, tool="map")
    groups = attribution.groups
    assert groups["kernels"] > 0 and groups["framework"] > 0 and groups["other"] > 0  # glue.o, crt objects
    assert groups["c++ runtime"] > 1000  # std::string's code from libc++_static.a
    assert groups["linker-made"] > 0  # .dynsym, .rela.dyn, ...
    assert sum(groups.values()) == attribution.symbol_bytes <= library.stat().st_size
    assert [(f.file, f.ops) for f in attribution.files] == [("tensorflow/core/kernels/relu_op.cc", ("Relu",))]
    assert [o.ops for o in attribution.ops] == [("Relu",)]
    assert {".text", ".dynsym", ".rela.dyn", ".eh_frame"} <= set(attribution.sections)
    assert ".bss" not in attribution.sections


def test_a_file_that_is_not_an_lld_map_is_refused(tmp_path):
    path = tmp_path / "gnu.map"
    path.write_text("Archive member included to satisfy reference by file (symbol)\n")
    with pytest.raises(LinkMapError, match="gnu.map: not a map lld wrote"):
        read_link_map(path)
