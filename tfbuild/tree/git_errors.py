"""Git's failures as tfbuild reports them: one line each, with the exit code of what failed.

GitPython raises its own exceptions from wherever tfbuild runs git (reading a checkout, the
work branch, a clone). Those the user can act on become a :class:`~tfbuild.errors.TfbuildError`
here, by :func:`user_error`, which the command line applies to anything a command let through:

- git missing from ``PATH``: a :class:`ToolchainError` (exit 6);
- a ``.git/index.lock`` left by another git, running or killed: a :class:`SourceTreeError`
  naming the lock (exit 4); nothing was changed, since git refuses before it starts;
- any other failed git command: a :class:`SourceTreeError` with git's own first line (exit 4);
- a URL whose protocol makes git run a command (``ext::``), or an option where a URL belongs:
  refused before git runs anything (exit 4).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from tfbuild.errors import SourceTreeError, TfbuildError, ToolchainError

if TYPE_CHECKING:
    from git import GitCommandError

_LOCK = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def git_reason(error: GitCommandError) -> str:
    """Git's own words for a failed command: the first ``fatal:`` or ``error:`` line it wrote
    to stderr (the cause; later lines say what could not be done because of it, earlier ones are
    progress, ``Cloning into...``), else its first line, else its exit status."""
    stderr = error.stderr if isinstance(error.stderr, str) else str(error.stderr or "")
    lines = [line.strip().removeprefix("stderr:").strip().strip("'").strip() for line in stderr.splitlines()]
    lines = [line for line in lines if line]
    causes = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (causes or lines or [f"git exited with status {error.status}"])[0]


def lock_error(error: GitCommandError) -> SourceTreeError | None:
    """A :class:`SourceTreeError` naming the lock file when git stopped at one, else None."""
    stderr = error.stderr if isinstance(error.stderr, str) else str(error.stderr or "")
    found = _LOCK.search(stderr)
    if found is None:
        return None
    lock = found.group(1)
    return SourceTreeError(
        f"{lock}: exists, so git will not change the checkout (another git command is running there, "
        "or one was killed); nothing was changed",
        hint=f"when no git command is running in the tree, delete it (rm {lock}) and run tfbuild again",
    )


def unsafe_origin(origin: str) -> SourceTreeError:
    """The origin ``origin`` refused: git would run a command to fetch it, or take it as an option."""
    return SourceTreeError(
        f"{origin}: git would run a command to fetch this (its ext:: or fd:: protocol, or an option), "
        "so tfbuild does not clone it; nothing ran",
        hint="give an https://, ssh://, git:// or file:// URL, or a local path",
    )


def user_error(failure: BaseException) -> TfbuildError | None:
    """``failure`` as the one-line error it is for the user, when it is one of git's (see the
    module doc); None for anything else."""
    if "git" not in sys.modules:  # GitPython never imported: not one of its errors
        return None
    import git

    if isinstance(failure, git.GitCommandNotFound):
        return ToolchainError(
            "git: not found on PATH; tfbuild reads and edits TensorFlow checkouts with it",
            hint="install git (apt-get install git) or put it on PATH",
        )
    if isinstance(failure, git.UnsafeProtocolError | git.UnsafeOptionError):
        return unsafe_origin(str(failure.args[0]) if failure.args else "the origin")
    if isinstance(failure, git.GitCommandError):
        command = failure.command if isinstance(failure.command, list) else str(failure.command).split()
        words = " ".join(str(word) for word in command[1:3])
        return lock_error(failure) or SourceTreeError(
            f"git {words} failed: {git_reason(failure)}",
            hint="repair the checkout (git status and git fsck name what is wrong), then run tfbuild again",
        )
    return None
