"""The kernel index: what it reads from TensorFlow-shaped trees, checked against g++ itself.

Class strings are what TensorFlow's ``#__VA_ARGS__`` makes of the class argument; the marked
tests compile the tree with its stand-in framework (whose REGISTER_KERNEL_BUILDER stringifies
exactly as TensorFlow's does) and compare the registry the binary lists with the index. The
fast tests pin the registration forms real trees use, including facts measured on a real TF 1.12 build
(``MatMulOp<CPUDevice, float, false >``).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import treegen

from tfbuild.cpp.conditions import evaluate
from tfbuild.errors import SourceTreeError
from tfbuild.tree.kernel_index import IndexStats, build_kernel_index

CASES = Path(__file__).resolve().parent / "kernel_index_cases"
K = treegen.KERNELS_DIR


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


def _commit(root: Path, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """A tf1 tree plus the macro-form cases, committed."""
    root = treegen.make_tf1_tree(tmp_path_factory.mktemp("kindex") / "tf")
    shutil.copy(CASES / "case_macro_forms.cc", root / K / "case_macro_forms.cc")
    _commit(root, "add macro form cases")
    return root


@pytest.fixture(scope="module")
def index(tree, tmp_path_factory):
    return build_kernel_index(tree, cache_dir=tmp_path_factory.mktemp("cache"))


def index_tree_file(index, name: str) -> str:
    return (treegen.DATA_DIR / "common" / K / name).read_text()


def _pairs(index, op):
    return {r.kernel_class for r in index.registrations if r.op == op}


def test_plain_registrations_and_ops_in_files_not_named_for_them(index):
    assert _pairs(index, "Const") == {"ConstantOp"}
    assert _pairs(index, "NoOp") == {"NoOp"}
    assert _pairs(index, "_Send") == {"SendOp"} and _pairs(index, "_Recv") == {"RecvOp"}
    assert index.files_for_op("Placeholder") == (f"{K}/constant_op.cc",)
    assert index.classes_for_op("Placeholder") == {"PlaceholderOp"}


@pytest.mark.parametrize("op, count, example", [
    ("Rint", 2, "UnaryOp<CPUDevice, functor::rint<double>>"),               # REGISTER2
    ("IsFinite", 4, "UnaryOp<CPUDevice, functor::isfinite<bfloat16>>"),     # REGISTER4
    ("Sqrt", 5, "UnaryOp<CPUDevice, functor::sqrt<complex64>>"),            # REGISTER5
    ("Minimum", 6, "BinaryOp<CPUDevice, functor::minimum<int64>>"),         # REGISTER6
    ("Equal", 7, "BinaryOp<CPUDevice, functor::equal_to<bfloat16>>"),       # REGISTER7
    ("Greater", 8, "BinaryOp<CPUDevice, functor::greater<Eigen::half>>"),   # REGISTER8
])
def test_counted_register_macros_from_the_trees_cwise_ops_common(index, op, count, example):
    assert len(_pairs(index, op)) == count
    assert example in _pairs(index, op)


def test_ops_split_across_files(index):
    assert index.files_for_op("Add") == (f"{K}/cwise_op_add_1.cc", f"{K}/cwise_op_add_2.cc")
    assert index.files_for_op("Mul") == (f"{K}/cwise_op_mul_1.cc", f"{K}/cwise_op_mul_2.cc")
    add = _pairs(index, "Add")
    assert {"BinaryOp<CPUDevice, functor::add<float>>", "BinaryOp<CPUDevice, functor::add<string>>"} <= add
    assert len(add) == 12  # 6 in each shard; the __ANDROID_TYPES_SLIM__ extras add nothing new


def test_local_macros_over_tf_call_lists(index):
    relu = _pairs(index, "Relu")
    assert len(relu) == 10  # TF_CALL_REAL_NUMBER_TYPES of the tree's register_types.h
    assert {"ReluOp<CPUDevice, float>", "ReluOp<CPUDevice, ::tensorflow::int32>", "ReluOp<CPUDevice, Eigen::half>"} <= relu
    assert _pairs(index, "Softmax") == {f"SoftmaxOp<CPUDevice, {t}>" for t in ("Eigen::half", "float", "double")}
    assert len(_pairs(index, "BiasAdd")) == 12  # TF_CALL_NUMBER_TYPES


def test_multi_line_calls_and_comments_in_class_strings(index):
    # Measured on a real TF 1.12 build: the comment leaves the space before ">".
    assert "MatMulOp<CPUDevice, float, false >" in _pairs(index, "MatMul")
    assert ("ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"
            in _pairs(index, "Min"))
    min_float = [r for r in index.registrations if r.op == "Min" and ("T", "float") in r.type_constraints]
    assert {r.type_constraints for r in min_float} == {(("T", "float"), ("Tidx", "int32")),
                                                        (("T", "float"), ("Tidx", "int64"))}


def test_gpu_sycl_and_mkl_registrations_are_left_out(index):
    assert {r.device for r in index.registrations} == {"CPU"}
    assert not any(".cu." in r.file or "_gpu" in r.file for r in index.registrations)
    assert not any("GPUDevice" in r.kernel_class or "SYCL" in r.kernel_class for r in index.registrations)
    # cwise_op_add_1.cc registers BinaryOp<CPUDevice, ...<int32>> on the GPU under GOOGLE_CUDA.
    add_int32 = [r for r in index.registrations
                 if r.op == "Add" and r.kernel_class == "BinaryOp<CPUDevice, functor::add<int32>>"]
    assert [(r.file, r.line) for r in add_int32] == [(f"{K}/cwise_op_add_1.cc", 8)]
    # matmul_op.cc's INTEL_MKL branch is compiled out: MatMul float comes from the #else branch
    # (its plain and "eigen"-labelled registrations are the same class on the same line).
    matmul_lines = (index_tree_file(index, "matmul_op.cc")).splitlines()
    else_line = matmul_lines.index("#else  // INTEL MKL") + 1
    matmul = [r for r in index.registrations if r.op == "MatMul"]
    assert matmul and all(r.line > else_line and r.guard is None for r in matmul)


def test_guards_are_recorded(index):
    conv = {(r.file, r.guard) for r in index.registrations if r.op == "Conv2D"}
    assert conv == {(f"{K}/conv_ops.cc", "!defined(USE_GEMM_FOR_CONV)"),
                    (f"{K}/conv_ops_using_gemm.cc", "defined(USE_GEMM_FOR_CONV)")}
    assert {r.guard for r in index.registrations if r.op == "CaseElif"} == {"defined(CASE_FLAG)"}
    assert {r.guard for r in index.registrations if r.op == "CaseElse"} == {"!(defined(CASE_FLAG))"}
    assert {r.guard for r in index.registrations if r.op == "CaseGuardedMacro"} == {"defined(CASE_FLAG)"}
    assert not {"CaseIfZero", "CaseSycl"} & index.ops()


def test_case_forms(index):
    assert _pairs(index, "CaseSpacing") == {"CasePairOp < int ,float>"}
    assert _pairs(index, "CaseObjectMacro") == {"CaseOneOp<double>"}
    assert _pairs(index, "CaseVariadic") == {"CasePairOp<int, bool>"}
    assert _pairs(index, "CasePaste") == {"CaseOneOp<float>"}
    assert _pairs(index, "CaseStringized") == {"CaseOneOp<int>"}
    assert _pairs(index, "CaseRedefA") == {"CaseOneOp<int>"} and _pairs(index, "CaseRedefB") == {"CaseOneOp<float>"}
    data_type = [r for r in index.registrations if r.op == "CaseDataType"]
    assert [r.type_constraints for r in data_type] == [(("T", "float"),)]


def test_headers_are_followed_within_the_kernels_directory(index):
    assert index.headers_for(index.files_for_op("Relu")) == (f"{K}/relu_op.h", f"{K}/relu_op_functor.h")
    assert index.headers_for(index.files_for_op("Add")) == (f"{K}/cwise_ops.h", f"{K}/cwise_ops_common.h")
    assert "tensorflow/core/framework/op_kernel.h" in index.includes[f"{K}/relu_op.cc"]


def test_the_trees_own_type_lists_are_used(tmp_path):
    """A tree whose TF_CALL_REAL_NUMBER_TYPES lacks bfloat16 registers no bfloat16 Relu; the
    uncommitted change is indexed, not answered from the committed tree's cache entry."""
    root = treegen.make_tf1_tree(tmp_path / "tf")
    cache = tmp_path / "cache"
    assert "ReluOp<CPUDevice, bfloat16>" in build_kernel_index(root, cache_dir=cache).classes_for_op("Relu")
    register_types = root / "tensorflow/core/framework/register_types.h"
    register_types.write_text(register_types.read_text().replace(
        "TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)\n\n#define TF_CALL_REAL_NUMBER_TYPES_NO_BFLOAT16",
        "TF_CALL_half(m) TF_CALL_float(m) TF_CALL_double(m)\n\n#define TF_CALL_REAL_NUMBER_TYPES_NO_BFLOAT16"))
    stats = IndexStats()
    relu = build_kernel_index(root, cache_dir=cache, stats=stats).classes_for_op("Relu")
    assert not stats.cache_hit and "ReluOp<CPUDevice, bfloat16>" not in relu and len(relu) == 9


def test_cache_is_keyed_by_commit_and_kernel_sources(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf")
    cache = tmp_path / "cache"
    first, second = IndexStats(), IndexStats()
    cold = build_kernel_index(root, cache_dir=cache, stats=first)
    warm = build_kernel_index(root, cache_dir=cache, stats=second)
    assert first.files_scanned > 20 and not first.cache_hit
    assert second.cache_hit and second.files_scanned == 0 and warm == cold
    assert cold.tree_commit == _git(root, "rev-parse", "HEAD")

    # tfbuild's own edits (BUILD files, op lists, the header) leave the kernel sources alone.
    (root / treegen.OPS_TO_REGISTER_H).write_text("// header\n")
    with open(root / treegen.KERNELS_BUILD, "a") as build:
        build.write("\n# edited\n")
    edited = IndexStats()
    build_kernel_index(root, cache_dir=cache, stats=edited)
    assert edited.cache_hit

    # An uncommitted kernel change is scanned, and so is a new commit.
    (root / K / "new_kernel.cc").write_text(
        '#include "tensorflow/core/framework/op_kernel.h"\n'
        'REGISTER_KERNEL_BUILDER(Name("Fresh").Device(DEVICE_CPU), FreshOp);\n')
    dirty = IndexStats()
    assert build_kernel_index(root, cache_dir=cache, stats=dirty).files_for_op("Fresh") == (f"{K}/new_kernel.cc",)
    assert not dirty.cache_hit and dirty.files_scanned == first.files_scanned + 1
    _commit(root, "new kernel")
    committed = IndexStats()
    assert build_kernel_index(root, cache_dir=cache, stats=committed).files_for_op("Fresh")
    assert not committed.cache_hit


def test_cache_entry_is_shared_by_clones_and_survives_corruption(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)
    cache = tmp_path / "cache"
    stats = IndexStats()
    build_kernel_index(root, cache_dir=cache, stats=stats)
    from_clone = IndexStats()
    build_kernel_index(clone, cache_dir=cache, stats=from_clone)
    assert from_clone.cache_hit
    stats.cache_path.write_text("{ not json")
    again = IndexStats()
    assert build_kernel_index(root, cache_dir=cache, stats=again).ops()
    assert not again.cache_hit and again.files_scanned > 0


def test_files_added_as_gpu_only_are_not_read(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf", tags=False)
    line = 'REGISTER_KERNEL_BUILDER(Name("{op}").Device(DEVICE_CPU), Op);\n'
    (root / K / "foo_op_gpu.cc").write_text(line.format(op="FromGpuName"))
    (root / K / "foo_op.cu.cc").write_text(line.format(op="FromCuFile"))
    (root / K / "foo_op_test.cc").write_text(line.format(op="FromTest"))
    (root / K / "image").mkdir()
    (root / K / "image" / "resize_op.cc").write_text(line.format(op="FromSubdirectory"))
    ops = build_kernel_index(root, cache_dir=tmp_path / "cache").ops()
    assert "FromSubdirectory" in ops
    assert not {"FromGpuName", "FromCuFile", "FromTest"} & ops


@pytest.mark.parametrize("case", sorted((CASES / "unfriendly").glob("*.cc")), ids=lambda p: p.name)
def test_unfriendly_input_is_skipped_not_fatal(tmp_path, case):
    root = treegen.make_tf1_tree(tmp_path / "tf", tags=False)
    shutil.copy(case, root / K / case.name)
    stats = IndexStats()
    index = build_kernel_index(root, cache_dir=tmp_path / "cache", stats=stats)
    assert index.classes_for_op("Const") == {"ConstantOp"}  # the rest of the tree is still read
    assert not {"InString", "InComment", "InLineComment", "InRaw", "CaseIfZero"} & index.ops()
    if case.name == "broken_directives.cc":
        assert "AfterBrokenDirectives" in index.ops()
    if case.name == "odd_text.cc":
        assert {"OddA", "Concat"} <= index.ops()
    if case.name == "exploding_macros.cc":
        assert "SelfRef" in index.ops()
    if case.name in ("exploding_macros.cc", "unterminated_call.cc", "wrong_argument_count.cc"):
        assert any(case.name in note for note in stats.notes)


def test_a_directory_that_is_not_a_tree_is_refused(tmp_path):
    with pytest.raises(SourceTreeError, match="tensorflow/core/kernels: not found"):
        build_kernel_index(tmp_path, cache_dir=tmp_path / "cache")
    with pytest.raises(SourceTreeError, match="source tree not found"):
        build_kernel_index(tmp_path / "missing", cache_dir=tmp_path / "cache")


def test_cli_kernels_report(tree, capsys, monkeypatch, tmp_path):
    from tfbuild.cli import main

    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path))
    assert main(["kernels", "MatMul", "Relu", "--source", str(tree)]) == 0
    out = capsys.readouterr().out
    assert f"{K}/matmul_op.cc" in out and "MatMulOp<CPUDevice, float, false >" in out
    assert f"{K}/relu_op_functor.h" in out
    assert main(["kernels", "MatMul", "NotAnOp", "--source", str(tree), "--json"]) == SourceTreeError.exit_code
    captured = capsys.readouterr()
    assert '"registered": false' in captured.out and "NotAnOp" in captured.err


# --- g++ as the oracle ---------------------------------------------------------------------


def _compile_and_list(root: Path, sources: list[str], binary: Path, defines: list[str]) -> set[tuple[str, str]]:
    framework = [p.relative_to(root).as_posix() for p in (root / "tensorflow/core/framework").glob("*.cc")]
    subprocess.run(["g++", "-std=c++11", "-O0", "-w", "-I.", *defines, *framework, *sources,
                    "tensorflow/tools/benchmark/benchmark_model_main.cc", "-o", str(binary)],
                   cwd=root, check=True, capture_output=True, text=True)
    listing = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    kernels, _ = treegen.parse_registry_listing(listing)
    return {(op, cls) for op, device, cls in kernels if device == "CPU"}


def _indexed(index, files, defined: set[str]) -> set[tuple[str, str]]:
    """The index's pairs for ``files`` in a build where exactly ``defined`` flags are set."""
    def applies(guard):
        return guard is None or evaluate(guard, lambda n: n in defined, lambda n: int(n in defined))
    return {(r.op, r.kernel_class) for r in index.registrations if r.file in files and applies(r.guard)}


@pytest.mark.compiler
def test_index_matches_what_gxx_registers(tree, index, tmp_path):
    sources = sorted({r.file for r in index.registrations})
    assert f"{K}/case_macro_forms.cc" in sources
    assert _compile_and_list(tree, sources, tmp_path / "all", []) == _indexed(index, sources, set())


@pytest.mark.compiler
def test_index_matches_gxx_with_build_flags(tree, index, tmp_path):
    sources = [f"{K}/conv_ops.cc", f"{K}/conv_ops_using_gemm.cc", f"{K}/case_macro_forms.cc"]
    flags = {"USE_GEMM_FOR_CONV", "CASE_FLAG"}
    compiled = _compile_and_list(tree, sources, tmp_path / "flags", [f"-D{f}" for f in sorted(flags)])
    assert compiled == _indexed(index, sources, flags)
    assert ("CaseElif", "CaseOneOp<int>") in compiled and ("CaseGuardedMacro", "CaseOneOp<int>") in compiled


_REGISTRAR = re.compile(
    r'OpKernelRegistrar registrar\(\s*kernel_def,\s*"((?:[^"\\]|\\.)*)".*?'
    r'register_kernel::Name\("([^"]*)"\)\s*\.\s*Device\(\s*([A-Za-z_:]+)\s*\)',
    re.DOTALL,
)


@pytest.mark.compiler
def test_index_matches_real_tensorflow_headers(tmp_path):
    """TensorFlow's own current macros (the installed wheel's register_types.h and
    cwise_ops_common.h): the index reads them as g++ -E with the wheel's op_kernel.h does."""
    spec = importlib.util.find_spec("tensorflow")
    include = Path(spec.submodule_search_locations[0]) / "include"
    assert (include / "tensorflow/core/framework/op_kernel.h").is_file()
    root = tmp_path / "tree"
    for header in ("tensorflow/core/framework/register_types.h", "tensorflow/core/kernels/cwise_ops_common.h",
                   "tensorflow/core/kernels/cwise_ops.h"):
        (root / header).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(include / header, root / header)
    source = f"{K}/real_forms.cc"
    shutil.copy(CASES / "real_headers" / "real_forms.cc", root / source)
    preprocessed = subprocess.run(["g++", "-std=c++17", "-E", "-I.", f"-I{include}", source],
                                  cwd=root, check=True, capture_output=True, text=True).stdout
    compiled = {(op, cls) for cls, op, device in _REGISTRAR.findall(preprocessed) if device.endswith("DEVICE_CPU")}
    index = build_kernel_index(root, cache_dir=tmp_path / "cache")
    assert len(compiled) > 30
    assert compiled == {(r.op, r.kernel_class) for r in index.registrations}


# --- TF 1.15 and 2.x registration shapes (the tf2 tree) -------------------------------------


@pytest.fixture(scope="module")
def tf2_index(tmp_path_factory):
    root = treegen.make_tf2_tree(tmp_path_factory.mktemp("kindex2") / "tf")
    return root, build_kernel_index(root, cache_dir=tmp_path_factory.mktemp("cache2"))


def test_device_default_kernels_are_what_a_cpu_build_has(tf2_index):
    """NoOp is registered for DEVICE_DEFAULT only since TF 1.15 (real 1.15.5: 38 such
    registrations in core/kernels, 2.21: several hundred): a CPU build has it."""
    _, index = tf2_index
    assert {(r.device, r.kernel_class) for r in index.registrations_for_op("NoOp")} == {("DEFAULT", "NoOp")}
    assert {r.device for r in index.registrations} == {"CPU", "DEFAULT"}


def test_op_names_held_in_constants(tf2_index):
    """``Name(kArgOp)`` with ``kArgOp`` an alias of ``FunctionLibraryDefinition::kArgOp``
    (framework/function.h), as TF 2.x registers the function-call kernels."""
    _, index = tf2_index
    assert index.classes_for_op("_Arg") == {"ArgOp"} and index.classes_for_op("_Retval") == {"RetvalOp"}
    assert index.unread == ()


def test_desktop_only_default_kernels_are_left_out(tf2_index):
    """function_ops.cc defines PLUGGABLE_DEVICE_SUPPORTED_MACOS under __APPLE__ (not iOS) and
    registers DEFAULT kernels behind it: no mobile or Linux build compiles them."""
    _, index = tf2_index
    default = [r.type_constraints for r in index.registrations_for_op("_Arg") if r.device == "DEFAULT"]
    assert default == [(("T", "int32"),)]  # the unguarded one only, not the macOS float one


@pytest.mark.compiler
def test_tf2_index_matches_what_gxx_registers(tf2_index, tmp_path):
    """g++ on the tf2 tree's kernel files, DEVICE_DEFAULT included: the index holds exactly the
    (op, device, class) triples of CPU and DEFAULT kernels the binary registers."""
    root, index = tf2_index
    sources = sorted({r.file for r in index.registrations})
    assert f"{K}/function_ops.cc" in sources and f"{K}/no_op.cc" in sources
    framework = [p.relative_to(root).as_posix() for p in (root / "tensorflow/core/framework").glob("*.cc")]
    binary = tmp_path / "all"
    subprocess.run(["g++", "-std=c++11", "-O0", "-w", "-I.", *framework, *sources,
                    "tensorflow/tools/benchmark/benchmark_model_main.cc", "-o", str(binary)],
                   cwd=root, check=True, capture_output=True, text=True)
    listing = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    kernels, _ = treegen.parse_registry_listing(listing)
    compiled = {(op, device, cls) for op, device, cls in kernels if device in ("CPU", "DEFAULT")}
    built = {(r.op, r.kernel_class) for r in index.registrations} and _indexed(index, sources, set())
    indexed = {(r.op, r.device, r.kernel_class) for r in index.registrations if (r.op, r.kernel_class) in built}
    assert compiled == indexed
    assert ("NoOp", "DEFAULT", "NoOp") in compiled and ("_Arg", "CPU", "ArgOp") in compiled


@pytest.fixture
def unreadable_tree(tmp_path) -> Path:
    root = treegen.make_tf2_tree(tmp_path / "tf")
    shutil.copy(CASES / "unreadable" / "case_unreadable.cc", root / K / "case_unreadable.cc")
    _commit(root, "add a registration the index cannot read")
    return root


def _unreadable_line() -> int:
    text = (CASES / "unreadable" / "case_unreadable.cc").read_text().splitlines()
    return next(n for n, line in enumerate(text, 1) if line.startswith("REGISTER_KERNEL_BUILDER"))


def test_an_unreadable_registration_is_named_by_file_and_line(unreadable_tree, tmp_path, capsys, monkeypatch):
    from tfbuild.cli import main

    where = f"{K}/case_unreadable.cc:{_unreadable_line()}"
    index = build_kernel_index(unreadable_tree, cache_dir=tmp_path / "cache")
    assert [f"{u.file}:{u.line}" for u in index.unread] == [where]
    assert "kMysteryOpNameFromGeneratedHeader" in index.unread[0].reason
    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path / "cli-cache"))
    assert main(["kernels", "Mystery", "--source", str(unreadable_tree)]) == SourceTreeError.exit_code
    captured = capsys.readouterr()
    assert where in captured.out and where in captured.err  # the op's report and the error line
    assert main(["kernels", "NoOp", "--source", str(unreadable_tree), "--json"]) == 0
    captured = capsys.readouterr()
    assert where in captured.err  # every kernels run says the index is incomplete
    assert json.loads(captured.out)["unread_registrations"][0].startswith(where)


def test_check_names_the_unreadable_registration_of_a_missing_op(unreadable_tree, tmp_path, capsys, monkeypatch):
    from tfbuild.cli import main

    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path / "cli-cache"))
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Mystery", "MysteryOp"], ["NoOp", "NoOp"]]))
    code = main(["check", "--model", str(model), "--flavour", "bazel", "--source", str(unreadable_tree)])
    err = capsys.readouterr().err
    assert code == 5
    assert f"{K}/case_unreadable.cc:{_unreadable_line()}" in err and "could not read" in err


def test_check_dry_run_and_kernels_count_default_kernels(tmp_path, capsys, monkeypatch, docker_stand_in):
    """The commands on a tree whose NoOp is registered for DEVICE_DEFAULT only (TF 1.15 on): a
    model needing NoOp passes the preflight of check and of the build's dry run, and kernels
    names the DEFAULT device; before, all three said the tree had no CPU kernel for NoOp. (The
    dry run plans a container build against the stand-in engine, which has every image.)"""
    from tfbuild.cli import main

    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path / "cache"))
    tree = treegen.make_tf2_tree(tmp_path / "tf")
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["NoOp", "NoOp"], ["Const", "ConstantOp"]]))
    assert main(["kernels", "NoOp", "--source", str(tree)]) == 0
    out = capsys.readouterr().out
    assert f"{K}/no_op.cc" in out and re.search(r"devices\s+DEFAULT", out)
    assert main(["check", "--model", str(model), "--flavour", "bazel", "--source", str(tree)]) == 0
    assert "2 ops checked, 0 gap(s)" in capsys.readouterr().out
    code = main(["build", "--target", "linux-x86_64", "--flavour", "bazel", "--source", str(tree),
                 "--model", str(model), "--out", str(tmp_path / "out"), "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "preflight: passed, 4 op(s) checked" in out  # NoOp and Const, and the default ops _Send and _Recv


def test_string_constants_resolve_aliases_and_refuse_ambiguity():
    """``Name(kArgOp)`` with kArgOp an alias of a class constant resolves; a bare name two
    classes define differently (each tf.data kernel's ``kDatasetType``) does not, but
    ``Class::kDatasetType`` does; comments do not define anything."""
    from tfbuild.cpp.string_constants import merge, read_string_constants

    framework = read_string_constants(
        'class FunctionLibraryDefinition {\n static constexpr const char* const kArgOp = "_Arg";\n};\n')
    kernels = read_string_constants(
        "static const char* const kArgOp = FunctionLibraryDefinition::kArgOp;\n"
        'class RangeDatasetOp : public DatasetOpKernel {\n static constexpr const char* const kDatasetType = "Range";\n};\n'
        'class TakeDatasetOp : public DatasetOpKernel {\n static constexpr const char* const kDatasetType = "Take";\n};\n'
        '// constexpr char kInComment[] = "No";\nconstexpr char kLocal[] = "LocalOp";\n')
    table = merge([framework, kernels])
    assert table["kArgOp"] == "_Arg" and table["kLocal"] == "LocalOp"
    assert table["RangeDatasetOp::kDatasetType"] == "Range" and table["TakeDatasetOp::kDatasetType"] == "Take"
    assert "kDatasetType" not in table and "kInComment" not in table
