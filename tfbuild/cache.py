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

from tfbuild.fileio import atomic_write_bytes

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
        except (OSError, ValueError, RecursionError, KeyError, TypeError):
            pass
    value = compute()
    if path is not None:
        write_cache(path, json.dumps({"schema": schema, **encode(value)}, sort_keys=True).encode("utf-8"))
    return value, False


_warned: set[Path] = set()


def write_cache(path: Path, data: bytes) -> None:
    """Keep ``data`` at ``path`` in the cache, atomically. The cache is optional: a path where
    nothing can be written (a read-only ``HOME``, a full disk) costs only speed, said once per
    cache directory on stderr, and the command goes on."""
    from tfbuild.errors import TfbuildError

    try:
        atomic_write_bytes(path, data)
    except (OSError, TfbuildError) as error:
        root = cache_dir()
        if root not in _warned:
            _warned.add(root)
            reason = error.one_line() if isinstance(error, TfbuildError) else f"{path}: {error.strerror or error}"
            log.warning("note: tfbuild's cache cannot be written (%s); going on without it (set %s to a "
                        "writable directory to keep what it computes)", reason, CACHE_DIR_ENV)
