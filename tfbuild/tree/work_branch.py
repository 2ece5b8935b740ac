"""tfbuild's edits of a TensorFlow checkout live on their own git branch, so they can be undone.

Applying edits checks out ``tfbuild/selective-edits`` at the current commit (or stays on it if
it is already checked out) and commits the changed files there, with an explicit committer so
it works on CI machines without a git identity, and without running the checkout's hooks or
signing. Each commit records the branch and commit the user was on in trailers::

    Tfbuild-Base-Branch: master
    Tfbuild-Base-Commit: 0123abcd...

and, one trailer each, the untracked files tfbuild writes into the tree besides its commits
(the build's ``tensorflow/core/framework/ops_to_register.h``)::

    Tfbuild-Generated: tensorflow/core/framework/ops_to_register.h

Reverting reads those trailers from the work branch's commits, checks out the base branch (or
the base commit, detached, if the user was detached), deletes the work branch and removes the
recorded files that are still untracked. The working tree is then byte-identical to before the
first edit. A checkout with uncommitted changes to tracked files is refused both ways: tfbuild
must never mix its commit with the user's work or throw that work away.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import posixpath
import re
import shlex
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tfbuild.errors import SourceTreeError, TfbuildError
from tfbuild.fileio import atomic_write_bytes, sha256_bytes
from tfbuild.stop_signals import deferred
from tfbuild.tree.facts import head_commit, open_repo
from tfbuild.tree.git_errors import git_reason, lock_error

if TYPE_CHECKING:
    from git import Commit, Repo

WORK_BRANCH = "tfbuild/selective-edits"
IDENTITY = {
    "GIT_AUTHOR_NAME": "tfbuild",
    "GIT_AUTHOR_EMAIL": "tfbuild@localhost",
    "GIT_COMMITTER_NAME": "tfbuild",
    "GIT_COMMITTER_EMAIL": "tfbuild@localhost",
}
_TRAILER = re.compile(r"^Tfbuild-Base-(Branch|Commit): (.*)$", re.M)
_GENERATED = re.compile(r"^Tfbuild-Generated: (.*)$", re.M)
_GENERATED_DIGEST = re.compile(r"^Tfbuild-Generated-Sha256: ([0-9a-f]{64}) (.*)$", re.M)
LOCK_NAME = "tfbuild.lock"
"""The per-tree lock file, in the checkout's (common) git directory: ``.git/tfbuild.lock``."""
_held_locks: dict[Path, int] = {}


@dataclass(frozen=True)
class CheckoutState:
    root: Path
    branch: str | None
    """The checked-out branch, None when HEAD is detached."""
    commit: str
    dirty_files: tuple[str, ...]
    work_branch_exists: bool

    @property
    def on_work_branch(self) -> bool:
        return self.branch == WORK_BRANCH


@dataclass(frozen=True)
class CommitResult:
    branch: str
    commit: str
    base_branch: str | None
    base_commit: str


@dataclass(frozen=True)
class RevertResult:
    reverted: bool
    restored: str | None
    """The branch (or commit, when it was detached) checked out again."""
    restored_commit: str | None
    removed_commits: int
    removed_files: tuple[str, ...] = ()
    """Untracked files tfbuild had written into the tree (``Tfbuild-Generated``), now deleted."""


@contextlib.contextmanager
def tree_lock(root: Path | None, action: str) -> Iterator[None]:
    """Hold ``root``'s tfbuild lock (``fcntl.flock`` on ``.git/tfbuild.lock``) while ``action``
    runs: a second tfbuild that would change the same tree (an edit, a revert, a build) stops
    at once with a :class:`SourceTreeError` naming the process that holds it, rather than
    colliding with the first in git (an existing work branch, git's ``index.lock``). Taken
    again by the same process, it is already held. A tree that is not a git checkout has no
    lock: nothing is committed there. The file stays (removing it would race a third run)."""
    repo = open_repo(Path(root)) if root is not None else None
    if root is None or repo is None:
        yield
        return
    path = Path(repo.common_dir).resolve() / LOCK_NAME
    if path in _held_locks:
        _held_locks[path] += 1
        try:
            yield
        finally:
            _held_locks[path] -= 1
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:  # a read-only .git: nothing can be committed there either
        raise SourceTreeError(
            f"{path.parent}: not writable, and tfbuild writes there (its lock, then its commit); nothing was "
            f"changed ({error.strerror})",
            hint="make it writable, or build from a writable copy of the tree; then run again",
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            raise SourceTreeError(
                f"{root}: another tfbuild is changing this tree ({holder}); refusing to {action} it at the same time",
                hint=f"wait for it to finish, then run again (the lock is {path})",
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {action}\n".encode(), 0)
        _held_locks[path] = 1
        try:
            yield
        except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM, SIGHUP (tfbuild.stop_signals)
            if not getattr(stop, "__notes__", None):  # the build notes what it changed itself
                stop.add_note(where_the_tree_is(Path(root)))
            raise
        finally:
            del _held_locks[path]
    finally:
        os.close(fd)  # releases the lock


def revert_command(source: Path) -> str:
    """The one command that undoes every change tfbuild made to the tree at ``source``."""
    return f"tfbuild edit --revert --source {shlex.quote(str(source))}"


def where_the_tree_is(root: Path) -> str:
    """One line, for a command stopped while it held the tree's lock, saying where the tree is
    and what to do. A stop waits for a commit or a revert to be whole (:func:`deferred`), so the
    tree either has tfbuild's edits, on its work branch, or has none."""
    try:
        has_edits = checkout_state(root).work_branch_exists
    except SourceTreeError:
        return f"undo whatever tfbuild changed with: {revert_command(root)}"
    if has_edits:
        return f"the tree has tfbuild's edits on {WORK_BRANCH}; undo them with: {revert_command(root)}"
    return f"the tree {root} has none of tfbuild's edits"


def lock_holder(root: Path) -> str | None:
    """What holds ``root``'s tfbuild lock, as the holder wrote it (``pid 123: build from``), or
    None when nothing does: ``tfbuild source`` says a build is running on the tree it reports.
    It only looks (a shared lock taken and dropped at once, never waited for)."""
    repo = open_repo(Path(root))
    if repo is None:
        return None
    path = Path(repo.common_dir).resolve() / LOCK_NAME
    if path in _held_locks:
        return f"pid {os.getpid()}: this process"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _repo(root: Path) -> Repo:
    repo = open_repo(root)
    if repo is None:
        raise SourceTreeError(
            f"{root}: not a git checkout; tfbuild commits its edits on a branch so they can be reverted",
            hint=f"run: git -C {root} init && git -C {root} add -A && git -C {root} commit -m base",
        )
    if repo.bare or repo.working_tree_dir is None:
        raise SourceTreeError(f"{root}: a bare git repository has no files to edit", hint="pass a checkout")
    if Path(repo.working_tree_dir).resolve() != Path(root).resolve():
        raise SourceTreeError(
            f"{root}: not the top of its git checkout ({repo.working_tree_dir})",
            hint="pass the top directory of the TensorFlow checkout as --source",
        )
    return repo


def checkout_state(root: Path) -> CheckoutState:
    """Where the checkout is and whether tracked files have uncommitted changes."""
    repo = _repo(Path(root))
    commit = head_commit(repo)
    if commit is None:
        raise SourceTreeError(f"{root}: the git checkout has no commit yet", hint="commit the tree first")
    branch = None if repo.head.is_detached else repo.active_branch.name
    # Porcelain status refreshes the index first, so a touched-but-unchanged file is not dirty.
    status: str = repo.git.status("--porcelain", "-z", "--untracked-files=no")
    dirty = sorted({entry[3:] for entry in status.split("\0") if len(entry) > 3 and entry[2] == " "})
    return CheckoutState(
        root=Path(root),
        branch=branch,
        commit=commit,
        dirty_files=tuple(dirty),
        work_branch_exists=WORK_BRANCH in [head.name for head in repo.heads],
    )


def require_clean(state: CheckoutState, action: str) -> None:
    if state.dirty_files:
        shown = ", ".join(state.dirty_files[:3]) + (" ..." if len(state.dirty_files) > 3 else "")
        raise SourceTreeError(
            f"{state.root}: uncommitted changes to tracked files ({shown}); refusing to {action}",
            hint="commit or stash them first (or run with --dry-run to only see the edits)",
        )


def check_can_commit(root: Path, paths: Iterable[str] = ()) -> CheckoutState:
    """Raise unless :func:`commit_files` could commit in ``root`` now (clean, work branch
    checked out or absent, the directories of ``paths`` and of the commit writable); callers
    check first when they change other files before it."""
    state = checkout_state(root)
    require_clean(state, "edit it")
    refuse_unwritable(_repo(Path(root)), root, paths)
    if state.work_branch_exists and not state.on_work_branch:
        raise SourceTreeError(
            f"{root}: branch {WORK_BRANCH} exists but is not checked out",
            hint=f"check it out to add to it (git checkout {WORK_BRANCH}), or delete it "
            f"(git branch -D {WORK_BRANCH})",
        )
    return state


def commit_files(
    root: Path, files: Mapping[str, tuple[str, str]], message: str, *,
    generated: Mapping[str, str | bytes] | None = None,
) -> CommitResult:
    """Write ``files`` (path -> (expected old text, new text)) atomically and commit them on the
    work branch. On any failure the files and the branch are put back as they were.

    ``generated``: untracked files the caller is about to write into the tree (repository path
    -> text or bytes), recorded in the commit (a ``Tfbuild-Generated`` trailer each, and the SHA-256 of
    the text in a ``Tfbuild-Generated-Sha256`` one) so :func:`revert` removes them, and only
    while they still hold what tfbuild wrote; with no ``files`` the commit records only them.
    """
    generated = dict(generated or {})
    with deferred():  # a stop signal waits for the commit, or for its rollback: never between
        state = check_can_commit(root, [*files, *generated])
        repo = _repo(Path(root))
        for path in generated:
            _check_generated_path(root, path)
        base_branch, base_commit = _base_of(repo, state)
        for path, (old, _) in files.items():
            if _read(Path(root) / path) != old:
                raise SourceTreeError(
                    f"{Path(root) / path}: changed since the edit was planned", hint="run tfbuild again"
                )
        created = not state.on_work_branch
        if created:
            repo.git.checkout("-q", "-b", WORK_BRANCH)
        try:
            for path, (_, new) in files.items():
                atomic_write_bytes(Path(root) / path, new.encode("utf-8", "surrogateescape"), through_links=False)
            if files:
                repo.git.add("--", *files)
            trailers = [f"Tfbuild-Base-Branch: {base_branch or '(detached)'}", f"Tfbuild-Base-Commit: {base_commit}"]
            trailers += [f"Tfbuild-Generated: {path}" for path in generated]
            trailers += [f"Tfbuild-Generated-Sha256: {_text_digest(text)} {path}" for path, text in generated.items()]
            with repo.git.custom_environment(**IDENTITY):
                repo.git.commit(
                    "-q", "--no-verify", "--no-gpg-sign", "--allow-empty", "-m", f"{message}\n\n" + "\n".join(trailers)
                )
        except BaseException as error:
            _roll_back(repo, Path(root), files, (base_branch or base_commit) if created else None, error)
            import git

            if isinstance(error, git.GitCommandError):
                locked = lock_error(error)
                if locked is not None:
                    raise locked from None
                raise SourceTreeError(
                    f"{root}: git could not commit tfbuild's edits, so nothing was changed: {git_reason(error)}",
                    hint=f"repair the checkout (git -C {root} fsck names what is missing), then run tfbuild again",
                ) from None
            raise
        return CommitResult(WORK_BRANCH, repo.head.commit.hexsha, base_branch, base_commit)


def refuse_unwritable(repo: Repo, root: Path, paths: Iterable[str]) -> None:
    """Refuse (:class:`SourceTreeError`, before anything changes) when a directory tfbuild
    writes into is read-only: where each of ``paths`` (repository paths) goes, or the nearest
    directory that exists above it, and the git directory the commit goes into. Found later,
    after the work branch is checked out, it is a failure half-way that the rollback, writing in
    the same directories, could not always undo."""
    directories = {Path(repo.git_dir), Path(repo.common_dir)}
    for path in paths:
        directory = (Path(root) / path).parent
        while not directory.exists() and directory != directory.parent:
            directory = directory.parent
        directories.add(directory)
    for directory in sorted(directories):
        if not os.access(directory, os.W_OK):
            raise SourceTreeError(
                f"{directory}: not writable, and tfbuild writes there; nothing was changed",
                hint="make it writable, or build from a writable copy of the tree; then run again",
            )


def _roll_back(
    repo: Repo, root: Path, files: Mapping[str, tuple[str, str]], branch_back: str | None, error: BaseException
) -> None:
    """Put ``files`` and the branch back as they were before :func:`commit_files` (``branch_back``:
    the branch or commit to check out again, None when the work branch was checked out already).
    Each part on its own: one that fails (a file that cannot be written back) does not keep the
    user's branch from being checked out again; what could not be undone is noted on ``error``."""
    import git

    for path, (old, _) in files.items():
        try:
            if _read(root / path) != old:  # written: a failed write left the file as it was
                atomic_write_bytes(root / path, old.encode("utf-8", "surrogateescape"), through_links=False)
        except (OSError, TfbuildError) as failure:
            error.add_note(f"could not put back {root / path}: {failure}")
    undo = [("reset", "-q", "--", *files)] if files else []
    if branch_back is not None:
        undo += [("checkout", "-q", branch_back), ("branch", "-D", WORK_BRANCH)]
    for args in undo:
        try:
            repo.git.execute(["git", *args])
        except git.GitCommandError as failure:
            error.add_note(f"could not undo in {root}: git {' '.join(args[:2])}: {git_reason(failure)}")


def revert(root: Path) -> RevertResult:
    """Undo every tfbuild edit commit: back to the base branch/commit, work branch deleted, the
    files tfbuild wrote removed, the modes of the files it changed as they were.

    Refused, before anything changes, when that would lose something of the user's: a commit
    of theirs on the work branch that no other branch or tag holds, or a file tfbuild wrote
    that they have changed since (its content is not one tfbuild recorded writing)."""
    with deferred():  # a stop signal waits: the checkout and the branch's deletion go together
        return _revert(Path(root))


def _revert(root: Path) -> RevertResult:
    state = checkout_state(root)
    if not state.work_branch_exists:
        return RevertResult(False, None, None, 0)
    require_clean(state, "revert the edits")
    repo = _repo(root)
    tip = repo.heads[WORK_BRANCH].commit
    trailers = _tfbuild_trailers(repo, tip)
    base_branch = trailers.get("Branch")
    base_commit = trailers.get("Commit")
    if not base_commit or not _is_ancestor(repo, base_commit, tip):
        raise SourceTreeError(
            f"{root}: {WORK_BRANCH} does not record the commit tfbuild started from",
            hint=f"keep any commit of yours on it on a branch of your own first: git -C {root} branch NAME "
            f"{WORK_BRANCH}; then check out your branch and delete {WORK_BRANCH}",
        )
    users = _refuse_unkept_commits(repo, root, base_commit, tip)
    target = base_branch if base_branch and base_branch in [h.name for h in repo.heads] else base_commit
    removed = int(repo.git.rev_list("--count", f"{base_commit}..{tip.hexsha}")) - users
    generated = _generated_between(repo, base_commit, tip.hexsha)
    _refuse_changed_generated(repo, root, base_commit, tip.hexsha, generated)
    modes = _modes(repo, root, target, tip.hexsha)
    if state.on_work_branch:
        repo.git.checkout("-q", target)
    repo.git.branch("-D", WORK_BRANCH)
    _restore_modes(root, modes)
    return RevertResult(True, target, repo.head.commit.hexsha, removed, _remove_untracked(root, generated))


def _tfbuild_trailers(repo: Repo, tip: Commit) -> dict[str, str]:
    """The ``Tfbuild-Base-*`` trailers of the newest commit tfbuild made at or below ``tip``
    (the work branch's tip may be a commit of the user's, made on top of tfbuild's)."""
    for commit in repo.iter_commits(tip.hexsha, first_parent=True, max_count=200):
        trailers = _trailers(commit)
        if "Commit" in trailers:
            return trailers
    return {}


def _refuse_unkept_commits(repo: Repo, root: Path, base: str, tip: Commit) -> int:
    """Refuse to delete the work branch while it holds a commit tfbuild did not make (the user
    committed on top of it) that no other branch or tag holds: deleting it would drop that
    commit. Kept on a branch of the user's, it stays there and the revert goes ahead. Returns
    how many such commits (all kept elsewhere) the branch holds."""
    ours = f"refs/heads/{WORK_BRANCH}"
    users = 0
    for commit in repo.iter_commits(f"{base}..{tip.hexsha}"):
        if commit.committer.email == IDENTITY["GIT_COMMITTER_EMAIL"] and "Commit" in _trailers(commit):
            continue
        users += 1
        holders: str = repo.git.for_each_ref("--contains", commit.hexsha, "--format=%(refname)", "refs/heads",
                                             "refs/tags")
        if not [ref for ref in holders.splitlines() if ref and ref != ours]:
            summary = str(commit.summary)[:60]
            raise SourceTreeError(
                f"{root}: {WORK_BRANCH} holds commit {commit.hexsha[:12]} ({summary!r}) that tfbuild did not make "
                "and no other branch holds; refusing to delete the branch and lose it",
                hint=f"keep it on a branch of your own first: git -C {root} branch NAME {WORK_BRANCH}; then run "
                "the revert again, which leaves it there (do not delete the branch by hand)",
            )
    return users


def _recorded_digests(repo: Repo, base: str, tip: str) -> dict[str, set[str]]:
    """Per generated path, the SHA-256 of every content tfbuild recorded writing there
    (``Tfbuild-Generated-Sha256``) in the commits after ``base`` up to ``tip``."""
    found: dict[str, set[str]] = {}
    for commit in repo.iter_commits(f"{base}..{tip}"):
        message = commit.message
        text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
        for digest, path in _GENERATED_DIGEST.findall(text):
            found.setdefault(path.strip(), set()).add(digest)
    return found


def _is_tfbuilds(file: Path, digests: set[str] | None) -> bool:
    """Whether ``file`` holds content tfbuild wrote: one of ``digests``. A path recorded with no
    digest (by a tfbuild that recorded none) is taken as tfbuild's, as it was then."""
    if digests is None:
        return True
    try:
        return sha256_bytes(file.read_bytes()) in digests
    except OSError:
        return False


def _refuse_changed_generated(repo: Repo, root: Path, base: str, tip: str, generated: Sequence[str]) -> None:
    """Refuse the revert, before anything changes, when a file tfbuild wrote into the tree now
    holds content it did not write (the user edited it): removing it would lose the edit."""
    digests = _recorded_digests(repo, base, tip)
    present = [path for path in generated if _is_plain_relative(path) and (root / path).is_file()]
    for path in sorted(set(present) - tracked_paths(root, present)):
        if not _is_tfbuilds(root / path, digests.get(path)):
            raise SourceTreeError(
                f"{root / path}: tfbuild wrote this file, but it has changed since; refusing to delete it",
                hint="move it out of the tree to keep it (or delete it if the change is not yours), then run again",
            )


def _modes(repo: Repo, root: Path, target: str, tip: str) -> dict[str, int]:
    """The permission bits of the files the checkout of ``target`` will rewrite: git keeps only
    the executable bit, so a user's ``chmod 444`` would come back as 644."""
    changed: str = repo.git.diff("--name-only", "-z", target, tip)
    modes = {}
    for path in filter(None, changed.split("\0")):
        with contextlib.suppress(OSError):
            info = os.lstat(root / path)
            if stat.S_ISREG(info.st_mode):
                modes[path] = stat.S_IMODE(info.st_mode)
    return modes


def _restore_modes(root: Path, modes: Mapping[str, int]) -> None:
    """Give the files back the permission bits ``modes`` holds, but for the executable bits,
    which are git's (the checked-out commit's)."""
    for path, mode in modes.items():
        with contextlib.suppress(OSError):
            info = os.lstat(root / path)
            if stat.S_ISREG(info.st_mode):
                os.chmod(root / path, (mode & ~0o111) | (stat.S_IMODE(info.st_mode) & 0o111))


def recorded_generated(root: Path) -> frozenset[str]:
    """The untracked files the checked-out work branch records (``Tfbuild-Generated``) that
    hold content tfbuild wrote; none when the work branch is not checked out."""
    state = checkout_state(root)
    if not state.on_work_branch:
        return frozenset()
    repo = _repo(Path(root))
    base = _tfbuild_trailers(repo, repo.head.commit).get("Commit")
    if not base or not _is_ancestor(repo, base, repo.head.commit):
        return frozenset()
    digests = _recorded_digests(repo, base, repo.head.commit.hexsha)
    return frozenset(path for path in _generated_between(repo, base, repo.head.commit.hexsha)
                     if not (Path(root) / path).is_file() or _is_tfbuilds(Path(root) / path, digests.get(path)))


def unrecorded(root: Path, written: Mapping[str, str]) -> tuple[str, ...]:
    """Those of ``written`` (repository path -> the text tfbuild will write there) that the
    checked-out work branch does not record with that content: the next commit records them."""
    state = checkout_state(root)
    if not state.on_work_branch:
        return tuple(written)
    repo = _repo(Path(root))
    base = _tfbuild_trailers(repo, repo.head.commit).get("Commit")
    if not base or not _is_ancestor(repo, base, repo.head.commit):
        return tuple(written)
    digests = _recorded_digests(repo, base, repo.head.commit.hexsha)
    recorded = set(_generated_between(repo, base, repo.head.commit.hexsha))
    return tuple(path for path, text in written.items()
                 if path not in recorded or _text_digest(text) not in digests.get(path, {_text_digest(text)}))


def _text_digest(content: str | bytes) -> str:
    """The SHA-256 of ``content`` as written into the tree (text as UTF-8)."""
    return sha256_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def base_commit(root: Path, commit: str) -> str:
    """The commit tfbuild's edits up to ``commit`` started from (its ``Tfbuild-Base-Commit``
    trailer), or ``commit`` itself when tfbuild did not make it or ``root`` cannot say: builds
    of one checkout with different selections share it, whatever they committed on top."""
    import git

    repo = open_repo(Path(root))
    if repo is None:
        return commit
    try:
        return _trailers(repo.commit(commit)).get("Commit", commit)
    except (ValueError, git.BadName, git.BadObject):
        return commit


def tracked_paths(root: Path, paths: Iterable[str]) -> frozenset[str]:
    """Those of ``paths`` (repository paths) that git tracks in ``root``'s checkout."""
    wanted = list(paths)
    if not wanted:
        return frozenset()
    listed: str = _repo(Path(root)).git.ls_files("-z", "--", *wanted)
    return frozenset(path for path in listed.split("\0") if path) & set(wanted)


def refuse_foreign_files(root: Path, paths: Iterable[str]) -> None:
    """Refuse (:class:`SourceTreeError`, before anything changes) when a file is already at one
    of ``paths`` (repository paths where tfbuild is about to write an untracked file) that git
    does not track and that the checked-out work branch does not record as tfbuild's (one tfbuild
    wrote that the user has changed since counts as theirs): it is the user's own, which
    tfbuild's write would replace and ``tfbuild edit --revert`` would delete."""
    present = [path for path in paths if os.path.lexists(Path(root) / path)]
    if not present:
        return
    foreign = sorted(set(present) - tracked_paths(root, present) - recorded_generated(root))
    if foreign:
        raise SourceTreeError(
            f"{Path(root) / foreign[0]}: an untracked file tfbuild did not write is where tfbuild writes one; "
            "refusing to replace it",
            hint="move it out of the tree, or commit it (tfbuild then commits its change and the revert restores it)",
        )


def _generated_between(repo: Repo, base: str, tip: str) -> tuple[str, ...]:
    """Paths the commits after ``base`` up to ``tip`` record as generated, each once."""
    found: dict[str, None] = {}
    for commit in repo.iter_commits(f"{base}..{tip}"):
        message = commit.message
        text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
        found.update((path.strip(), None) for path in _GENERATED.findall(text))
    return tuple(found)


def _remove_untracked(root: Path, paths: Sequence[str]) -> tuple[str, ...]:
    """Delete the files of ``paths`` that exist and git does not track (a recorded path the
    user has since committed is theirs), and the directories that leaves empty (tfbuild made
    them: the protobuf rename's root ``google/protobuf/``); the files deleted."""
    safe = [path for path in paths if _is_plain_relative(path)]
    keep = tracked_paths(root, safe)
    top = Path(root).resolve()
    removed = []
    for path in safe:
        file = Path(root) / path
        inside = file.parent.resolve().is_relative_to(top)
        if path not in keep and inside and (file.is_file() or file.is_symlink()):
            file.unlink()
            removed.append(path)
            _remove_empty_parents(file.parent, top)
    return tuple(removed)


def _remove_empty_parents(directory: Path, top: Path) -> None:
    """``rmdir`` ``directory`` and its parents below ``top`` while they are empty."""
    while directory.resolve() != top and directory.resolve().is_relative_to(top):
        try:
            directory.rmdir()
        except OSError:  # not empty (or not ours to remove): stop here
            return
        directory = directory.parent


def _check_generated_path(root: Path, path: str) -> None:
    if not _is_plain_relative(path):
        raise SourceTreeError(f"{root}: {path!r} is not a path inside the tree", hint="this is a tfbuild bug")


def _is_plain_relative(path: str) -> bool:
    """A normalised POSIX path inside the checkout (no ``..``, not absolute, not in ``.git``)."""
    return (
        bool(path)
        and not path.startswith("/")
        and "\n" not in path
        and posixpath.normpath(path) == path
        and not path.startswith("../")
        and path != ".."
        and path.split("/", maxsplit=1)[0] != ".git"
    )


def _base_of(repo: Repo, state: CheckoutState) -> tuple[str | None, str]:
    """The branch/commit the edits started from: recorded on the work branch, or current."""
    if state.on_work_branch:
        trailers = _tfbuild_trailers(repo, repo.head.commit)
        branch = trailers.get("Branch")
        return (None if branch in (None, "(detached)") else branch), trailers.get("Commit", state.commit)
    return state.branch, state.commit


def _trailers(commit: Commit) -> dict[str, str]:
    """The ``Tfbuild-Base-*`` trailers of a commit tfbuild made, by kind (``Branch``, ``Commit``)."""
    message = commit.message
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    return dict(_TRAILER.findall(text))


def _is_ancestor(repo: Repo, ancestor: str, tip: Commit) -> bool:
    """Whether commit ``ancestor`` (as a trailer names it) is ``tip`` or comes before it; False
    when it names no commit of the repository."""
    import git

    try:
        return repo.is_ancestor(repo.commit(ancestor), tip)
    except (ValueError, git.BadName, git.BadObject):
        return False


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "surrogateescape")
