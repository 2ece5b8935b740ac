"""The commit a build says it was built from: the user's, not tfbuild's work commit.

A contrib Makefile build runs the tree's ``tensorflow/tools/git/gen_git_source.sh``, which writes
``tensorflow/core/util/version_info.cc`` with ``tf_git_version()`` returning ``git describe
--long --tags`` of the checked-out commit. During a tfbuild build that is tfbuild's own commit
on ``tfbuild/selective-edits``, which ``tfbuild edit --revert`` deletes: a shipped binary would
name a commit nobody can check out. So the build gives the tree's make step a git directory of
its own (``GIT_DIR``): one whose ``HEAD`` is the user's commit and whose objects and refs are the
checkout's (git's ``commondir`` file, as linked worktrees have). The tree's own script then
describes the user's commit, by its own rule, and nothing of the tree is edited. The directory
lives under the Makefile's ``gen/`` (ignored by git), relative, so a container that mounts the
tree finds it too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tfbuild.tree.facts import MAKEFILE_DIR, open_repo
from tfbuild.tree.work_branch import base_commit

GEN_GIT_SOURCE = "tensorflow/tools/git/gen_git_source.sh"
VERSION_INFO = "tensorflow/core/util/version_info.cc"
DESCRIBE_GIT_DIR = f"{MAKEFILE_DIR}/gen/tfbuild-git"
"""The git directory the make step describes (relative to the tree's root)."""


@dataclass(frozen=True)
class TreeCommits:
    """The commit the user's files are at, and tfbuild's work commit on top of it (if any)."""

    user: str
    work: str | None
    """The checked-out commit when it is tfbuild's (on the work branch), else None."""


def tree_commits(root: Path, head: str) -> TreeCommits:
    """``root``'s commits with ``head`` checked out: the user's is the one tfbuild's edits
    started from (the work commit's trailer), or ``head`` itself."""
    user = base_commit(Path(root), head)
    return TreeCommits(user, head if user != head else None)


def describe(root: Path, commit: str) -> str | None:
    """``git describe --long --tags`` of ``commit``, as gen_git_source.sh writes it; None when
    git cannot describe it (no tag before it)."""
    import git

    repo = open_repo(Path(root))
    if repo is None:
        return None
    try:
        return str(repo.git.describe("--long", "--tags", commit))
    except git.GitCommandError:
        return None


def describe_git_dir(root: Path, commit: str) -> dict[str, str]:
    """The files of :data:`DESCRIBE_GIT_DIR` (repository path -> content): ``HEAD`` detached at
    ``commit``, ``commondir`` naming the checkout's git directory, relative when it is inside
    the tree (the same path inside a container), else absolute."""
    repo = open_repo(Path(root))
    assert repo is not None
    common = Path(repo.common_dir).resolve()
    top = Path(root).resolve()
    here = top / DESCRIBE_GIT_DIR
    shared = os.path.relpath(common, here) if common.is_relative_to(top) else str(common)
    return {f"{DESCRIBE_GIT_DIR}/HEAD": f"{commit}\n", f"{DESCRIBE_GIT_DIR}/commondir": f"{shared}\n"}


def runs_gen_git_source(makefile_text: str) -> bool:
    """Whether the contrib Makefile writes version_info.cc with the tree's gen_git_source.sh."""
    return GEN_GIT_SOURCE in makefile_text
