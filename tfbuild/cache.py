"""tfbuild's one cache directory.

Everything tfbuild keeps between runs lives under one root: kernel indexes by commit, the Bazel
binaries the toolchain images copy in, image package lists, unpacked NDKs. One root, set by one
environment variable, means a CI job can persist or wipe all of it with one path.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from tfbuild.fileio import atomic_write_text

log = logging.getLogger(__name__)
T = TypeVar("T")

CACHE_DIR_ENV = "TFBUILD_CACHE_DIR"


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$TFBUILD_CACHE_DIR``, else ``~/.cache/tfbuild``. Not created here: writers create
    the subdirectory they need."""
    env = os.environ if environ is None else environ
    explicit = env.get(CACHE_DIR_ENV)
    return Path(explicit) if explicit else Path.home() / ".cache" / "tfbuild"


def read_through(
    path: Path | None,
    *,
    schema: int,
    decode: Callable[[dict[str, Any]], T],
    encode: Callable[[T], Mapping[str, object]],
    compute: Callable[[], T],
) -> tuple[T, bool]:
    """The value cached as JSON at ``path`` when it is there and of ``schema``; else
    ``compute()``, stored at ``path`` for next time. Returns (value, whether it was cached).

    ``path`` None means "not cacheable" (e.g. a tree outside git). A cache that cannot be read
    (old schema, corrupt, unexpected shape) is recomputed, and one that cannot be written costs
    speed, not correctness: neither is an error.
    """
    if path is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("schema") == schema:
                return decode(data), True
        except (OSError, ValueError, KeyError, TypeError):
            pass
    value = compute()
    if path is not None:
        try:
            atomic_write_text(path, json.dumps({"schema": schema, **encode(value)}, sort_keys=True))
        except OSError as error:
            log.debug("cache not written (%s): %s", path, error)
    return value, False
