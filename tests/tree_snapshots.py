"""What the build-safety tests compare before and after a command: a source tree's every file,
branch and commit, and the small model whose one kernel file no build list names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

MIN_CLASS = "ReductionOp<CPUDevice, float, int32, Eigen::internal::MinReducer<float>>"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def snapshot(root: Path) -> dict[str, object]:
    """Everything a build could change: every file outside .git (untracked and ignored ones
    too), the checked-out branch and commit, and the branches."""
    files = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }
    return {
        "files": files,
        "branch": git(root, "rev-parse", "--abbrev-ref", "HEAD"),
        "head": git(root, "rev-parse", "HEAD"),
        "branches": git(root, "branch", "--format=%(refname:short)"),
        "status": git(root, "status", "--porcelain", "--untracked-files=all", "--ignored"),
    }


def write_min_model(directory: Path) -> Path:
    """A JSON ops list of Min (whose kernel file no build list of the generated tree names) and Const."""
    model = directory / "model_ops.json"
    model.write_text(json.dumps([["Min", MIN_CLASS], ["Const", "ConstantOp"]]))
    return model
