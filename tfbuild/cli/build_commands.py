"""``tfbuild targets | workspace | linkflags | build``: the build step's commands.

Each command takes the build options it needs as flags made from their declarations
(:mod:`tfbuild.cli.option_flags`), resolves them over the environment and tfbuild.toml
(:func:`tfbuild.cli.option_flags.resolve`) and calls one library function; TensorFlow
and the docker SDK are imported only by the code paths that need them. :mod:`tfbuild.cli` adds
the commands to the app by name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tfbuild.cli.option_flags import require_source, resolve, takes_options
from tfbuild.cli.output import lazy_console, print_heading, print_json, print_table, real_console
from tfbuild.cli.params import either
from tfbuild.pipeline.declarations.options import (
    API_LEVEL,
    BUILD_TOOLS,
    NDK,
    NDK_API_LEVEL,
    OPTIONS,
    SDK,
    SOURCE,
    TARGET,
    BuildOptions,
    Flags,
)

if TYPE_CHECKING:
    from tfbuild.pipeline.run import BuildResult

_out = lazy_console()
_plain = lazy_console(markup=False)
_err = lazy_console(stderr=True)


def _options(flags: Flags, config: Path | None, *, require_target: bool = True) -> BuildOptions:
    return resolve(flags, config, require_target=require_target).options


_CONFIG = typer.Option(
    None, "--config", metavar="PATH", help="tfbuild.toml to read (default: ./tfbuild.toml, or $TFBUILD_CONFIG)."
)


def targets_command(
    as_json: bool = typer.Option(False, "--json", help="Print the targets as JSON."),
) -> None:
    """List the build targets (toolchains/*.toml): platform, flavours, what the build needs."""
    from tfbuild.toolchain.targets import builds_here, load_targets

    here = {name: builds_here(profile) for name, profile in load_targets().items()}
    if as_json:
        print_json([
            {"name": p.name, "platform": p.platform, "arch": p.arch, "flavours": list(p.flavours),
             "builds_here": here[p.name][0], "builds_here_detail": here[p.name][1], "requires": list(p.requires),
             "description": p.description}
            for p in load_targets().values()
        ])
        return
    from rich.table import Table

    table = Table(title="tfbuild targets")
    table.add_column("target", no_wrap=True)
    table.add_column("platform", no_wrap=True)
    table.add_column("flavours")
    table.add_column("builds here")
    table.add_column("description")
    for profile in load_targets().values():
        table.add_row(
            profile.name, f"{profile.platform} {profile.arch}", ", ".join(profile.flavours), here[profile.name][1],
            profile.description,
        )
    print_table(_out, table)


@takes_options(SDK, NDK, API_LEVEL, BUILD_TOOLS, NDK_API_LEVEL, (SOURCE, "TensorFlow tree."))
def workspace_command(flags: Flags, config: Path | None = _CONFIG) -> None:
    """Add the Android SDK/NDK repositories to a TensorFlow tree's WORKSPACE (between markers)."""
    from tfbuild.pipeline.flavours.workspace import write_android_workspace

    options = _options(flags, config, require_target=False)
    update = write_android_workspace(require_source(options.source), options.android)
    _plain.print(update.block, end="")
    _plain.print(f"wrote {update.path}")


@takes_options(TARGET, (SOURCE, "TensorFlow tree for header paths."))
def linkflags_command(
    flags: Flags,
    artifacts: Path | None = typer.Option(
        None, "--artifacts", metavar="PATH",
        help="Directory holding the built libraries (default: the build's output directory).",
    ),
    out: Path | None = typer.Option(
        None, "--out-dir", metavar="DIR", help="Where to write the snippets (default: --artifacts)."
    ),
    out_alias: Path | None = typer.Option(None, "--out", hidden=True),
    export: list[str] = typer.Option(
        [], "--export", metavar="SYMBOL",
        help="A shared library exports only this symbol or pattern (repeat; e.g. 'myapp_*'): "
        "writes an export file for the snippets' shared-library links.",
    ),
    jni: bool = typer.Option(False, "--jni", help="A JNI library: export JNI_OnLoad, JNI_OnUnload and Java_*."),
    config: Path | None = _CONFIG,
) -> None:
    """Print and write the link settings an app needs (Xcode, CMake, ndk-build, Gradle, Make)."""
    from tfbuild.pipeline.outputs.exports import requested_exports
    from tfbuild.pipeline.outputs.linkflags import (
        link_inputs,
        render_link_snippets,
        write_export_file,
        write_link_snippets,
    )
    from tfbuild.toolchain.targets import get_target

    options = _options(flags, config)
    profile = get_target(options.target)
    artifacts_dir = artifacts.resolve() if artifacts is not None else options.output_dir
    out = either(out, out_alias, "--out-dir", "--out")
    out_dir = out.resolve() if out is not None else artifacts_dir
    exports = requested_exports(tuple(export), jni=jni)
    inputs = link_inputs(profile, artifacts_dir, source=options.source, exports=exports, out_dir=out_dir)
    snippets = render_link_snippets(profile, inputs)
    if inputs.exports is not None:
        print_heading(_out, inputs.exports.file.file_name)
        _plain.print(inputs.exports.file.text, end="")
    for snippet in snippets:
        print_heading(_out, snippet.file_name)
        _plain.print(snippet.text, end="")
    export_path = write_export_file(inputs)
    written = write_link_snippets(snippets, out_dir)
    for path in (export_path, *written) if export_path is not None else written:
        _plain.print(f"wrote {path}")
    if inputs.missing:
        _plain.print(f"note: not in {artifacts_dir} yet: {', '.join(inputs.missing)} (build first)")


@takes_options(*OPTIONS)
def build_command(
    flags: Flags,
    config: Path | None = _CONFIG,
    as_json: bool = typer.Option(
        False, "--json",
        help="Print the plan (--dry-run) or the manifest as JSON on stdout; progress and notes go to stderr.",
    ),
) -> None:
    """Build a selective TensorFlow (or op library) for a target, or print the plan (--dry-run)."""
    from tfbuild.pipeline.run import run_build

    options = _options(flags, config)
    result = run_build(options, console=None if options.dry_run else real_console(_err if as_json else _out))
    if as_json:
        _print_build_json(result)
    elif result.dry_run:
        _plain.print(result.text, end="")
    if result.stop is not None:  # the dry run's verdict: the code the build would exit with
        raise result.stop
    if as_json or result.dry_run:
        return
    for note in result.notes:
        _plain.print(f"note: {note}")
    from rich.table import Table

    table = Table(title=f"{result.plan.target} ({result.plan.flavour})")
    for column in ("artifact", "bytes"):
        table.add_column(column)
    for path in result.artifacts:
        table.add_row(str(path), f"{path.stat().st_size:,}")
    print_table(_out, table)
    _plain.print(f"manifest: {result.manifest}")
    _plain.print(f"log: {result.log}")
    if result.report is not None:  # the size report, as `tfbuild report --out` prints it
        _plain.print()
        _plain.print(result.report.markdown, end="")
        _plain.print(f"report: {', '.join(str(path) for path in result.report.files)}")


def _print_build_json(result: BuildResult) -> None:
    """``build --json``: the plan of a dry run, or the manifest the build wrote, with its notes;
    the notes also go to stderr for whoever reads the log."""
    for note in result.notes:
        _err.print(f"note: {note}", markup=False)
    if result.dry_run:
        print_json({"dry_run": True, "plan": result.plan, "before_analysis": result.before_analysis,
                    "notes": result.notes, "header": result.header_text})
        return
    assert result.manifest is not None
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    print_json({"dry_run": False, "manifest_path": result.manifest, "manifest": manifest, "notes": result.notes,
                "log": result.log, "report": result.report.files if result.report else None})
