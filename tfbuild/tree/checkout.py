"""Getting a TensorFlow source tree at a given tag, branch or commit.

A clone is reused: a second ``tfbuild source`` of the same origin fetches instead of cloning
again (a TensorFlow clone is gigabytes). The checkout is detached at the resolved commit, so
what is built is exactly what was asked for. A clone whose tracked files have uncommitted
changes is refused unless the user allows it: switching commits under someone's edits (or
under tfbuild's own, not yet reverted) would mix two trees. Everything goes through GitPython
with argument lists; a ref or origin that looks like an option is refused outright.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.tree.facts import SourceTreeInfo, inspect_source_tree, open_repo

if TYPE_CHECKING:
    from git import Repo

_T = TypeVar("_T")


@dataclass(frozen=True)
class SourceRequest:
    """``tfbuild source``: check ``origin`` out at ``ref`` into ``workdir`` and report on it, or,
    without an origin, report on the tree at ``source``."""

    origin: str | None
    ref: str | None
    workdir: Path | None
    allow_dirty: bool
    source: Path


def prepare_source(request: SourceRequest) -> SourceTreeInfo:
    if request.origin is None:
        if request.ref is not None or request.workdir is not None:
            raise ConfigError("--ref and --workdir need an ORIGIN to check out",
                              hint="e.g. tfbuild source https://github.com/tensorflow/tensorflow --ref v1.12.0")
        return _with_users_commit(inspect_source_tree(request.source))
    workdir = request.workdir if request.workdir is not None else Path.cwd() / clone_name(request.origin)
    root = checkout_source(request.origin, request.ref, workdir, allow_dirty=request.allow_dirty)
    return _with_users_commit(inspect_source_tree(root))


def _with_users_commit(info: SourceTreeInfo) -> SourceTreeInfo:
    """``info`` naming the user's commit, and tfbuild's work commit and lock apart: while a build
    holds the tree (or its edits are not reverted) the checked-out commit is tfbuild's, which the
    revert deletes."""
    from tfbuild.tree.git_version import tree_commits
    from tfbuild.tree.work_branch import lock_holder

    if info.commit is None:
        return info
    commits = tree_commits(info.root, info.commit)
    return dataclasses.replace(info, commit=commits.user, work_commit=commits.work, held_by=lock_holder(info.root))


def clone_name(origin: str) -> str:
    """The directory ``git clone`` would make for ``origin`` (``.../tensorflow.git`` -> ``tensorflow``)."""
    name = origin.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name[:-4] if name.endswith(".git") else name
    return name or "tensorflow"


def checkout_source(origin: str, ref: str | None, workdir: Path, *, allow_dirty: bool = False) -> Path:
    """Clone ``origin`` (a URL or a local path) into ``workdir``, or fetch into the clone already
    there, and check out ``ref`` (tag, branch or commit; None: the origin's default branch),
    detached. Returns ``workdir``."""
    import git

    for value, what in ((origin, "ORIGIN"), (ref or "", "--ref")):
        if value.startswith("-"):
            raise ConfigError(f"{what} {value!r} looks like an option", hint="give a URL, path, tag, branch or commit")
    url = _normalize_origin(origin)
    workdir = Path(workdir)
    if workdir.exists() and any(workdir.iterdir()):
        repo = _existing_clone(workdir, url)
        if not allow_dirty and repo.is_dirty(untracked_files=False):
            raise SourceTreeError(
                f"{workdir}: tracked files have uncommitted changes",
                hint="commit or discard them (tfbuild's own edits: tfbuild edit FLAVOUR --revert), "
                "or pass --allow-dirty",
            )
        _git(f"fetch {origin} into {workdir}", lambda: repo.git.fetch(
            "--tags", "--force", "origin", "+refs/heads/*:refs/remotes/origin/*"), origin=origin)
    else:
        repo = _git(f"clone {origin} into {workdir}", lambda: git.Repo.clone_from(url, workdir, no_checkout=True),
                    origin=origin)
    commit = _resolve(repo, ref, origin)
    _git(f"check out {ref or 'the default branch'} in {workdir}",
         lambda: repo.git.checkout("-q", "--detach", commit))
    return workdir


def _normalize_origin(origin: str) -> str:
    local = Path(origin).expanduser()
    return str(local.resolve()) if local.exists() else origin


def _existing_clone(workdir: Path, url: str) -> Repo:
    repo = open_repo(workdir)
    if repo is None:
        raise SourceTreeError(f"{workdir}: exists and is not a git clone", hint="pass an empty or new --workdir")
    if Path(repo.working_tree_dir or "").resolve() != workdir.resolve():
        raise SourceTreeError(f"{workdir}: not the top of its git clone ({repo.working_tree_dir})",
                              hint="pass an empty or new --workdir")
    try:
        existing = repo.remotes.origin.url
    except (AttributeError, IndexError):
        existing = None
    if existing is None or _normalize_origin(existing) != url:
        raise SourceTreeError(f"{workdir}: a clone of {existing or 'no origin'}, not of {url}",
                              hint="pass another --workdir for this origin")
    return repo


def _resolve(repo: Repo, ref: str | None, origin: str) -> str:
    """The commit ``ref`` names: a tag first, then a branch of the origin, then any revision."""
    import git

    candidates = ["refs/remotes/origin/HEAD", "HEAD"] if ref is None else \
        [f"refs/tags/{ref}", f"refs/remotes/origin/{ref}", ref]
    for candidate in candidates:
        try:
            return str(repo.git.rev_parse("--verify", "--quiet", f"{candidate}^{{commit}}"))
        except git.GitCommandError:
            continue
    if ref is None:
        raise SourceTreeError(f"{origin}: no default branch to check out (a repository without commits?)",
                              hint="give a tag (v1.12.0), a branch (r1.12) or a commit id with --ref")
    raise SourceTreeError(f"{origin}: no tag, branch or commit named {ref!r}",
                          hint="give a tag (v1.12.0), a branch (r1.12) or a commit id")


def _git(action: str, run: Callable[[], _T], *, origin: str = "") -> _T:
    """``run()``, its git failure one line saying what could not be done and git's reason."""
    import git

    from tfbuild.tree.git_errors import git_reason, lock_error, unsafe_origin

    try:
        return run()
    except (git.UnsafeProtocolError, git.UnsafeOptionError):
        raise unsafe_origin(origin or action) from None
    except git.GitCommandError as error:
        raise lock_error(error) or SourceTreeError(
            f"git could not {action}: {git_reason(error)}",
            hint="check the origin and ref; --allow-dirty keeps local changes only when git can",
        ) from None
