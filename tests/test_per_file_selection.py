"""Per-file selective registration (``--per-file-selection``), for real: the generated TF 1.x
tree built with the contrib Makefile, real make and g++, for two apps.

- The binaries register exactly the kernels of the one-header build, for both apps (the
  benchmark prints its registry), and ``tfbuild verify`` passes on the per-file build.
- The second app on the same tree recompiles only the sources whose own selection changed
  (counted by make's dry run and the compiler lines in the log), where the one-header build
  recompiles every kernel and op source.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from treegen import make_tf1_tree

APP_A = [["Relu", "ReluOp<CPUDevice, float>"], ["Add", "BinaryOp<CPUDevice, functor::add<float>>"]]
APP_B = [["Relu", "ReluOp<CPUDevice, float>"], ["Sqrt", "UnaryOp<CPUDevice, functor::sqrt<float>>"]]
IDENTITY = (
    'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }\n'
    '  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }\n'
    'node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n'
)

pytestmark = [pytest.mark.compiler, pytest.mark.tensorflow]


def tfbuild(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True)


def build(tree: Path, out: Path, app: list[list[str]], identity: Path, *more: str) -> tuple[set[str], list[str]]:
    """Build ``app`` (and the Identity graph); the kernel and op sources compiled, and the
    kernels the benchmark registers."""
    ops = out.with_suffix(".json")
    ops.write_text(json.dumps(app))
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
                   "--model", str(identity), "--model", str(ops), "--default-ops", "NoOp:NoOp", "--local",
                   "--out", str(out), "--jobs", "2", *more)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "linux-x86_64.build.log").read_text()
    compiled = set(re.findall(r" -c (tensorflow/core/(?:kernels|ops)/\S+\.cc)", log))
    listing = subprocess.run([str(out / "benchmark")], capture_output=True, text=True, check=True).stdout
    return compiled, sorted(line for line in listing.splitlines() if line.startswith("kernel\t"))


def test_a_second_app_recompiles_only_the_sources_whose_selection_changed(tmp_path):
    identity = tmp_path / "identity.pbtxt"
    identity.write_text(IDENTITY)
    one, per_file = make_tf1_tree(tmp_path / "one"), make_tf1_tree(tmp_path / "per-file")

    all_sources, one_a = build(one, tmp_path / "one-a", APP_A, identity)
    first, per_file_a = build(per_file, tmp_path / "per-file-a", APP_A, identity, "--per-file-selection")
    assert per_file_a == one_a and first == all_sources
    assert any("\tAdd\t" in line for line in one_a) and not any("\tSqrt\t" in line for line in one_a)
    # IdentityOp also serves StopGradient, which the app does not use: register_kernel::Name
    # renames that kernel at run time, in both builds.
    assert any("\tIdentity\t" in line for line in one_a) and not any("\tStopGradient\t" in line for line in one_a)

    recompiled_one, one_b = build(one, tmp_path / "one-b", APP_B, identity)
    recompiled, per_file_b = build(per_file, tmp_path / "per-file-b", APP_B, identity, "--per-file-selection")
    assert per_file_b == one_b
    assert any("\tSqrt\t" in line for line in one_b) and not any("\tAdd\t" in line for line in one_b)
    assert recompiled_one == all_sources  # one header: every kernel and op source sees the change
    # Per file: Add's and Sqrt's kernel files and the op file defining both; nothing else.
    assert recompiled == {
        "tensorflow/core/kernels/cwise_op_add_1.cc", "tensorflow/core/kernels/cwise_op_add_2.cc",
        "tensorflow/core/kernels/cwise_op_sqrt.cc", "tensorflow/core/ops/math_ops.cc",
    }
    log = (tmp_path / "per-file-b" / "linux-x86_64.build.log").read_text()
    # ... and the app's op list, which register_kernel::Name asks at run time.
    assert "tensorflow/contrib/makefile/gen/tfbuild_selection/app_selection.cc" in log
    # The five, and version_info.cc, which the tree's Makefile writes anew on every run (gen_git_source.sh).
    assert "    6 objects to compile (make -n)" in log

    # The tree's header dispatches and names no op: the same for both apps.
    tree_header = per_file / "tensorflow/core/framework/ops_to_register.h"
    assert "#include TFBUILD_SELECTION_HEADER" in tree_header.read_text() and "Sqrt" not in tree_header.read_text()
    sqrt = per_file / "tensorflow/contrib/makefile/gen/tfbuild_selection/tensorflow/core/kernels/cwise_op_sqrt.h"
    assert '"UnaryOp<CPUDevice, functor::sqrt<float>>"' in sqrt.read_text()

    done = tfbuild("verify", "--out", str(tmp_path / "per-file-b"), "--model", str(identity))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]


def test_per_file_selection_is_refused_for_bazel(tmp_path, pristine_trees):
    identity = tmp_path / "identity.pbtxt"
    identity.write_text(IDENTITY)
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", "bazel", "--source", str(pristine_trees["tf1"]),
                   "--model", str(identity), "--out", str(tmp_path / "out"), "--per-file-selection", "--dry-run")
    assert done.returncode == 2
    assert "per-file selection is for the Makefile flavour, not bazel" in done.stderr
    assert not (tmp_path / "out").exists()


NAME_H = """\
// register_kernel::Name as TensorFlow's op_kernel.h has it: an inline constructor that asks
// SHOULD_REGISTER_OP at run time, compiled by every kernel file with that file's own header.
struct Name {
  const char* op;
  explicit Name(const char* requested) : op(SHOULD_REGISTER_OP(requested) ? requested : "_no_register") {}
};
"""


@pytest.mark.parametrize("compiler", ["g++", "clang++-19"])
def test_a_kernel_keeps_its_op_when_the_linker_keeps_another_files_inline_copy(tmp_path, compiler):
    """The linker keeps one copy of an inline function for the whole program. Two kernel files,
    each compiled with its own per-file header behind the tree's dispatcher (the real
    templates), call Name's constructor at -O0 (out of line, as in TensorFlow's big static
    initializers). Each must keep its own op, and an op the app does not use must be renamed
    "_no_register" whichever copy the linker kept, as the one-header build does.
    Found on the real r1.9 tree: with answers that differ per file, the second file's op became
    "_no_register" (no Placeholder kernel); answering "yes" at run time instead registered the
    kernels of unused ops that share a selected class (PlaceholderV2 here)."""
    from tfbuild.pipeline.flavours.per_file_selection import FileSelection, PerFileSelection

    selection = PerFileSelection(
        files=(FileSelection("a.cc", ("Placeholder",), ("PlaceholderOp",)), FileSelection("b.cc", ("Relu",), ("ReluOp",))),
        ops=("Placeholder", "Relu"), register_gradients=False, op_granularity=False,
    )
    for path, text in selection.headers(tmp_path, "selection").items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "ops_to_register.h").write_text(selection.dispatcher())
    (tmp_path / "app_selection.cc").write_text(selection.app_source())
    (tmp_path / "name.h").write_text(NAME_H)
    for name, op, other in (("a", "Placeholder", "Relu"), ("b", "Relu", "Placeholder")):
        (tmp_path / f"{name}.cc").write_text(
            '#include "ops_to_register.h"\n#include "name.h"\n'
            f'static_assert(SHOULD_REGISTER_OP("{op}") && !SHOULD_REGISTER_OP("{other}"), "its own list when compiled");\n'
            f'const char* registered_{name}() {{ return Name("{op}").op; }}\n'
            f'const char* unused_{name}() {{ return Name("{op}V2").op; }}\n'
        )
    (tmp_path / "main.cc").write_text(
        '#include <cstdio>\nconst char* registered_a();\nconst char* registered_b();\n'
        'const char* unused_a();\nconst char* unused_b();\n'
        'int main() { std::printf("%s %s %s %s\\n", registered_a(), registered_b(), unused_a(), unused_b()); }\n'
    )
    objects = []
    for name in ("a", "b"):
        subprocess.run([compiler, "-std=c++11", "-O0", "-I.", "-DTFBUILD_APP_SELECTION",
                        f"-DTFBUILD_SELECTION_HEADER=\"selection/{name}.h\"", "-c", f"{name}.cc"],
                       cwd=tmp_path, check=True, capture_output=True, text=True)
        objects.append(f"{name}.o")
    for order in (objects, objects[::-1]):
        program = tmp_path / "program"
        subprocess.run([compiler, "-std=c++11", "-O0", *order, "app_selection.cc", "main.cc", "-o", str(program)],
                       cwd=tmp_path, check=True, capture_output=True, text=True)
        ran = subprocess.run([str(program)], capture_output=True, text=True, check=True)
        assert ran.stdout.split() == ["Placeholder", "Relu", "_no_register", "_no_register"], order
