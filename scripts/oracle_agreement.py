"""How exactly tfbuild reads a tree, against TensorFlow itself at the tree's version.

    python scripts/oracle_agreement.py --source TREE --python ORACLE_PYTHON MODEL.pb ...

Two comparisons, model by model:

- headers: the ops and kernel classes ``tfbuild header --source TREE`` names, against those of
  the oracle's ``print_selective_registration_header``, out of all either names;
- pairs: for every op the models use, the (device, class) pairs of the CPU and DEFAULT kernels
  the tree's index holds (those a build without extra -D flags compiles), against the oracle's
  kernel registry (``tfbuild.model.registry_dump`` run in the oracle Python).

ORACLE_PYTHON is a Python whose TensorFlow is the tree's version (scripts/install-oracle-
tensorflow.sh makes one for 2.14; a .venv with the same release as the tree also serves). Its
``print_selective_registration_header`` reads each GraphDef, tfbuild reads the tree; the default
ops are the same on both sides. Class strings are compared without spaces, as the header's
``isequal`` compares them; ``--int-spelling`` also takes ``::tensorflow::int32`` and ``::int32_t``
as one, for a tree from a commit between two releases whose register_types.h spells them
differently from the oracle's release. Exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tfbuild.cpp.conditions import evaluate  # noqa: E402
from tfbuild.model.analysis import analyze_loaded  # noqa: E402
from tfbuild.model.formats import load_model  # noqa: E402
from tfbuild.model.header import parse_header  # noqa: E402
from tfbuild.model.kernel_registry import KernelRegistry  # noqa: E402
from tfbuild.tree.kernel_index import build_kernel_index  # noqa: E402


def spelled(kernel_class: str, ints: bool) -> str:
    """A class string without spaces (and, with ``ints``, one spelling of the integers)."""
    text = "".join(kernel_class.split())
    if ints:
        text = re.sub(r"::tensorflow::(u?int(?:8|16|32|64))\b", r"\1", text)
        text = re.sub(r"(?<![\w:])::(u?int(?:8|16|32|64))_t\b", r"\1", text)
        text = re.sub(r"\b(u?int(?:8|16|32|64))_t\b", r"\1", text)
    return text


def selection(header_text: str, ints: bool) -> tuple[set[str], set[str]]:
    """The ops and the kernel classes (without spaces) a header keeps."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ops_to_register.h"
        path.write_text(header_text)
        contents = parse_header(path)
    return set(contents.ops), {spelled(c, ints) for c in contents.kernel_classes}


def compare_pairs(source: Path, python: str, models: list[Path], env: dict[str, str], ints: bool) -> bool:
    """Print the pairs comparison for the ops of ``models``; True when they all agree."""
    with tempfile.TemporaryDirectory() as directory:
        dump = Path(directory) / "registry.json"
        subprocess.run([python, "-m", "tfbuild.model.registry_dump", str(dump)], check=True,
                       env={**env, "PYTHONPATH": str(REPO)}, capture_output=True)
        registry = KernelRegistry(json.loads(dump.read_text()))
    index = build_kernel_index(source)
    ops = sorted({r.op for r in analyze_loaded([load_model(m) for m in models]).ops})

    def built(guard: str | None) -> bool:
        return guard is None or bool(evaluate(guard, lambda name: False, lambda name: 0))

    equal = total = 0
    differing = []
    for op in ops:
        ours = {(r.device, spelled(r.kernel_class, ints)) for r in index.registrations_for_op(op) if built(r.guard)}
        theirs = {(r.device_type, spelled(r.kernel_class or "", ints)) for r in registry.registrations(op)}
        equal, total = equal + len(ours & theirs), total + len(ours | theirs)
        if ours != theirs:
            differing.append(f"{op}: tree only {sorted(ours - theirs)[:2]}, "
                             f"TensorFlow only {sorted(theirs - ours)[:2]}")
    print(f"pairs: {len(ops)} ops, {len(ops) - len(differing)} with equal pairs; pairs equal {equal}/{total}")
    for line in differing:
        print(f"  {line}")
    return not differing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--python", required=True, help="the oracle TensorFlow's python")
    parser.add_argument("--int-spelling", action="store_true",
                        help="take ::tensorflow::int32 and ::int32_t as one spelling")
    parser.add_argument("models", nargs="+", type=Path)
    args = parser.parse_args()
    tfbuild = Path(sys.executable).with_name("tfbuild")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    differing = 0
    print(f"{'model':<22} {'ops equal/all':>14} {'classes equal/all':>18}  differences")
    for model in args.models:
        with tempfile.TemporaryDirectory() as directory:
            ours_path = Path(directory) / "ours.h"
            subprocess.run([str(tfbuild), "-q", "header", str(model), "--source", str(args.source),
                            "-o", str(ours_path)], check=True, env=env, capture_output=True)
            ours_text = ours_path.read_text()
        theirs_text = subprocess.run(
            [args.python, "-m", "tensorflow.python.tools.print_selective_registration_header",
             f"--graphs={model.resolve()}"], check=True, env=env, capture_output=True, text=True).stdout
        our_ops, our_classes = selection(ours_text, args.int_spelling)
        their_ops, their_classes = selection(theirs_text, args.int_spelling)
        only = [f"tfbuild only: {x}" for x in sorted((our_ops - their_ops) | (our_classes - their_classes))]
        only += [f"TF only: {x}" for x in sorted((their_ops - our_ops) | (their_classes - our_classes))]
        differing += bool(only)
        print(f"{model.name:<22} {len(our_ops & their_ops):>6}/{len(our_ops | their_ops):<7} "
              f"{len(our_classes & their_classes):>9}/{len(our_classes | their_classes):<8}  {'; '.join(only[:4])}")
    same_pairs = compare_pairs(args.source, args.python, args.models, env, args.int_spelling)
    return 1 if differing or not same_pairs else 0


if __name__ == "__main__":
    sys.exit(main())
