"""Every command's output through a pipe (a CI log, ``| grep``) is plain: no box characters, no
rule lines, nothing wrapped at 80 columns, no trailing blanks; a table's lines are no longer than
its longest cells side by side.

Each command runs as its own process with stdout a pipe, on real small inputs: the bundled
example model, a generated TensorFlow tree (tests/treegen.py), a finished build's manifest
(tests/manifests.py), the examples/ci tfbuild.toml.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import treegen
from example_run import example_run
from manifests import write_manifest

from tfbuild.cache import CACHE_DIR_ENV

REPO = Path(__file__).resolve().parent.parent
MODEL = REPO / "examples" / "custom_ops" / "model.pbtxt"
BOX = re.compile("[\u2500-\u257f]")
SEPARATOR = 2  # columns are two spaces apart in plain tables


def tfbuild(*args: str, cwd: Path | None = None, ok: tuple[int, ...] = (0,)) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TFBUILD_") or key == CACHE_DIR_ENV}
    env["COLUMNS"] = "80"  # a terminal's width must not leak into a pipe's output
    done = subprocess.run([sys.executable, "-m", "tfbuild", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)
    assert done.returncode in ok, f"tfbuild {' '.join(args)} exited {done.returncode}\n{done.stderr}"
    return done.stdout


def assert_plain(stdout: str, *, widest: int, whole: tuple[str, ...] = ()) -> None:
    """No box-drawing character, no line wider than ``widest``, no trailing blanks, and each of
    ``whole`` on one line (not split by wrapping)."""
    assert stdout.strip(), "nothing printed"
    boxed = [line for line in stdout.splitlines() if BOX.search(line)]
    assert not boxed, boxed[:3]
    long = [line for line in stdout.splitlines() if len(line) > widest]
    assert not long, f"{len(long)} line(s) wider than {widest}: {long[:2]}"
    assert not [line for line in stdout.splitlines() if line != line.rstrip()]
    for value in whole:
        assert any(value in line for line in stdout.splitlines()), f"{value!r} not on one line"


def table_width(rows: list[tuple[str, ...]]) -> int:
    """The width of ``rows`` as a plain table: the longest line of each column, side by side."""
    widths = [max(max(map(len, str(cell).splitlines() or [""])) for cell in column) for column in zip(*rows, strict=True)]
    return sum(widths) + SEPARATOR * (len(widths) - 1)


def test_analyze(tmp_path):
    analysis = json.loads(tfbuild("analyze", str(MODEL), "--json"))
    stdout = tfbuild("analyze", str(MODEL))
    ops = [(op["op"], *op["kernel_classes"], ", ".join(op["dtypes"]), "nodes", *op["models"]) for op in analysis["ops"]]
    problems = [(p["op"], p["node"], p["model"], p["message"]) for p in analysis["problems"]]
    widest = max(table_width([("op", "kernel classes", "dtypes", "nodes", "models"), *[
        (op["op"], max(op["kernel_classes"] or ["(none)"], key=len), ", ".join(op["dtypes"]), "nodes",
         max(op["models"], key=len)) for op in analysis["ops"]]]),
        table_width([("op", "node", "model", "problem"), *problems]),
        len(f"Ops ({analysis['tensorflow_version']} kernel names)"))
    # The benchmark program's command line is one line, however long, ready to paste.
    benchmarks = tuple(f"  benchmark: {shlex.join(graph['benchmark']['argv'])}"
                       + (f" ({graph['benchmark']['note']})" if graph["benchmark"]["note"] else "")
                       for model in analysis["models"] for graph in model.get("graphs", ()) if "benchmark" in graph)
    assert benchmarks
    widest = max(widest, *map(len, benchmarks))
    assert_plain(stdout, widest=widest, whole=tuple(p[3] for p in problems) + tuple(o[0] for o in ops) + benchmarks)


def test_config_show_and_plan(tmp_path):
    (tmp_path / "tfbuild.toml").write_text('[build]\ntarget = "linux-x86_64"\n[header]\ngranularity = "op"\n')
    stdout = tfbuild("config", "show", cwd=tmp_path)
    document = json.loads(tfbuild("config", "show", "--json", cwd=tmp_path))
    rows = [("option", "value", "from"), *[
        (name, " ".join(map(str, entry["value"])) if isinstance(entry["value"], list) else str(entry["value"]),
         entry["origin"]) for name, entry in document["options"].items()]]
    title = f"tfbuild options ({document['config_file']})"
    assert_plain(stdout, widest=max(table_width(rows), len(title)), whole=(title, str(tmp_path / "tfbuild-out")))

    config = REPO / "examples" / "ci" / "tfbuild.toml"
    stdout = tfbuild("plan", "--config", str(config))
    matrix = json.loads(tfbuild("plan", "--config", str(config), "--json"))["include"]
    commands = [f"tfbuild build --app {row['app']} --target {row['target']}" for row in matrix]
    rows = [("app", "target", "command"), *[(row["app"], row["target"], c) for row, c in zip(matrix, commands, strict=True)]]
    assert_plain(stdout, widest=max(table_width(rows), len(f"tfbuild plan ({config})")), whole=tuple(commands))


def test_targets():
    stdout = tfbuild("targets")
    targets = json.loads(tfbuild("targets", "--json"))
    descriptions = tuple(target["description"] for target in targets)
    rows = [(t["name"], f"{t['platform']} {t['arch']}", ", ".join(t["flavours"]), t["builds_here_detail"],
             t["description"]) for t in targets]
    assert_plain(stdout, widest=table_width([("target", "platform", "flavours", "builds here", "description"), *rows]),
                 whole=descriptions)


def test_linkflags_prints_headings_not_rules(tmp_path):
    artifacts = write_manifest(tmp_path / "out", target="linux-x86_64")
    stdout = tfbuild("linkflags", "--target", "linux-x86_64", "--artifacts", str(artifacts),
                     "--out-dir", str(tmp_path / "snippets"), cwd=tmp_path)
    assert len(stdout) < 20_000, len(stdout)
    written = sorted((tmp_path / "snippets").iterdir())
    assert written
    widest = max(len(line) for path in written for line in path.read_text().splitlines())
    assert_plain(stdout, widest=max(widest, 200), whole=tuple(f"==> {path.name} <==" for path in written))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return treegen.make_tf1_tree(tmp_path_factory.mktemp("piped") / "tf", tags=False)


def test_kernels_and_source_on_a_generated_tree(tree):
    stdout = tfbuild("kernels", "Conv2D", "MatMul", "--source", str(tree))
    described = json.loads(tfbuild("kernels", "Conv2D", "MatMul", "--source", str(tree), "--json"))
    values = [value for op in described["ops"] for key in ("files", "headers", "kernel_classes", "guards", "devices")
              for value in op[key]]
    assert_plain(stdout, widest=2 + 8 + 1 + max(map(len, values)), whole=tuple(values))
    stdout = tfbuild("source", "--source", str(tree))
    assert_plain(stdout, widest=200, whole=(str(tree),))


@pytest.mark.compiler
@pytest.mark.tensorflow
def test_example(tmp_path_factory):
    run = example_run(tmp_path_factory).check()
    kernel_classes = re.findall(r"ExampleScaleOp<[^>]*>", run.stdout)
    assert kernel_classes, run.stdout
    assert_plain(run.stdout, widest=200, whole=tuple(kernel_classes))
    compiles = [line for line in run.stdout.splitlines() if line.startswith("compiled ")]
    assert compiles and all("compiler output in " in line for line in compiles), run.stdout
    assert "warning:" not in run.stdout  # the compiler's own lines stay in its logs
    assert len(run.stdout.splitlines()) < 60, len(run.stdout.splitlines())
    for line in compiles:
        assert Path(line.rsplit("compiler output in ", 1)[1]).is_file()


@pytest.mark.docker  # it lists the engine's images
def test_toolchain_list():
    env = {key: value for key, value in os.environ.items() if not key.startswith("TFBUILD_") or key == CACHE_DIR_ENV}
    done = subprocess.run([sys.executable, "-m", "tfbuild", "toolchain", "list"], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert rows and all(len(row) == 4 for row in rows), done.stdout
    widest = sum(max(len(row[column]) for row in rows) for column in range(4)) + 3 * SEPARATOR + len("Package record")
    assert_plain(done.stdout, widest=widest, whole=tuple(row[1] for row in rows))
