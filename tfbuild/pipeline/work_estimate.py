"""What a contrib Makefile build will compile and what it reuses, step by step, before it starts.

On a small machine a cold TF 1.x Makefile build takes an hour and more (protobuf and nsync for
the host and the target alone took 80 minutes on 2 shared cores), a rebuild with the same flags
minutes: the dry run says which, from what is on disk. A step the plan skips because its output
exists (``skip_if_exists``: the downloads, a protobuf or nsync built before) reuses it; one
that runs compiles its sources, counted from the downloaded sources' own lists (protobuf's
``src/Makefile.am``, nsync's ``internal/``); TensorFlow's make step compiles the objects of
the Makefile's lists (:mod:`tfbuild.tree.makefile_sources`, with ``tf_op_files.txt`` as the
build's edits leave it) less those already built with the same flags (the flags stamp the
step before it compares, :func:`~tfbuild.pipeline.flavours.makefile.FLAGS_STAMP`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from tfbuild.flavour import Flavour
from tfbuild.pipeline.flavours.makefile import DOWNLOAD_STEP, FORGET_STEP
from tfbuild.pipeline.planning.plan import BuildPlan, Step
from tfbuild.tree.facts import MAKEFILE, MAKEFILE_DIR
from tfbuild.tree.makefile_sources import count_objects

_SOURCES = re.compile(r"^\w+_SOURCES\s*=\s*((?:.*\\\n)*.*)$", re.MULTILINE)


def work_lines(plan: BuildPlan, root: Path, *, edited: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """One line per step that compiles or reuses something: ``N. step name: what`` (none for a
    plan that is not a contrib Makefile build). ``root`` is the tree on this machine; ``edited``
    the build files' text after the build's edits, by repository path."""
    download = next((step for step in plan.steps if step.name == DOWNLOAD_STEP), None)
    if plan.flavour != Flavour.MAKEFILE or download is None:
        return ()
    src = download.workdir  # the tree as the steps see it (/src in a container)
    lines = []
    for index, step in enumerate(plan.steps, 1):
        what = _step_work(plan, step, root, src, edited or {})
        if what:
            lines.append(f"{index}. {step.name}: {what}")
    return tuple(lines)


def _step_work(plan: BuildPlan, step: Step, root: Path, src: PurePosixPath, edited: Mapping[str, str]) -> str:
    here = _on_host(step.skip_if_exists, root, src) if step.skip_if_exists is not None else None
    stale = _made_with_other_flags(plan, step, root, src)
    if here is not None and here.exists() and not stale:
        return f"reuses what an earlier build made ({_shown(here, root)} is there): nothing compiled"
    if step.name == DOWNLOAD_STEP:
        return "downloads the dependencies' sources (nothing compiled)"
    if step.name.startswith("build protobuf"):
        return f"compiles protobuf: {_protobuf_sources(root)}"
    if step.name.startswith("build nsync"):
        again = " (the one built before used other flags, or none were recorded: removed first)" if stale else ""
        return f"compiles nsync: {_nsync_sources(root)}{again}"
    if step.name.startswith("build TensorFlow"):
        return _tensorflow(plan, step, root, edited)
    return ""


def _tensorflow(plan: BuildPlan, step: Step, root: Path, edited: Mapping[str, str]) -> str:
    makefile = edited.get(MAKEFILE) or (root / MAKEFILE).read_text(encoding="utf-8", errors="replace")
    given = {name: value for name, _, value in (arg.partition("=") for arg in step.argv[1:])
             if value and name.isidentifier()}
    counted = count_objects(root, makefile, given, op_files_text=edited.get(f"{MAKEFILE_DIR}/tf_op_files.txt"))
    total, built = len(counted.objects), counted.built
    about = "" if counted.complete else "at least "
    if built and not _same_flags(plan, root):
        return (f"compiles all {about}{total} TensorFlow objects: the {built} built before used other flags "
                "and are removed first")
    if not built:
        return f"compiles {about}{total} TensorFlow objects (none built yet)"
    return (f"compiles {about}{total - built} of {total} TensorFlow objects and reuses {built} built with the same "
            "flags (make also recompiles those whose sources or headers changed since, and version_info.cc)")


def _same_flags(plan: BuildPlan, root: Path) -> bool:
    """Whether the objects on disk were built with this plan's flags (the stamp the forget step
    compares holds this plan's digest)."""
    forget = next((step for step in plan.steps if step.name == FORGET_STEP), None)
    if forget is None:
        return True
    stamp, digest = forget.argv[4], forget.argv[5]
    path = root / stamp
    return path.is_file() and path.read_text(encoding="utf-8", errors="replace").strip() == digest


def _made_with_other_flags(plan: BuildPlan, step: Step, root: Path, src: PurePosixPath) -> bool:
    """Whether the forget step just before ``step`` (an nsync build's) will remove what ``step``
    would reuse: it is there, and the stamp beside it does not hold this plan's digest."""
    index = plan.steps.index(step)
    forget = plan.steps[index - 1] if index else None
    if forget is None or step.skip_if_exists is None or not forget.name.startswith("forget "):
        return False
    stamp, digest, built = forget.argv[4], forget.argv[5], forget.argv[6:]
    if not any((path := _on_host(PurePosixPath(made), root, src)) is not None and path.exists() for made in built):
        return False
    on_host = _on_host(PurePosixPath(stamp), root, src)
    return on_host is None or not on_host.is_file() or on_host.read_text(encoding="utf-8", errors="replace") != digest


def _protobuf_sources(root: Path) -> str:
    listing = root / MAKEFILE_DIR / "downloads/protobuf/src/Makefile.am"
    if not listing.is_file():
        return "its sources are not downloaded yet, so not counted"
    words = {word for found in _SOURCES.findall(listing.read_text(encoding="utf-8", errors="replace"))
             for word in found.replace("\\\n", " ").split() if word.endswith(".cc")}
    return f"{len(words)} sources (downloads/protobuf/src/Makefile.am), and autotools first"


def _nsync_sources(root: Path) -> str:
    internal = root / MAKEFILE_DIR / "downloads/nsync/internal"
    if not internal.is_dir():
        return "its sources are not downloaded yet, so not counted"
    return f"{sum(1 for path in internal.glob('*.c') if path.is_file())} sources (downloads/nsync/internal)"


def _on_host(path: PurePosixPath, root: Path, src: PurePosixPath) -> Path | None:
    """``path`` as the steps see it, on this machine (None outside the tree)."""
    try:
        return root / PurePosixPath(path).relative_to(src)
    except ValueError:
        return None


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
