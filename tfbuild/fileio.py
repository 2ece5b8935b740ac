"""File writing that never leaves a half-written file behind, and content digests."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from tfbuild.errors import InputFileError, OutputPathError, OutputWriteError, TfbuildError
from tfbuild.stop_signals import deferred

MODEL_SIZE_LIMIT = 2 << 30
"""The largest model file tfbuild reads (2 GiB, protobuf's own limit for one message)."""
SMALL_SIZE_LIMIT = 64 << 20
"""The largest ``tfbuild.toml``, op list, header or ``manifest.json`` tfbuild reads (64 MiB)."""


@contextlib.contextmanager
def nesting_bounded(
    where: Path | str, error: type[TfbuildError] = InputFileError, *, hint: str | None = None
) -> Iterator[None]:
    """Parse inside this: text nested deeper than Python's recursion limit lets a parser follow
    (a pbtxt, TOML or JSON file of ``[[[[...``) becomes one ``error`` naming ``where``, not a
    RecursionError. No real model, config, manifest or op list nests anywhere near that deep."""
    try:
        yield
    except RecursionError:
        raise error(
            f"{where}: nested too deeply to read (deeper than Python's recursion limit of "
            f"{sys.getrecursionlimit()} lets its parser go)",
            hint=hint or "no real file nests that deep: check where it came from",
        ) from None


def input_problem(path: Path | str, error: OSError) -> str:
    """What stops ``path`` being read, for a one-line error: "symlink loop" rather than "no
    such file" for a loop of links."""
    if error.errno == errno.ELOOP:
        return "symlink loop (Too many levels of symbolic links)"
    if error.errno == errno.ENOENT:
        return "no such file or directory"
    return f"cannot read: {error.strerror or error}"


def read_input_bytes(
    path: Path | str, *, limit: int = SMALL_SIZE_LIMIT, error: type[TfbuildError] = InputFileError,
    hint: str | None = None,
) -> bytes:
    """The bytes of an input file, read with a bound: a file larger than ``limit`` and one that
    is not a regular file (a FIFO, which would block forever; a device such as ``/dev/zero``,
    which never ends) are refused before a byte is read, as is a symlink loop or a file that
    cannot be read. Each refusal is one ``error`` naming ``path``."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # refused without opening it
            raise error(f"{path}: is {special_file_kind(mode)}, not a regular file", hint=hint)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as failure:
        if failure.errno == errno.EISDIR:
            raise error(f"{path}: is a directory, not a file", hint=hint) from None
        raise error(f"{path}: {input_problem(path, failure)}", hint=hint) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{path}: is a directory, not a file", hint=hint)
        raise error(f"{path}: is {special_file_kind(info.st_mode)}, not a regular file", hint=hint)
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise error(f"{path}: {info.st_size} bytes, larger than the {limit} tfbuild reads", hint=hint)
        try:
            data = handle.read(limit + 1)
        except OSError as failure:
            raise error(f"{path}: {input_problem(path, failure)}", hint=hint) from None
    if len(data) > limit:
        raise error(f"{path}: larger than the {limit} bytes tfbuild reads", hint=hint)
    return data


def atomic_write_bytes(path: Path | str, data: bytes, *, mode: int | None = None, through_links: bool = True) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Readers see either the old file or the complete new one; an exception leaves no trace. A
    ``path`` that is a directory, or lies under a file, is an :class:`OutputPathError` naming
    it, before anything is written.

    A ``path`` that is a symbolic link is written through: the file it points to is replaced
    (atomically, beside it) and the link is kept. A device, FIFO or socket is refused
    (:class:`OutputPathError`): replacing ``/dev/null`` with a plain file would lose it. An
    operating-system error while writing (a read-only directory, a full disk) is an
    :class:`OutputWriteError` naming ``path``, not the hidden temporary file.

    ``through_links=False`` replaces a link itself (tfbuild's commits in a source tree: git
    records the change of the path it tracks, and the revert restores the link).
    """
    given = Path(path)
    path = output_target(given) if through_links else given
    check_output_path(path)
    with deferred():  # a stop signal (Ctrl-C, SIGTERM) waits for the rename: no temporary file is left
        return _write_and_rename(given, path, data, mode)


def _write_and_rename(given: Path, path: Path, data: bytes, mode: int | None) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise OutputWriteError(f"{given}: {error.strerror or error}") from error
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
    except BaseException as failure:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        if isinstance(failure, OSError):
            raise OutputWriteError(f"{given}: {failure.strerror or failure}") from failure
        raise
    return given


def output_target(path: Path) -> Path:
    """The file an output ``path`` names: the end of its chain of symbolic links (so the link
    is kept and its target replaced), or ``path`` itself. A loop of links is an
    :class:`OutputPathError`."""
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:  # a dangling link: the file it names is created
        return Path(os.path.realpath(path))
    except OSError as error:
        raise OutputPathError(f"{path}: symlink loop ({error.strerror})", hint="fix or remove the link") from error


def check_output_path(path: Path) -> None:
    """Refuse an output path that no file can be written to: an existing directory, or one
    whose parent is (or lies under) a file, or a device, FIFO or socket (``/dev/null``), which
    an atomic rename would replace with a plain file."""
    if path.is_dir():
        raise OutputPathError(f"{path}: is a directory; name the file to write", hint="give a file path")
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(
            f"{path}: is {special_file_kind(mode)}, not a regular file; tfbuild writes only regular files",
            hint="give a file path",
        )
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputPathError(f"{path}: {parent} is a file, not a directory", hint="give a path in a directory")
            break


def refuse_input_as_output(output: Path, inputs: Sequence[Path], *, why: str, hint: str) -> None:
    """Refuse (exit 2, before anything runs) an ``-o`` that names one of the command's inputs,
    through any link: writing it would replace what the command reads. ``why`` says where the
    output goes instead (``tfbuild compat writes a copy``)."""
    for given in inputs:
        try:
            same = output.exists() and given.exists() and output.samefile(given)
        except OSError:
            same = False
        if same:
            raise OutputPathError(f"{output}: -o names the input model {given}; {why}", hint=hint)


def special_file_kind(mode: int) -> str:
    """What a non-regular, non-directory file is, for an error message."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


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
