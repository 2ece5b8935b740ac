"""Size profiles (``--size-profile stock|balanced|small``): the data, the plan of every flavour,
and what the compiler and linker actually get.

- The profiles are data (``toolchains/tensorflow/size_profiles.toml``); ``stock`` leaves every
  plan as it was.
- Each flavour passes a profile its own way: the Makefile through ``OPTFLAGS`` and a generated
  ``tfbuild-profile.mk`` read after TensorFlow's Makefile, Bazel through ``--per_file_copt`` and
  ``--linkopt``, an op library through its compile and link commands. Plans of a few targets
  are golden files (``tests/golden/plans/size_profiles/``, ``TFBUILD_UPDATE_GOLDEN=1``).
- Real tools: g++ and nm show that the profile's link flags drop an unreferenced function (and
  gold's ICF folds identical ones); real make on the generated tree's Makefile with the
  generated ``.mk`` compiles a hot kernel at -O2 and another at -Os; a real ``--local`` build
  shows the flags in its log and leaves a stripped benchmark that still registers its kernels.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import treegen
from conftest import missing_part
from test_build_plans import HEADER, check_golden, options_for, plan_for, replacements, world  # noqa: F401
from tfbuild_testing import bazel_binary, local_makefile_build

from tfbuild.cli import main
from tfbuild.errors import ConfigError
from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
from tfbuild.pipeline.declarations.size_profiles import (
    apply_size_profile,
    hot_kernel_files,
    profile_names,
    size_profiles,
)
from tfbuild.pipeline.flavours import plan_build
from tfbuild.pipeline.flavours.makefile import PROFILE_MAKEFILE
from tfbuild.pipeline.op_library.compile_plan import InstalledTensorFlow
from tfbuild.pipeline.outputs.manifest import TensorFlowRecord, make_manifest
from tfbuild.pipeline.plan_text import plan_text
from tfbuild.toolchain.targets import get_target, load_targets
from tfbuild.tree.facts import read_tree_facts
from tfbuild.tree.kernel_index import build_kernel_index
from tfbuild.tree.needs import KernelNeed

# A model of the generated trees' kernels: two hot ops (Conv2D, Relu) and one that is not (Const).
MODEL_OPS = [
    ["Conv2D", "Conv2DOp<CPUDevice, float>"],
    ["Relu", "ReluOp<CPUDevice, float>"],
    ["Const", "ConstantOp"],
]
HOT = ("tensorflow/core/kernels/conv_ops.cc", "tensorflow/core/kernels/relu_op.cc")
COLD = "tensorflow/core/kernels/constant_op.cc"
TREE_CASES = [
    (name, flavour) for name, profile in load_targets().items() for flavour in profile.flavours
    if flavour != "ops-library"
]
OPS_TARGETS = [name for name, profile in load_targets().items() if profile.ops_library]
GOLDEN = [
    ("linux-x86_64", "makefile", "small"),
    ("pi-armv7", "makefile", "balanced"),
    ("ios-arm64", "makefile", "small"),
    ("android-arm64", "bazel", "small"),
    ("linux-x86_64", "bazel", "small"),
]
FAKE_TENSORFLOW = InstalledTensorFlow(
    package_dir=Path("/opt/fake-tensorflow"), version="2.21.0",
    compile_flags=("-I/opt/fake-tensorflow/include", "-D_GLIBCXX_USE_CXX11_ABI=1", "--std=c++17"),
    link_flags=("-L/opt/fake-tensorflow", "-l:libtensorflow_framework.so.2"),
)


def tensorflow_step(plan):
    """The Makefile plan's step that builds TensorFlow (ccache's statistics come after it)."""
    return next(step for step in reversed(plan.steps) if step.name.startswith("build TensorFlow"))



def last_opt_level(words: list[str] | tuple[str, ...]) -> str:
    """The -O flag that wins in a compile command (gcc and clang take the last one)."""
    levels = opt_levels(words)
    assert levels, f"no -O flag in {' '.join(words)}"
    return levels[-1]


def opt_levels(words: list[str] | tuple[str, ...]) -> list[str]:
    """Every -O flag of a command: a compile line should name one."""
    return [word for word in words if re.fullmatch(r"-O[0-3sz]?|-Ofast|-Og", word)]


def only_opt_level(words: list[str] | tuple[str, ...]) -> str:
    """The one -O level of a compile command (failing when it names none or several)."""
    levels = opt_levels(words)
    assert len(levels) == 1, f"{len(levels)} -O levels in {' '.join(words)}"
    return levels[0]


@pytest.fixture(scope="module")
def hot_files(world):  # noqa: F811
    index = build_kernel_index(world / "tf1")
    return hot_kernel_files([KernelNeed(op, (cls,)) for op, cls in MODEL_OPS], index)


def profiled_plan(world, target, flavour, profile, hot, tree="tf1", **cli):  # noqa: F811
    options = options_for(world, target, flavour, tree, size_profile=profile, **cli)
    return plan_build(options, header_text=HEADER, tree=read_tree_facts(world / tree), hot_files=hot)


def linker_flags(linker: str, *features: str) -> tuple[str, ...]:
    """The flags of ``features`` for ``linker``, after the one that selects it (when any)."""
    flags = size_profiles().linkers[linker]
    given = tuple(flag for feature in features for flag in getattr(flags, feature))
    return (*flags.select, *given) if given else ()


# -- the data and the option --------------------------------------------------------------------


def test_the_profiles_and_their_order():
    assert profile_names() == ("stock", "balanced", "small")
    data = size_profiles()
    assert data.default == "stock"
    stock = apply_size_profile("stock", linker="gold", hot_files=HOT)
    assert not stock.adds_flags and stock.hot_files == () and stock.notes == ()
    balanced = apply_size_profile("balanced", linker="gold", hot_files=HOT)
    assert balanced.cflags == ("-O2", "-ffunction-sections", "-fdata-sections")
    assert balanced.ldflags == ("-fuse-ld=gold", "-Wl,--gc-sections", "-Wl,--icf=all", "-s")
    assert balanced.hot_files == ()
    small = apply_size_profile("small", linker="gold", hot_files=HOT)
    assert last_opt_level(small.cflags) == "-Os" and small.hot_cflags == ("-O2",) and small.hot_files == HOT


def test_icf_only_where_the_linker_has_it_and_the_plan_says_so():
    for linker in ("gold", "lld"):
        assert "-Wl,--icf=all" in apply_size_profile("small", linker=linker).ldflags
    bfd = apply_size_profile("small", linker="bfd")
    assert bfd.ldflags == ("-Wl,--gc-sections", "-s")
    assert bfd.notes[0] == "no identical code folding: the linker is GNU ld (bfd), which has none"
    ld64 = apply_size_profile("small", linker="ld64")
    assert ld64.ldflags == ("-Wl,-dead_strip", "-Wl,-S", "-Wl,-x")
    archive = apply_size_profile("balanced", linker="bfd", links=False)
    assert archive.ldflags == () and "the app's link should add -Wl,--gc-sections -s" in archive.notes[-1]


def test_the_option_comes_from_each_layer_and_unknown_names_are_refused(tmp_path):
    base = {"TFBUILD_TARGET": "linux-x86_64"}
    assert resolve_build_options(Flags(), environ=base, cwd=tmp_path).size_profile == "stock"
    (tmp_path / "tfbuild.toml").write_text('[build]\nsize_profile = "balanced"\n')
    assert resolve_build_options(Flags(), environ=base, cwd=tmp_path).size_profile == "balanced"
    env = {**base, "TFBUILD_SIZE_PROFILE": "small"}
    assert resolve_build_options(Flags(), environ=env, cwd=tmp_path).size_profile == "small"
    assert resolve_build_options(Flags.named(size_profile="stock"), environ=env, cwd=tmp_path).size_profile == "stock"
    with pytest.raises(ConfigError, match=r"--size-profile: unknown size profile 'tiny'") as caught:
        resolve_build_options(Flags.named(size_profile="tiny"), environ=base, cwd=tmp_path)
    assert "stock, balanced, small" in caught.value.hint


def test_hot_files_are_the_models_hot_kernels_found_through_the_index(world, hot_files):  # noqa: F811
    # Conv2DOp<CPUDevice, float> is in conv_ops.cc; conv_ops_using_gemm.cc registers another class.
    assert hot_files == HOT
    index = build_kernel_index(world / "tf1")
    assert hot_kernel_files([KernelNeed("Const", ("ConstantOp",))], index) == ()  # not a hot op
    # A class the tree does not register: every CPU kernel file of the op, as the edits take it.
    every = hot_kernel_files([KernelNeed("Conv2D", ("Conv2DOp<CPUDevice, int>",))], index)
    assert every == tuple(sorted(index.files_for_op("Conv2D"))) and len(every) == 2


# -- plans ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("target, flavour", TREE_CASES, ids=[f"{t}-{f}" for t, f in TREE_CASES])
def test_stock_is_todays_plan(world, hot_files, target, flavour):  # noqa: F811
    stock = profiled_plan(world, target, flavour, "stock", hot_files)
    assert plan_text(stock) == plan_text(plan_for(world, target, flavour))
    assert stock.size_profile.name == "stock" and not stock.size_profile.adds_flags
    assert not any(file.path.name == PROFILE_MAKEFILE for file in stock.generated_files)


@pytest.mark.parametrize("target", [t for t, f in TREE_CASES if f == "makefile"])
@pytest.mark.parametrize("profile", ["balanced", "small"])
def test_makefile_plans_pass_the_profile_to_make(world, hot_files, target, profile):  # noqa: F811
    plan = profiled_plan(world, target, "makefile", profile, hot_files)
    size = plan.size_profile
    make = tensorflow_step(plan).argv
    profile_mk = next(file for file in plan.generated_files if file.path.name == PROFILE_MAKEFILE)
    assert profile_mk.path == world / "out" / target / PROFILE_MAKEFILE
    mk_in_build = ("/out" if plan.image is not None else str(world / "out" / target)) + f"/{PROFILE_MAKEFILE}"
    assert make[:5] == ("make", "-f", "tensorflow/contrib/makefile/Makefile", "-f", mk_in_build)
    optflags = next(arg for arg in make if arg.startswith("OPTFLAGS=")).removeprefix("OPTFLAGS=").split()
    target_flags = [flag for flag in get_target(target).makefile.optflags if not flag.startswith("-O")]
    # The target's flags without its -O level, then the profile's (with its level), then the selection.
    assert optflags[: len(target_flags) + len(size.cflags)] == [*target_flags, *size.cflags]
    assert only_opt_level(optflags) == {"balanced": "-O2", "small": "-Os"}[profile]
    linker = get_target(target).makefile.linker
    expected_ld = linker_flags(linker, "gc_sections", "identical_code_folding", "strip")
    assert size.ldflags == expected_ld and f"override LDFLAGS += {' '.join(expected_ld)}\n" in profile_mk.content
    rules = re.findall(r"^\$\(OBJDIR\)(\S+): private override CXXFLAGS := \$\(filter-out -O%,\$\(CXXFLAGS\)\) (.*)$",
                       profile_mk.content, re.MULTILINE)
    if profile == "small":
        assert rules == [(source.removesuffix(".cc") + ".o", "-O2") for source in HOT]
    else:
        assert rules == [] and size.hot_files == ()


@pytest.mark.parametrize("target", [t for t, f in TREE_CASES if f == "bazel"])
def test_bazel_plans_pass_the_profile_as_per_file_copts_and_linkopts(world, hot_files, target):  # noqa: F811
    plan = profiled_plan(world, target, "bazel", "small", hot_files)
    build = next(step.argv for step in plan.steps if step.argv[0] == "bazel")
    per_file = [arg.removeprefix("--per_file_copt=") for arg in build if arg.startswith("--per_file_copt=")]
    assert per_file[0] == ".*@-Os,-ffunction-sections,-fdata-sections"
    patterns, options = per_file[1].rsplit("@", 1)
    assert options == "-O2"
    tree_files = [path.relative_to(world / "tf1").as_posix() for path in (world / "tf1").rglob("*.cc")]
    matched = {path for path in tree_files if any(re.fullmatch(p, path) for p in patterns.split(","))}
    assert matched == set(HOT)
    linkopts = tuple(arg.removeprefix("--linkopt=") for arg in build if arg.startswith("--linkopt="))
    linker = get_target(target).bazel.linker
    assert linkopts == linker_flags(linker, "gc_sections", "identical_code_folding", "strip")
    assert ("-Wl,--icf=all" in linkopts) == (linker == "gold")
    # After the selection flags and --extra-cflag, before the labels.
    assert build.index("--copt=-DSELECTIVE_REGISTRATION") < build.index(f"--per_file_copt={per_file[0]}")
    assert all(arg.startswith("//") for arg in build[build.index(f"--linkopt={linkopts[-1]}") + 1:])


@pytest.mark.parametrize("target", OPS_TARGETS)
def test_op_library_plans_compile_at_the_profiles_level_and_link_with_its_flags(world, target):  # noqa: F811
    options = options_for(world, target, "ops-library", tree=None, size_profile="small",
                          op_sources=(str(world / "ops" / "a.cc"),), extra_cflags=("-DUSER_FLAG",))
    plan = plan_build(options, header_text=HEADER, tensorflow=FAKE_TENSORFLOW)
    compile_argv = next(step.argv for step in plan.steps if step.name.startswith("compile "))
    assert only_opt_level(compile_argv) == "-Os"
    assert compile_argv.index("-fdata-sections") < compile_argv.index("-DUSER_FLAG")  # the user's flags last
    link = next(step.argv for step in plan.steps if step.name.startswith(("link ", "archive ")))
    profile = get_target(target).ops_library
    if profile.kind == "shared":
        expected = linker_flags(profile.linker, "gc_sections", "identical_code_folding", "strip")
        assert link[-len(expected):] == expected and plan.size_profile.ldflags == expected
    else:
        assert link[1] == "rcs" and plan.size_profile.ldflags == ()
        assert any("nothing is linked here" in note for note in plan.size_profile.notes)
    assert plan.size_profile.hot_files == ()


@pytest.mark.parametrize("target, flavour, profile", GOLDEN, ids=["-".join(case) for case in GOLDEN])
def test_golden_profiled_plans(world, hot_files, target, flavour, profile):  # noqa: F811
    """What the profile changes in a plan, as text: the plan's size-profile section, the build
    command that carries it, and the generated .mk (the rest of each plan is in tests/golden/plans)."""
    plan = profiled_plan(world, target, flavour, profile, hot_files)
    lines = plan_text(plan).splitlines()
    start = lines.index(next(line for line in lines if line.startswith("  size profile: ")))
    section = lines[start: lines.index("  artifacts:")]
    build = tensorflow_step(plan) if flavour == "makefile" else next(step for step in plan.steps if step.argv[0] == "bazel")
    text = "\n".join([*section, f"  {build.name}:", f"    {shlex.join(build.argv)}", ""])
    for file in plan.generated_files:
        if file.path.name == PROFILE_MAKEFILE:
            text += f"--- {PROFILE_MAKEFILE}\n{file.content}"
    check_golden(f"size_profiles/{target}-{flavour}-{profile}", text, replacements(world, "tf1"))


def test_a_hot_source_no_make_rule_can_name_is_left_at_the_profiles_level(world):  # noqa: F811
    odd = ("tensorflow/core/kernels/conv ops.cc", "tensorflow/core/kernels/$(x).cc", HOT[1])
    plan = profiled_plan(world, "linux-x86_64", "makefile", "small", odd)
    assert plan.size_profile.hot_files == (HOT[1],)
    assert any("no make rule can name them" in note for note in plan.size_profile.notes)
    content = next(file.content for file in plan.generated_files if file.path.name == PROFILE_MAKEFILE)
    assert "conv ops" not in content and "$(x)" not in content


def test_the_manifest_records_the_profile(world, hot_files, tmp_path):  # noqa: F811
    plan = profiled_plan(world, "linux-x86_64", "makefile", "small", hot_files)
    header = tmp_path / "ops_to_register.h"
    header.write_text(HEADER)
    record = TensorFlowRecord(version="1.12.0", commit=None, source=None, analysis_version="2.21.0")
    manifest = make_manifest(plan, artifacts=(), header=header, models=(), tensorflow=record, image_id=None)
    data = json.loads(manifest.to_json())["size_profile"]
    assert data["name"] == "small" and data["hot_files"] == list(HOT)
    assert data["cflags"] == ["-Os", "-ffunction-sections", "-fdata-sections"] and data["hot_cflags"] == ["-O2"]
    assert data["ldflags"] == ["-fuse-ld=gold", "-Wl,--gc-sections", "-Wl,--icf=all", "-s"]


# -- the dry run: the hot files come from the build's own analysis and kernel index -------------


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model_ops.json"
    path.write_text(json.dumps(MODEL_OPS))
    return path




def test_the_dry_run_shows_the_profile_the_build_would_use(tf1_tree, model, tmp_path, capsys):
    assert main(local_makefile_build(tf1_tree, model, tmp_path / "out", "--size-profile", "small", "--dry-run")) == 0
    text = capsys.readouterr().out
    assert "  size profile: small (" in text
    assert "    every object: -Os -ffunction-sections -fdata-sections\n" in text
    assert "".join(f"      {source}\n" for source in HOT) in text
    assert "    link: -fuse-ld=gold -Wl,--gc-sections -Wl,--icf=all -s\n" in text
    assert f"-f {tmp_path / 'out' / PROFILE_MAKEFILE}" in text
    assert not (tmp_path / "out").exists()  # planned, not written


# -- real tools -----------------------------------------------------------------------------------

# noinline: the calls stay calls, so the functions main uses are referenced from its section.
GC_PROGRAM = r"""
extern "C" const char tfbuild_marker[] = "TFBUILD-UNREFERENCED-MARKER";
extern "C" int tfbuild_unreferenced(int x) { return tfbuild_marker[x] * 5; }
extern "C" __attribute__((noinline)) int tfbuild_used(int x) { return x * 3 + 1; }
int main(int argc, char**) { return tfbuild_used(argc); }
"""
ICF_PROGRAM = r"""
extern "C" __attribute__((noinline)) int tfbuild_twin_a(int x) { return (x * 7 + 3) ^ (x >> 2); }
extern "C" __attribute__((noinline)) int tfbuild_twin_b(int x) { return (x * 7 + 3) ^ (x >> 2); }
int main(int argc, char**) { return tfbuild_twin_a(argc) + tfbuild_twin_b(argc + 1); }
"""


def compile_and_link(tmp_path: Path, source: str, name: str, cflags, ldflags) -> Path:
    (tmp_path / f"{name}.cc").write_text(source)
    binary = tmp_path / name
    subprocess.run(["g++", *cflags, "-c", f"{name}.cc", "-o", f"{name}.o"], cwd=tmp_path, check=True)
    subprocess.run(["g++", f"{name}.o", "-o", name, *ldflags], cwd=tmp_path, check=True)
    return binary


def symbols(binary: Path) -> dict[str, str]:
    """Defined symbol -> address, from nm (empty for a stripped binary)."""
    done = subprocess.run(["nm", "--defined-only", str(binary)], capture_output=True, text=True)
    if "no symbols" in done.stderr:
        return {}
    assert done.returncode == 0, done.stderr
    return {fields[2]: fields[0] for fields in (line.split() for line in done.stdout.splitlines()) if len(fields) == 3}


@pytest.mark.compiler
@pytest.mark.parametrize("profile", ["balanced", "small"])
def test_gc_sections_drops_an_unreferenced_function(tmp_path, profile):
    size = apply_size_profile(profile, linker="bfd")  # the host's g++ links with GNU ld
    strip = linker_flags("bfd", "strip")
    stock = compile_and_link(tmp_path, GC_PROGRAM, "stock", ["-O2"], [])
    assert {"tfbuild_used", "tfbuild_unreferenced", "tfbuild_marker"} <= set(symbols(stock))
    assert b"TFBUILD-UNREFERENCED-MARKER" in stock.read_bytes()
    # The profile without its strip flags: nm can still look, and the unreferenced code is gone.
    unstripped = [flag for flag in size.ldflags if flag not in strip]
    collected = compile_and_link(tmp_path, GC_PROGRAM, "collected", size.cflags, unstripped)
    found = set(symbols(collected))
    assert "tfbuild_used" in found and "tfbuild_unreferenced" not in found and "tfbuild_marker" not in found
    # The whole profile: stripped, and the unreferenced data is not in the file at all.
    full = compile_and_link(tmp_path, GC_PROGRAM, "full", size.cflags, size.ldflags)
    assert symbols(full) == {} and b"TFBUILD-UNREFERENCED-MARKER" not in full.read_bytes()
    assert full.stat().st_size < stock.stat().st_size


@pytest.mark.compiler
def test_gold_folds_identical_functions_where_the_profile_asks(tmp_path):
    if subprocess.run(["g++", "-fuse-ld=gold", "-Wl,--version"], capture_output=True).returncode != 0:
        missing_part("g++ cannot link with gold here (apt-get install binutils; binutils-gold from Debian 13)")
    strip = linker_flags("gold", "strip")
    gold = [flag for flag in apply_size_profile("small", linker="gold").ldflags if flag not in strip]
    bfd = [flag for flag in apply_size_profile("small", linker="bfd").ldflags if flag not in strip]
    # -fno-ipa-icf: gcc folds identical functions itself at -O2/-Os; this is about the linker.
    cflags = (*apply_size_profile("small", linker="gold").cflags, "-fno-ipa-icf")
    folded = symbols(compile_and_link(tmp_path, ICF_PROGRAM, "folded", cflags, ["-fuse-ld=gold", *gold]))
    apart = symbols(compile_and_link(tmp_path, ICF_PROGRAM, "apart", cflags, bfd))
    assert folded["tfbuild_twin_a"] == folded["tfbuild_twin_b"]
    assert apart["tfbuild_twin_a"] != apart["tfbuild_twin_b"]


def commands(output: str) -> list[str]:
    """The commands make echoed (or printed), a recipe's continued lines joined."""
    return output.replace("\\\n", " ").splitlines()


def compile_lines(output: str, source: str) -> list[list[str]]:
    """The compile commands make ran (or printed) for ``source``, as words."""
    found = [shlex.split(line) for line in commands(output) if f" -c {source} " in line]
    assert found, f"no compile of {source} in:\n{output[-3000:]}"
    return found


def link_line(output: str) -> list[str]:
    """The benchmark's link command, as words."""
    return shlex.split(next(line for line in commands(output) if "-o " in line and "gen/bin/benchmark " in line))


def selective_header(tree: Path, model: Path, tmp_path: Path) -> str:
    """The model's ops_to_register.h, as ``tfbuild header --source`` writes it for the tree."""
    path = tmp_path / "ops_to_register.h"
    assert main(["header", str(model), "-o", str(path), "--source", str(tree)]) == 0
    return path.read_text()


def write_generated(plan) -> None:
    for file in plan.generated_files:
        file.path.parent.mkdir(parents=True, exist_ok=True)
        file.path.write_text(file.content)


@pytest.mark.compiler
def test_real_make_compiles_the_hot_kernel_at_o2_and_another_at_os(tf1_tree, hot_files, model, tmp_path):
    """TensorFlow's (stand-in) Makefile, unedited, read with the generated .mk: make itself
    decides each object's flags. (Its objects wait for the tree's protos: protoc first.)"""
    treegen.build_host_protobuf(tf1_tree)
    options = resolve_build_options(
        Flags.named(target="linux-x86_64", flavour="makefile", source=str(tf1_tree), local=True,
                    output_dir=str(tmp_path / "out"), jobs=2, size_profile="small"),
        environ={}, cwd=tmp_path,
    )
    header = selective_header(tf1_tree, model, tmp_path)
    plan = plan_build(options, header_text=header, tree=read_tree_facts(tf1_tree), hot_files=hot_files)
    write_generated(plan)
    make = list(tensorflow_step(plan).argv)
    objdir = (tf1_tree / "tensorflow/contrib/makefile/gen/obj").resolve()
    objects = [str(objdir / source.removesuffix(".cc")) + ".o" for source in (HOT[0], COLD)]
    done = subprocess.run([*make, *objects], cwd=tf1_tree, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (hot,), (cold,) = compile_lines(done.stdout, HOT[0]), compile_lines(done.stdout, COLD)
    assert only_opt_level(hot) == "-O2" and only_opt_level(cold) == "-Os"
    assert "-ffunction-sections" in hot and "-ffunction-sections" in cold
    assert all(Path(path).is_file() for path in objects)


@pytest.mark.compiler
def test_the_mk_wins_over_ldflags_and_cxxflags_given_on_makes_command_line(tf1_tree, hot_files, tmp_path):
    """pi-armv7 passes LDFLAGS on make's command line, which beats the Makefile's own
    assignments; the .mk's ``override`` still appends. ``make -n`` only prints: no cross compiler."""
    options = options_for(tmp_path, "pi-armv7", "makefile", tree=None, source=str(tf1_tree), local=True,
                          size_profile="small")
    plan = plan_build(options, header_text=HEADER, tree=read_tree_facts(tf1_tree), hot_files=hot_files)
    write_generated(plan)
    make = list(tensorflow_step(plan).argv)
    assert any(arg.startswith("LDFLAGS=") for arg in make)
    done = subprocess.run([*make, "-n", "CXXFLAGS=-std=c++11 -Os"], cwd=tf1_tree, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (hot,), (cold,) = compile_lines(done.stdout, HOT[0]), compile_lines(done.stdout, COLD)
    assert only_opt_level(hot) == "-O2" and only_opt_level(cold) == "-Os"
    link = link_line(done.stdout)
    ldflags = list(plan.size_profile.ldflags)
    at = link.index("-Wl,--no-whole-archive")  # LDFLAGS as make's command line gave it, then the .mk's
    assert link[at + 2: at + 2 + len(ldflags)] == ldflags and link[at + 1].startswith("-L")


@pytest.mark.compiler
def test_a_new_profile_rebuilds_what_the_last_build_compiled_with_other_flags(tf1_tree, model, tmp_path, capsys):
    """make rebuilds on changed sources and headers, never on a changed command line: a build
    with new flags removes the objects an earlier build in the tree left, and one with the same
    flags keeps them."""
    out = tmp_path / "out"
    assert main(local_makefile_build(tf1_tree, model, out)) == 0, capsys.readouterr().err[-2000:]
    assert main(local_makefile_build(tf1_tree, model, out, "--size-profile", "small")) == 0, capsys.readouterr().err[-2000:]
    log = (out / "linux-x86_64.build.log").read_text()
    assert "the last build in this tree used other flags: removing" in log
    compiles = [line for line in commands(log) if " -c tensorflow/" in line]
    assert compiles and all("-ffunction-sections" in line for line in compiles)
    assert main(local_makefile_build(tf1_tree, model, out, "--size-profile", "small", "--jobs", "1")) == 0
    log = (out / "linux-x86_64.build.log").read_text()
    assert "same flags as the last build in this tree: its objects are kept" in log
    # Only version_info.cc, which the tree's Makefile writes anew on every run (gen_git_source.sh).
    assert not [line for line in commands(log) if " -c tensorflow/" in line and "version_info" not in line]


@pytest.mark.compiler
def test_a_local_build_with_the_small_profile(tf1_tree, model, tmp_path, capsys):
    """A whole ``tfbuild build --local`` of the generated TF 1.x tree: the log shows each
    object's flags, the benchmark is stripped and still registers exactly the header's kernels
    (its registrations are reached from static initializers, which --gc-sections keeps)."""
    out = tmp_path / "out"
    code = main(local_makefile_build(tf1_tree, model, out, "--size-profile", "small"))
    assert code == 0, capsys.readouterr().err[-3000:]
    log = (out / "linux-x86_64.build.log").read_text()
    compiles = [shlex.split(line) for line in commands(log) if " -c tensorflow/" in line]
    assert compiles and all("-ffunction-sections" in words and "-fdata-sections" in words for words in compiles)
    by_source = {words[words.index("-c") + 1]: words for words in compiles}
    assert {source: only_opt_level(by_source[source]) for source in (*HOT, COLD)} == {
        HOT[0]: "-O2", HOT[1]: "-O2", COLD: "-Os",
    }
    assert {only_opt_level(words) for words in compiles} == {"-O2", "-Os"}  # each line names one level
    manifest = json.loads((out / "manifest.json").read_text())
    make = next(record["argv"] for record in manifest["effective_flags"] if record["argv"][0] == "make")
    assert only_opt_level(next(arg for arg in make if arg.startswith("OPTFLAGS=")).removeprefix("OPTFLAGS=").split()) == "-Os"
    ldflags = manifest["size_profile"]["ldflags"]
    assert ldflags == ["-fuse-ld=gold", "-Wl,--gc-sections", "-Wl,--icf=all", "-s"]
    link = link_line(log)
    at = link.index("-Wl,--no-whole-archive")  # the Makefile's LDFLAGS for LINUX, then the .mk's
    assert link[at + 1: at + 1 + len(ldflags)] == ldflags
    benchmark = out / "benchmark"
    assert symbols(benchmark) == {}
    listing = subprocess.run([str(benchmark)], capture_output=True, text=True, check=True).stdout
    kernels, _ = treegen.parse_registry_listing(listing)
    registered = {(op, "".join(cls.split())) for op, device, cls in kernels if device == "CPU"}
    assert {(op, "".join(cls.split())) for op, cls in MODEL_OPS} <= registered
    assert manifest["size_profile"]["name"] == "small" and manifest["size_profile"]["hot_files"] == list(HOT)


@pytest.mark.bazel
def test_bazel_gives_the_hot_kernel_o2_after_the_profiles_os(tmp_path, hot_files, world):  # noqa: F811
    """Real Bazel on the generated TF 2.x tree, with the size options of a linux-x86_64 plan:
    the compile of a hot kernel ends in -O2 after -Os, another in -Os, and the link (gold, as
    Bazel's toolchain picks it here) gets --gc-sections, --icf=all and -s."""
    root = treegen.make_tf2_tree(tmp_path / "tf")
    plan = profiled_plan(world, "linux-x86_64", "bazel", "small", hot_files, tree="tf2")
    build = next(step.argv for step in plan.steps if step.argv[0] == "bazel")
    size_options = [arg for arg in build if arg.startswith(("--per_file_copt=", "--linkopt="))]
    bazel = [bazel_binary(), f"--output_user_root={tmp_path / 'bazel-root'}"]
    try:
        done = subprocess.run(
            [*bazel, "build", "-c", "opt", "--jobs=2", "-s", *size_options, treegen.BAZEL_BENCHMARK_TARGET],
            cwd=root, capture_output=True, text=True, timeout=1800,
        )
    finally:
        subprocess.run([*bazel, "shutdown"], cwd=root, capture_output=True)
    assert done.returncode == 0, done.stderr[-3000:]
    (tmp_path / "bazel-subcommands.txt").write_text(done.stderr)
    # -s prints each command as "(cd EXECROOT && exec env - VARS... gcc ARGS...)", over continued lines.
    printed = [shlex.split(line[1:].rstrip(")")) for line in commands(done.stderr) if line.startswith("(cd ")]
    by_source = {words[words.index("-c") + 1]: words for words in printed if "-c" in words}
    # -c opt's -O2 first, then the profile's -Os, then the hot kernels' -O2.
    assert [word for word in by_source[HOT[0]] if word.startswith("-O")] == ["-O2", "-Os", "-O2"]
    assert [word for word in by_source[COLD] if word.startswith("-O")] == ["-O2", "-Os"]
    assert "-ffunction-sections" in by_source[COLD]
    link = next(words for words in printed if "-o" in words and words[words.index("-o") + 1].endswith("benchmark_model"))
    assert {"-Wl,--gc-sections", "-Wl,--icf=all", "-s", "-fuse-ld=gold"} <= set(link)


def test_python_module_runs_with_the_option():
    """``python -m tfbuild build --help`` lists the option (the CLI stays thin)."""
    done = subprocess.run([sys.executable, "-m", "tfbuild", "build", "--help"], capture_output=True, text=True)
    assert "--size-profile" in done.stdout
