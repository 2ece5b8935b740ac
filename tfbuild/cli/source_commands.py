"""``tfbuild source`` and ``tfbuild kernels``: getting a TensorFlow tree and asking what it is
and which files hold an op's CPU kernels.

Each command parses its options into a typed value and calls one library function
(:func:`tfbuild.tree.checkout.prepare_source`, :func:`tfbuild.tree.kernel_index.build_kernel_index` with
:func:`~tfbuild.tree.kernel_index.describe_ops`). ``tfbuild source`` adds what a build of the
tree would use (:func:`tfbuild.toolchain.tf_versions.tree_requirements`), each fact with where
it was read: the tree's own files, else tfbuild's table. Text read from the tree (paths, op and
class names) is printed as plain text, never as Rich markup.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tfbuild.cli import _state, app, stderr
from tfbuild.cli.option_flags import source_tree, takes_options
from tfbuild.cli.output import emit_json, plain, stdout_console
from tfbuild.errors import SourceTreeError
from tfbuild.pipeline.declarations.options import SOURCE, Flags

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from tfbuild.toolchain.tf_versions import FactLine
    from tfbuild.tree.facts import SourceTreeInfo
    from tfbuild.tree.kernel_index import OpKernels

_SOURCE_HELP = "The TensorFlow source tree."
_ORIGIN_HELP = "Clone or fetch this URL or path first (else report on --source)."
_REF_HELP = "Tag, branch or commit to check out (default: the origin's default branch)."
_WORKDIR_HELP = "Where the clone lives (default: ./<name of the origin>); reused if it holds one."
_ALLOW_DIRTY_HELP = "Check out even if tracked files have uncommitted changes."


def _out() -> Console:
    return stdout_console()


@app.command("source")
@takes_options((SOURCE, _SOURCE_HELP))
def source(
    origin: str | None = typer.Argument(None, metavar="URL", help=_ORIGIN_HELP),
    ref: str | None = typer.Option(None, "--ref", metavar="NAME", help=_REF_HELP),
    workdir: Path | None = typer.Option(None, "--workdir", metavar="DIR", help=_WORKDIR_HELP),
    allow_dirty: bool = typer.Option(False, "--allow-dirty", help=_ALLOW_DIRTY_HELP),
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Check out a TensorFlow tree (with ORIGIN) and report its version, flavours, commit and what
    a build of it uses (Bazel, Android NDKs, NDK API level), each with where it was read."""
    from tfbuild.toolchain.tf_versions import tree_requirements
    from tfbuild.tree.checkout import SourceRequest, prepare_source
    source_dir = source_tree(flags) if origin is None else Path.cwd()

    info = prepare_source(SourceRequest(origin=origin, ref=ref, workdir=workdir,
                                        allow_dirty=allow_dirty, source=source_dir))
    facts = {line.name: line for line in tree_requirements(info.facts).report()}
    out = _out()
    if as_json:
        report = {**info.to_json(), "build_facts": {name: line.to_json() for name, line in facts.items()}}
        emit_json(json.dumps(report, indent=2))
        return
    commit = _commit_text(info)
    family = f"{info.filegroup_family}_* in tensorflow/core/kernels/BUILD" if info.filegroup_family else "none found"
    rows = [
        ("TensorFlow", info.tf_version),
        ("Bazel", _fact_text(facts["bazel"])),
        ("Android NDKs", _fact_text(facts["android_ndk_majors"])),
        ("NDK API level", _fact_text(facts["default_ndk_api_level"], suffix=" by default")),
        ("Android library", _fact_text(facts["android_inference_package"])),
        ("Toolchain base", _fact_text(facts["debian_suite"], prefix="Debian ")),
        ("Flavours", ", ".join(flavour.value for flavour in info.flavours)
         or "none (no contrib Makefile, no Bazel kernels BUILD)"),
        ("Mobile filegroups", family),
        ("Commit", commit),
    ]
    out.print(plain(f"TensorFlow source tree {info.root}"))
    for label, value in rows:
        out.print(plain(f"  {label:<18} {value}"))


def _commit_text(info: SourceTreeInfo) -> str:
    """The user's commit, and what tfbuild has on top of it: its work commit, a build running."""
    from tfbuild.tree.work_branch import WORK_BRANCH

    if info.commit is None:
        return "not a git checkout"
    text = info.commit + (" (uncommitted changes)" if info.dirty else "")
    if info.work_commit is not None:
        text += f"; tfbuild's work commit {info.work_commit[:12]} is checked out on {WORK_BRANCH}"
    if info.held_by is not None:
        who = "a build" if "build" in info.held_by else "tfbuild"
        text += f"; {who} holds the tree now ({info.held_by})"
    return text


def _fact_text(line: FactLine, *, prefix: str = "", suffix: str = "") -> str:
    """``r10-r18 (configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS)``; ``unknown (why)``."""
    from tfbuild.toolchain.tf_versions import ndk_majors_text

    if line.value is None:
        return line.source
    value = ndk_majors_text(line.value) if isinstance(line.value, tuple) else str(line.value)
    return f"{prefix}{value}{suffix} ({line.source})"


def _print_op_kernels(out: Console, described: Sequence[OpKernels]) -> None:
    """``tfbuild kernels``' text report: per op, its files, headers, classes, devices, guards
    (or, for an op without kernels, the unread registrations that may be its)."""
    for entry in described:
        out.print(plain(entry.op))
        rows = (("unread", entry.unread),) if not entry.registered else (
            ("files", entry.files), ("headers", entry.headers), ("classes", entry.kernel_classes),
            ("devices", entry.devices), ("guards", entry.guards))
        if not entry.registered:
            out.print(plain("  not registered by any CPU kernel in this tree"))
        for label, values in rows:
            for position, value in enumerate(values):
                out.print(plain(f"  {label if position == 0 else '':<8} {value}"))


@app.command("kernels")
@takes_options((SOURCE, _SOURCE_HELP))
def kernels(
    ops: list[str] = typer.Argument(..., metavar="OP", help="Op names, e.g. Conv2D MatMul.", show_default=False),
    flags: Flags = Flags(),  # noqa: B008 (--source: takes_options makes it)
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Which .cc files of the tree register each op's CPU kernels (DEVICE_CPU, and DEVICE_DEFAULT
    as TensorFlow's lookup falls back to it), the headers they include, and the kernel class
    strings. A registration tfbuild could not read is named by file and line. Exit code 4 when
    an op has no CPU kernel in the tree."""
    from tfbuild.tree.kernel_index import IndexStats, build_kernel_index, describe_ops, unread_notes
    source_dir = source_tree(flags)
    stats = IndexStats()
    index = build_kernel_index(source_dir, stats=stats)
    described = describe_ops(index, ops)
    out = _out()
    if stats.notes:
        if _state["debug"]:
            for note in stats.notes:
                stderr.print(plain(f"note: {note}"))
        else:
            skipped = len(stats.notes)
            stderr.print(plain(f"note: {skipped} macro use(s) could not be read and were skipped (--debug lists them)"))
    for note in unread_notes(index):
        stderr.print(plain(f"note: {note}"))
    if as_json:
        report = {
            "source": str(source_dir.resolve()),
            "commit": index.tree_commit,
            "ops": [{"op": d.op, "registered": d.registered, "files": list(d.files), "headers": list(d.headers),
                     "kernel_classes": list(d.kernel_classes), "guards": list(d.guards),
                     "devices": list(d.devices), "unread_registrations": list(d.unread)} for d in described],
            "unread_registrations": [str(u) for u in index.unread],
        }
        emit_json(json.dumps(report, indent=2))
    else:
        _print_op_kernels(out, described)
    missing = [d for d in described if not d.registered]
    if missing:
        unread = sorted({u for d in missing for u in d.unread})
        raise SourceTreeError(
            f"{source_dir}: no CPU kernel registered for {', '.join(d.op for d in missing)}"
            + (f"; {len(unread)} registration(s) tfbuild could not read may be theirs: {'; '.join(unread[:3])}"
               if unread else ""),
            hint="check the op names (tfbuild analyze lists a model's ops), or use a tree that has these kernels",
        )
