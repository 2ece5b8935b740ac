"""How exactly ``tfbuild header --source TREE`` matches TensorFlow's own header tool of the
tree's version, model by model: prints the ops and the kernel classes both headers name, out of
all either names.

    python scripts/oracle_agreement.py --source TREE --python ORACLE_PYTHON MODEL.pb ...

ORACLE_PYTHON is a Python whose TensorFlow is the tree's version (scripts/install-oracle-
tensorflow.sh makes one for 2.14; a .venv with the same release as the tree also serves). Its
``print_selective_registration_header`` reads each GraphDef, tfbuild reads the tree; the default
ops are the same on both sides. Class strings are compared without spaces, as the header's
``isequal`` compares them. Exit status 1 when a model's pairs differ.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tfbuild.model.header import parse_header  # noqa: E402


def selection(header_text: str) -> tuple[set[str], set[str]]:
    """The ops and the kernel classes (without spaces) a header keeps."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "ops_to_register.h"
        path.write_text(header_text)
        contents = parse_header(path)
    return set(contents.ops), {"".join(c.split()) for c in contents.kernel_classes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--python", required=True, help="the oracle TensorFlow's python")
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
        (our_ops, our_classes), (their_ops, their_classes) = selection(ours_text), selection(theirs_text)
        only = [f"tfbuild only: {x}" for x in sorted((our_ops - their_ops) | (our_classes - their_classes))]
        only += [f"TF only: {x}" for x in sorted((their_ops - our_ops) | (their_classes - our_classes))]
        differing += bool(only)
        print(f"{model.name:<22} {len(our_ops & their_ops):>6}/{len(our_ops | their_ops):<7} "
              f"{len(our_classes & their_classes):>9}/{len(our_classes | their_classes):<8}  {'; '.join(only[:4])}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
