"""Helpers shared by tests: locating test-only tools. Fixture builders live in their own modules
(``treegen`` for TensorFlow-shaped source trees, ``modelgen`` for generated models)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def bazel_binary() -> str | None:
    """The Bazel the tests use: $TFBUILD_TEST_BAZEL, else the npm package installed by .ci/run
    under ``~/.cache/tfbuild/bazel``, else ``bazel`` on PATH."""
    explicit = os.environ.get("TFBUILD_TEST_BAZEL")
    if explicit:
        return explicit if Path(explicit).exists() else None
    npm_root = Path.home() / ".cache" / "tfbuild" / "bazel" / "node_modules" / "@bazel" / "bazel-linux_x64"
    candidates = sorted(npm_root.glob("bazel-*-linux-x86_64")) if npm_root.exists() else []
    if candidates:
        return str(candidates[-1])
    return shutil.which("bazel")


def local_makefile_build(tree: Path, model: Path, out: Path, *more: str) -> list[str]:
    """``tfbuild build`` of ``tree``'s contrib Makefile for linux-x86_64 on this machine, as the
    tests that build for real run it."""
    return ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
            "--model", str(model), "--out", str(out), "--jobs", "2", "--local", *more]
