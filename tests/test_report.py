"""``tfbuild report``: sizes against a stock build, and the remaining bytes by kernel file and op.

The artifacts are real: the generated TF 1.x tree's kernels compiled with g++ into an archive
and a shared library, once plainly (the stock build) and once with ``-DSELECTIVE_REGISTRATION``
and a header that keeps four kernels (the selective one), each with a manifest as a build
writes it. The oracles are independent of the report's code: ``os.path.getsize``, and ``nm``
run and summed here. The HTML page is opened in headless Chromium, whose DOM must hold the
charts' bars and whose screenshot must show them. At the end, two real ``tfbuild build --local``
runs check the hook: the stock build records itself as the baseline, the selective build's
report finds it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path, PurePosixPath

import pytest
from conftest import missing_part
from treegen import make_tf1_tree

from tfbuild.errors import ToolchainError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.outputs.manifest import TensorFlowRecord, make_manifest, write_manifest
from tfbuild.pipeline.planning.plan import Artifact, BuildPlan
from tfbuild.pipeline.report.attribution import normalize_class, symbol_owners
from tfbuild.pipeline.report.baseline import BaselineKey
from tfbuild.pipeline.report.objects import ObjectKind, object_kind
from tfbuild.pipeline.report.symbols import find_nm, nm_candidates, read_symbols
from tfbuild.pipeline.report.write import write_size_report
from tfbuild.templating import render
from tfbuild.toolchain.architectures import architectures

# ops/no_op.cc and kernels/no_op.cc both become no_op.o, as in TensorFlow's Makefile build.
FRAMEWORK = ("tensorflow/core/framework/op.cc", "tensorflow/core/framework/op_kernel.cc", "tensorflow/core/ops/no_op.cc")
KERNELS = tuple(
    f"tensorflow/core/kernels/{name}.cc"
    for name in ("relu_op", "constant_op", "cwise_op_add_1", "cwise_op_sub", "bias_op", "no_op", "cwise_ops_common")
)  # the last registers nothing: a kernel directory's helper, still kernel code
SELECTED = {  # op -> the kernel class the selective header keeps
    "Relu": "ReluOp<CPUDevice, float>",
    "Add": "BinaryOp<CPUDevice, functor::add<float>>",
    "Const": "ConstantOp",
    "NoOp": "NoOp",
}
CXXFLAGS = ("--std=c++11", "-DIS_SLIM_BUILD", "-fno-exceptions", "-DNDEBUG", "-O2", "-fPIC")
MODEL = Path(__file__).resolve().parent.parent / "examples" / "custom_ops" / "model.pbtxt"
ARCHIVE, SHARED = "libtensorflow-core.a", "libkernels.so"
BAR_BLUE = (0x2F, 0x6D, 0xB5)


# --- real artifacts ---------------------------------------------------------------------------


def header_text(*, stock: bool) -> str:
    return render(
        "ops_to_register.h.j2",
        comment_lines=["test header"],
        registers_everything=stock,
        op_granularity=False,
        kernel_classes=sorted(SELECTED.values()),
        ops=sorted(SELECTED),
        register_gradients=False,
    )


def compile_build(tree: Path, out: Path, *, stock: bool, cxx: str = "g++", ar: str = "ar",
                  shared: bool = True) -> Path:
    """Compile the framework and kernel files (selectively unless ``stock``) into an archive and
    a shared library in ``out``, write the header and a manifest as ``tfbuild build`` does."""
    header = out / "header" / "ops_to_register.h"
    header.parent.mkdir(parents=True)
    header.write_text(header_text(stock=stock))
    shutil.copy(header, tree / "tensorflow/core/framework/ops_to_register.h")
    flags = [*CXXFLAGS] + ([] if stock else ["-DSELECTIVE_REGISTRATION"])
    objects = []
    for source in (*FRAMEWORK, *KERNELS):
        obj = out / "obj" / PurePosixPath(source).with_suffix(".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([cxx, *flags, "-I.", "-c", source, "-o", str(obj)], cwd=tree, check=True)
        objects.append(str(obj))
    subprocess.run([ar, "rcs", str(out / ARCHIVE), *objects], check=True)  # members in this order
    artifacts = [Artifact(PurePosixPath("/build") / ARCHIVE, ARCHIVE, "static-lib")]
    if shared:
        subprocess.run([cxx, "-shared", "-o", str(out / SHARED), *objects], check=True)
        artifacts.append(Artifact(PurePosixPath("/build") / SHARED, SHARED, "shared-lib"))
    plan = BuildPlan(target="linux-x86_64", flavour=Flavour.MAKEFILE, image=None, mounts=(), steps=(),
                     generated_files=(), artifacts=tuple(artifacts), output_dir=out)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True,
                            check=True).stdout.strip()
    model = out / "model.pbtxt"
    shutil.copy(MODEL, model)
    manifest = make_manifest(
        plan, artifacts=[out / a.name for a in artifacts], header=header, models=(model,),
        tensorflow=TensorFlowRecord(version="1.13.0", commit=commit, source=str(tree), analysis_version="test"),
        image_id=None,
    )
    write_manifest(manifest, out)
    return out


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("g++") is None:
        missing_part("g++ not installed")
    base = tmp_path_factory.mktemp("report")
    tree = make_tf1_tree(base / "tf1")
    return {
        "tree": tree,
        "stock": compile_build(tree, base / "stock", stock=True),
        "selective": compile_build(tree, base / "selective", stock=False),
    }


def nm_sizes(path: Path, *, demangle: bool = False) -> list[tuple[int | None, str, int, str]]:
    """(member number in the archive, type, size, name) of every defined symbol with a size
    that occupies file bytes, read with the host's nm, independently of the report's parser."""
    argv = ["nm", "-S", "--defined-only"] + (["-C"] if demangle else []) + [str(path)]
    listing = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    found, member = [], None
    for line in listing.splitlines():
        fields = line.split(maxsplit=3)
        if len(fields) == 1 and line.endswith(":"):
            member = 0 if member is None else member + 1
        elif len(fields) == 4 and fields[2] not in "bB" and int(fields[1], 16) > 0:
            found.append((member, fields[2], int(fields[1], 16), fields[3]))
    return found


def report_json(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def artifact(data: dict, name: str) -> dict:
    return next(item for item in data["artifacts"] if item["name"] == name)


@pytest.fixture(scope="module")
def reports(builds, tmp_path_factory) -> dict[str, dict]:
    """The stock build's report (which records it as the baseline), then the selective one's,
    with a cache of their own."""
    cache = tmp_path_factory.mktemp("cache")
    stock = write_size_report(builds["stock"], cache_root=cache)
    selective = write_size_report(builds["selective"], cache_root=cache)
    return {"stock": report_json(builds["stock"]), "selective": report_json(builds["selective"]),
            "recorded": stock.recorded, "cache": cache, "markdown": selective.markdown}


# --- sizes and baseline -----------------------------------------------------------------------


@pytest.mark.compiler
def test_sizes_are_the_files_and_the_saving_is_against_the_stock_build(builds, reports):
    selective = reports["selective"]
    assert selective["baseline"]["origin"] == "recorded" and selective["baseline"]["mismatches"] == []
    for name in (ARCHIVE, SHARED):
        now, stock = os.path.getsize(builds["selective"] / name), os.path.getsize(builds["stock"] / name)
        row = artifact(selective, name)
        assert (row["size"], row["baseline_size"], row["saved"]) == (now, stock, stock - now)
        assert 0 < now < stock
    assert f"| {ARCHIVE} | static-lib | {os.path.getsize(builds['stock'] / ARCHIVE):,} |" in reports["markdown"]


@pytest.mark.compiler
def test_the_stock_build_records_itself_under_its_tree_commit_target_and_flavour(builds, reports):
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=builds["tree"], capture_output=True, text=True).stdout.strip()
    key = BaselineKey(commit, "linux-x86_64", "makefile")
    assert reports["recorded"] == key.path(reports["cache"])
    record = json.loads(reports["recorded"].read_text())
    assert record["stock"] is True and record["key"] == {"commit": commit, "target": "linux-x86_64", "flavour": "makefile"}
    assert {a["name"]: a["size"] for a in record["artifacts"]} == {
        name: os.path.getsize(builds["stock"] / name) for name in (ARCHIVE, SHARED)
    }
    assert reports["stock"]["baseline"] is None
    assert reports["stock"]["baseline_status"].startswith(f"this is the stock build of tree {commit[:12]}")


@pytest.mark.compiler
def test_without_a_baseline_the_report_says_so_and_shows_only_sizes(builds, tmp_path):
    written = write_size_report(builds["selective"], cache_root=tmp_path / "empty-cache")
    assert written.report.baseline is None
    assert "- baseline: none: no stock build of tree" in written.markdown
    assert "--default-ops all" in written.markdown and "--baseline OUT_DIR" in written.markdown
    assert "baseline bytes" not in written.markdown and "saved" not in written.markdown
    data = json.loads(written.json)
    assert data["baseline"] is None and artifact(data, ARCHIVE)["baseline_size"] is None


@pytest.mark.compiler
def test_an_explicit_baseline_directory_is_used_and_a_selective_one_is_flagged(builds, tmp_path):
    given = write_size_report(builds["selective"], baseline_dir=builds["stock"], cache_root=tmp_path)
    assert given.report.baseline is not None and given.report.baseline.origin == "given"
    assert given.report.baseline_mismatches == ()
    assert artifact(json.loads(given.json), ARCHIVE)["baseline_size"] == os.path.getsize(builds["stock"] / ARCHIVE)
    itself = write_size_report(builds["selective"], baseline_dir=builds["selective"], cache_root=tmp_path)
    assert "it is a selective build itself, not a stock one" in itself.report.baseline_mismatches
    assert artifact(json.loads(itself.json), ARCHIVE)["saved"] == 0


# --- attribution --------------------------------------------------------------------------------


@pytest.mark.compiler
@pytest.mark.parametrize("build", ["stock", "selective"])
def test_archive_bytes_per_kernel_file_are_the_members_nm_sizes(builds, reports, build):
    per_source: dict[str, int] = defaultdict(int)
    members = (*FRAMEWORK, *KERNELS)  # the archive's members, in order
    for member, _, size, _ in nm_sizes(builds[build] / ARCHIVE):
        per_source[members[member]] += size
    attribution = artifact(reports[build], ARCHIVE)["attribution"]
    files = {row["file"]: row["bytes"] for row in attribution["files"]}
    assert files == {source: per_source[source] for source in KERNELS if per_source[source]}
    assert attribution["groups"]["framework"] == sum(per_source[source] for source in FRAMEWORK)
    assert per_source["tensorflow/core/ops/no_op.cc"] > 0 and per_source["tensorflow/core/kernels/no_op.cc"] > 0
    assert attribution["symbol_bytes"] == sum(per_source.values())
    assert sum(attribution["groups"].values()) + attribution["outside_symbols"] == os.path.getsize(builds[build] / ARCHIVE)


@pytest.mark.compiler
def test_the_selective_archive_keeps_the_selected_ops_files_and_drops_the_others(reports):
    selective = {row["file"]: row["ops"] for row in artifact(reports["selective"], ARCHIVE)["attribution"]["files"]}
    stock = {row["file"]: row["ops"] for row in artifact(reports["stock"], ARCHIVE)["attribution"]["files"]}
    kernels = "tensorflow/core/kernels/"
    assert "Relu" in selective[kernels + "relu_op.cc"] and "Relu6" not in selective[kernels + "relu_op.cc"]
    assert {"Add", "AddV2"} <= set(selective[kernels + "cwise_op_add_1.cc"])
    assert "Const" in selective[kernels + "constant_op.cc"] and selective[kernels + "no_op.cc"] == ["NoOp"]
    assert kernels + "cwise_op_sub.cc" not in selective and kernels + "bias_op.cc" not in selective
    assert selective[kernels + "cwise_ops_common.cc"] == [] == stock[kernels + "cwise_ops_common.cc"]
    assert "Sub" in stock[kernels + "cwise_op_sub.cc"] and {"BiasAdd", "BiasAddV1"} <= set(stock[kernels + "bias_op.cc"])
    assert {"Relu", "Relu6", "Elu"} <= set(stock[kernels + "relu_op.cc"])
    assert artifact(reports["selective"], ARCHIVE)["attribution"]["empty_kernel_files"] == 2


@pytest.mark.compiler
@pytest.mark.parametrize("build", ["stock", "selective"])
def test_shared_library_ops_are_their_kernel_classes_symbols(builds, reports, build):
    """Per symbol: Relu's bytes are those of every ``ReluOp<...>`` symbol (any dtype), as nm
    lists them here; the static initialiser names its file."""
    symbols = nm_sizes(builds[build] / SHARED, demangle=True)
    relu = sum(size for _, _, size, name in symbols if "ReluOp<" in name)
    attribution = artifact(reports[build], SHARED)["attribution"]
    ops = {tuple(row["ops"]): row for row in attribution["ops"]}
    assert relu > 0 and ops[("Relu",)]["bytes"] == relu
    assert ops[("Relu",)]["files"] == ["tensorflow/core/kernels/relu_op.cc"]
    assert ("Add", "AddV2") in ops
    assert (("Sub",) in ops) == (build == "stock")
    assert attribution["symbol_bytes"] == sum(size for *_, size, _ in symbols)


@pytest.mark.compiler
def test_the_models_are_shown_raw_and_deflated_as_a_zip_stores_them(builds, reports, tmp_path):
    """The app downloads the model beside the binary: its size, and its size in a zip (the
    oracle: Python's zipfile, deflate at its default level, as an APK stores it)."""
    model = builds["selective"] / "model.pbtxt"
    with zipfile.ZipFile(tmp_path / "app.zip", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.write(model, "model.pbtxt")
        stored = archive.getinfo("model.pbtxt").compress_size
    (shown,) = reports["selective"]["models"]
    assert {key: shown[key] for key in ("name", "size", "deflated")} == {
        "name": "model.pbtxt", "size": model.stat().st_size, "deflated": stored}
    # How to time it: the build has no benchmark program, so TensorFlow's, fed the graph's
    # placeholders and fetching what no node reads (test_benchmark_command.py runs such commands).
    graph = model.read_text()
    placeholders = re.findall(r'name: "(\w+)"\s*op: "Placeholder"', graph)
    argv = shown["benchmark"]["argv"]
    assert argv[:3] == ["benchmark_model", f"--graph={model}", f"--input_layer={','.join(placeholders)}"]
    assert 0 < stored < model.stat().st_size
    assert f"| model.pbtxt | {model.stat().st_size:,} | {stored:,} |" in reports["markdown"]


@pytest.mark.compiler
def test_report_command_prints_markdown_or_json_and_writes_three_files(builds, tmp_path):
    env = {**os.environ, "TFBUILD_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "tfbuild", "report", "--out", str(builds["selective"])]
    done = subprocess.run([*argv, "--baseline", str(builds["stock"])], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Size report: linux-x86_64 (makefile)") and "## Artifacts" in done.stdout
    assert "### Kernel files" in done.stdout and "tensorflow/core/kernels/relu_op.cc" in done.stdout
    # Piped (as in a CI log): Markdown tables, no box-drawing characters, no line longer than its longest row.
    assert not any("\u2500" <= char <= "\u257f" for char in done.stdout)
    assert max(map(len, done.stdout.splitlines())) == max(
        len(line) for line in done.stdout.splitlines() if line.startswith(("|", "#", "-", "Read", "Kernel")))
    for name in ("report.md", "report.html", "report.json"):
        assert f"wrote {builds['selective'] / name}" in done.stderr
    as_json = subprocess.run([*argv, "--json"], capture_output=True, text=True, env=env)
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["target"] == "linux-x86_64"
    missing = subprocess.run([*argv[:-1], str(tmp_path / "nothing")], capture_output=True, text=True, env=env)
    assert missing.returncode == 3 and "no manifest" in missing.stderr


# --- the HTML page in a real browser ------------------------------------------------------------


@pytest.mark.compiler
@pytest.mark.chromium
def test_the_html_page_renders_its_charts_in_headless_chromium(builds, reports, tmp_path):
    written = write_size_report(builds["selective"], cache_root=reports["cache"])  # against the recorded stock build
    page = next(path for path in written.files if path.suffix == ".html").resolve().as_uri()
    browser = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*browser, "--dump-dom", page], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    ids = re.findall(r'<g id="([a-z0-9-]+-(?:bar|baseline)-\d+)"', dom.stdout)
    assert sorted(i for i in ids if i.startswith("artifacts-bar-")) == ["artifacts-bar-0", "artifacts-bar-1"]
    assert len([i for i in ids if i.startswith("artifacts-baseline-")]) == 2
    files = artifact(reports["selective"], ARCHIVE)["attribution"]["files"]
    assert len([i for i in ids if i.startswith("where-0-bar-")]) == len(files) + 4  # + the four groups
    assert dom.stdout.count("<svg") == 3 and "Baseline: the stock build in" in dom.stdout

    shot = tmp_path / "report.png"
    done = subprocess.run([*browser, f"--screenshot={shot}", "--window-size=1000,1400", page],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    from PIL import Image  # matplotlib's own dependency

    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=image.width * image.height) or []
    inked = sum(count for count, colour in colours if colour != (255, 255, 255))
    bars = sum(count for count, colour in colours if all(abs(a - b) <= 8 for a, b in zip(colour, BAR_BLUE, strict=True)))
    assert inked > image.width * image.height // 50, "the page is (nearly) blank"
    assert bars > 200, "no chart bars were painted"


# --- reading symbols for the right machine ------------------------------------------------------


EM_X86_64, EM_AARCH64, EM_ARM = 62, 183, 40  # ELF e_machine, as the ELF specification numbers them


def test_the_architecture_records_carry_the_elf_machine_numbers():
    records = architectures()
    assert (records["x86_64"].elf_machine, records["aarch64"].elf_machine, records["armv7"].elf_machine) == (
        EM_X86_64, EM_AARCH64, EM_ARM)
    assert ObjectKind("elf", EM_AARCH64, archive=True).describe() == "ELF aarch64 archive"
    unknown = 1 + max(record.elf_machine for record in records.values())
    assert ObjectKind("elf", unknown, archive=False).describe() == f"ELF machine {unknown}"
    assert nm_candidates(ObjectKind("elf", unknown, archive=False), "x86_64") == ("llvm-nm-19", "llvm-nm")


def test_a_missing_nm_names_the_architectures_binutils(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolchainError, match="no nm for ELF aarch64 archive") as caught:
        find_nm(ObjectKind("elf", EM_AARCH64, archive=True), tmp_path / "lib.a")
    assert caught.value.hint == "install Debian's binutils-aarch64-linux-gnu or llvm, or pass --nm"


def test_nm_is_chosen_by_the_artifacts_machine():
    x86, arm64, arm = (ObjectKind("elf", machine, archive=True) for machine in (EM_X86_64, EM_AARCH64, EM_ARM))
    assert nm_candidates(x86, "x86_64")[0] == "nm"
    assert nm_candidates(arm64, "x86_64") == ("aarch64-linux-gnu-nm", "llvm-nm-19", "llvm-nm")
    assert nm_candidates(arm, "x86_64") == ("arm-linux-gnueabihf-nm", "llvm-nm-19", "llvm-nm")
    assert nm_candidates(arm64, "aarch64")[0] == "nm" and nm_candidates(x86, "aarch64")[0] == "x86_64-linux-gnu-nm"
    assert nm_candidates(ObjectKind("mach-o", None, archive=False), "x86_64")[-1] == "llvm-nm"


@pytest.mark.compiler
def test_object_kind_reads_archives_and_executables(builds):
    assert object_kind(builds["selective"] / ARCHIVE) == ObjectKind("elf", EM_X86_64, archive=True)
    assert object_kind(builds["selective"] / SHARED) == ObjectKind("elf", EM_X86_64, archive=False)
    assert object_kind(builds["selective"] / "manifest.json").format == "unknown"


@pytest.mark.cross
def test_an_aarch64_archive_is_read_with_the_aarch64_nm(builds, tmp_path):
    out = compile_build(builds["tree"], tmp_path / "arm64", stock=False, cxx="aarch64-linux-gnu-g++",
                        ar="aarch64-linux-gnu-ar", shared=False)
    table = read_symbols(out / ARCHIVE)
    assert table.kind == ObjectKind("elf", EM_AARCH64, archive=True)
    assert Path(table.tool).name == "aarch64-linux-gnu-nm"
    written = write_size_report(out, cache_root=tmp_path / "cache")
    files = {row["file"]: row["ops"] for row in artifact(json.loads(written.json), ARCHIVE)["attribution"]["files"]}
    assert "Relu" in files["tensorflow/core/kernels/relu_op.cc"]
    assert "tensorflow/core/kernels/cwise_op_sub.cc" not in files


# --- demangled names to kernel classes ----------------------------------------------------------


@pytest.mark.parametrize("symbol, owner", [
    ("tensorflow::ReluOp<Eigen::ThreadPoolDevice, float>::Compute(tensorflow::OpKernelContext*)",
     "tensorflow::ReluOp<Eigen::ThreadPoolDevice, float>"),
    ("vtable for tensorflow::BinaryOp<Eigen::ThreadPoolDevice, tensorflow::functor::add<float> >",
     "tensorflow::BinaryOp<Eigen::ThreadPoolDevice, tensorflow::functor::add<float> >"),
    ("void tensorflow::Foo<int>::run<long>(int (*)(char), std::vector<int, std::allocator<int> >) const [clone .cold]",
     "tensorflow::Foo<int>"),
    ("tensorflow::Bar<int>::operator()(int) const", "tensorflow::Bar<int>"),
    ("tensorflow::Bar<int>::operator<<(int)", "tensorflow::Bar<int>"),
    ("non-virtual thunk to tensorflow::Baz::~Baz()", "tensorflow::Baz"),
])
def test_the_class_of_a_demangled_symbol(symbol, owner):
    assert symbol_owners(symbol)[0] == owner


def test_free_functions_have_no_class():
    assert symbol_owners("TfStandinRegisteredKernels") == []
    assert symbol_owners("main") == []


@pytest.mark.parametrize("demangled, registered", [
    ("tensorflow::ReluOp<Eigen::ThreadPoolDevice, long long>", "ReluOp<CPUDevice, int64>"),
    ("tensorflow::ReluOp<Eigen::ThreadPoolDevice, long>", "ReluOp<CPUDevice, ::tensorflow::int64>"),
    ("tensorflow::BiasOp<Eigen::ThreadPoolDevice, Eigen::half>", "BiasOp<CPUDevice, Eigen::half>"),
    ("tensorflow::FillOp<Eigen::ThreadPoolDevice, std::complex<float>, int>", "FillOp<CPUDevice, complex64, int32>"),
    ("tensorflow::MatMulOp<Eigen::ThreadPoolDevice, float, false>", "MatMulOp<CPUDevice, float, false >"),
    ("tensorflow::BinaryOp<Eigen::ThreadPoolDevice, tensorflow::functor::add<unsigned char> >",
     "BinaryOp<CPUDevice, functor::add<uint8>>"),
])
def test_demangled_and_registered_spellings_of_a_class_meet(demangled, registered):
    assert normalize_class(demangled) == normalize_class(registered)


# --- the build's own report -----------------------------------------------------------------------


OPS_LIST = [["Const", "ConstantOp"], ["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]


@pytest.mark.tensorflow
@pytest.mark.compiler
def test_a_stock_build_records_the_baseline_a_selective_build_is_reported_against(tmp_path):
    tree = make_tf1_tree(tmp_path / "tf1")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout.strip()
    model = tmp_path / "ops.json"
    model.write_text(json.dumps(OPS_LIST))
    env = {**os.environ, "TFBUILD_CACHE_DIR": str(tmp_path / "cache")}

    def build(out: str, default_ops: str) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--source", str(tree),
                "--model", str(model), "--local", "--out", str(tmp_path / out), "--jobs", "2",
                "--default-ops", default_ops]
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    stock = build("stock", "all")
    assert f"this is the stock build of tree {base[:12]}, linux-x86_64, makefile" in stock.stdout
    assert BaselineKey(base, "linux-x86_64", "makefile").path(Path(env["TFBUILD_CACHE_DIR"])).is_file()

    selective = build("selective", "NoOp:NoOp")
    manifest = json.loads((tmp_path / "selective" / "manifest.json").read_text())
    assert manifest["tensorflow"]["commit"] == base  # the user's commit; tfbuild's is recorded beside it
    assert manifest["tensorflow"]["work_commit"] not in (None, base)
    data = report_json(tmp_path / "selective")
    assert data["commit"] == base and data["baseline"]["origin"] == "recorded"
    assert data["baseline"]["output_dir"] == str(tmp_path / "stock")
    for name in ("libtensorflow-core.a", "benchmark"):
        row = artifact(data, name)
        stock_size = os.path.getsize(tmp_path / "stock" / name)
        assert (row["baseline_size"], row["size"]) == (stock_size, os.path.getsize(tmp_path / "selective" / name))
        assert row["saved"] > 0
        assert f"| {name} | " in selective.stdout
    files = {row["file"]: row["ops"] for row in artifact(data, "libtensorflow-core.a")["attribution"]["files"]}
    assert "Relu" in files["tensorflow/core/kernels/relu_op.cc"]
    assert "tensorflow/core/kernels/cwise_op_sub.cc" not in files
    assert f"report: {tmp_path / 'selective' / 'report.md'}" in selective.stdout
