"""Helpers shared by tests: locating test-only tools, and a lock for what two test processes
(pytest-xdist's workers, or two sessions) would otherwise make twice at once. Fixture builders
live in their own modules (``treegen`` for TensorFlow-shaped source trees, ``modelgen`` for
generated models)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tfbuild.cache import cache_dir

REPO_ROOT = Path(__file__).resolve().parent.parent

MACHINE_CACHE = cache_dir()
"""tfbuild's cache as the machine has it (``$TFBUILD_CACHE_DIR``, else ``~/.cache/tfbuild``), read
when conftest.py first imports this module, before any test points ``TFBUILD_CACHE_DIR`` at the
session's private cache: where scripts/install-*.sh put Bazel, BuildGrid and the oracle
TensorFlow. Tests read it; they never write into it."""


@contextlib.contextmanager
def machine_lock(name: str, directory: Path | None = None) -> Iterator[None]:
    """Hold the lock ``name`` (an exclusive ``flock``) while the body makes something that every
    test process shares (an unpacked NDK, a Docker image): the second process waits, then finds
    it made. The lock file is kept in ``directory`` (default: the system's temporary directory,
    per user) and holds nothing."""
    place = directory if directory is not None else Path(tempfile.gettempdir()) / f"tfbuild-tests-{os.getuid()}"
    place.mkdir(parents=True, exist_ok=True)
    path = place / f".{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def bazel_binary() -> str | None:
    """The Bazel the tests use: $TFBUILD_TEST_BAZEL, else the npm package scripts/install-bazel.sh
    installed under the machine's tfbuild cache (``bazel/``), else ``bazel`` on PATH."""
    explicit = os.environ.get("TFBUILD_TEST_BAZEL")
    if explicit:
        return explicit if Path(explicit).exists() else None
    npm_root = MACHINE_CACHE / "bazel" / "node_modules" / "@bazel" / "bazel-linux_x64"
    candidates = sorted(npm_root.glob("bazel-*-linux-x86_64")) if npm_root.exists() else []
    if candidates:
        return str(candidates[-1])
    return shutil.which("bazel")


def local_makefile_build(tree: Path, model: Path, out: Path, *more: str) -> list[str]:
    """``tfbuild build`` of ``tree``'s contrib Makefile for linux-x86_64 on this machine, as the
    tests that build for real run it."""
    return ["build", "--target", "linux-x86_64", "--flavour", "makefile", "--source", str(tree),
            "--model", str(model), "--out", str(out), "--jobs", "2", "--local", *more]
