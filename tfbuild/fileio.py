"""File writing that never leaves a half-written file behind, and content digests."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

from tfbuild.errors import OutputPathError


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int | None = None) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Readers see either the old file or the complete new one; an exception leaves no trace. A
    ``path`` that is a directory, or lies under a file, is an :class:`OutputPathError` naming
    it, before anything is written.
    """
    path = Path(path)
    check_output_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as tmp:
            tmp.write(data)
            tmp.flush()
            os.fsync(tmp.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        elif path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_name, 0o666 & ~umask)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return path


def check_output_path(path: Path) -> None:
    """Refuse an output path that no file can be written to: an existing directory, or one
    whose parent is (or lies under) a file."""
    if path.is_dir():
        raise OutputPathError(f"{path}: is a directory; name the file to write", hint="give a file path")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputPathError(f"{path}: {parent} is a file, not a directory", hint="give a path in a directory")
            break


def atomic_write_text(path: Path | str, text: str, *, mode: int | None = None) -> Path:
    """Text flavour of :func:`atomic_write_bytes` (UTF-8, newlines kept as given)."""
    return atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path | str) -> str:
    """Hex SHA-256 of a file, read in chunks so large artifacts do not fill memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_tree(root: Path | str) -> str:
    """Digest of a directory's relative paths and file contents, in a stable order."""
    root = Path(root)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(sha256_file(path).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def unified_diff(path: str, old_text: str, new_text: str) -> str:
    """A ``git diff``-style unified diff of one file's planned change (``a/path`` → ``b/path``),
    as ``--dry-run`` shows it."""
    import difflib

    return "".join(
        difflib.unified_diff(
            old_text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
