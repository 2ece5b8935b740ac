"""tfbuild's one cache directory.

Everything tfbuild keeps between runs lives under one root: kernel indexes by commit, the Bazel
binaries the toolchain images copy in, image package lists, unpacked NDKs. One root, set by one
environment variable, means a CI job can persist or wipe all of it with one path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CACHE_DIR_ENV = "TFBUILD_CACHE_DIR"


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$TFBUILD_CACHE_DIR``, else ``~/.cache/tfbuild``. Not created here: writers create
    the subdirectory they need."""
    env = os.environ if environ is None else environ
    explicit = env.get(CACHE_DIR_ENV)
    return Path(explicit) if explicit else Path.home() / ".cache" / "tfbuild"
