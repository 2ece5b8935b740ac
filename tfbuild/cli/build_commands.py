"""``tfbuild targets | workspace | linkflags | build``: the build step's commands.

Each command turns its flags into the typed options (:func:`tfbuild.pipeline.options.resolve_build_options`
layers them over tfbuild.toml and the environment) and calls one library function; TensorFlow
and the docker SDK are imported only by the code paths that need them. :mod:`tfbuild.cli` adds
the commands to the app by name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from tfbuild.cli.output import print_json, print_table, stdout_console
from tfbuild.flavour import Flavour

if TYPE_CHECKING:
    from tfbuild.pipeline.options import BuildOptions
    from tfbuild.pipeline.run import BuildResult

_out = stdout_console()
_plain = stdout_console(markup=False)
_err = Console(stderr=True, highlight=False, soft_wrap=True)


def _options(cli: Mapping[str, object], config: Path | None, *, require_target: bool = True) -> BuildOptions:
    from tfbuild.pipeline.options import resolve_build_options

    given = {name: value for name, value in cli.items() if value not in (None, [], ())}
    return resolve_build_options(
        given, environ=os.environ, cwd=Path.cwd(), config_file=config, require_target=require_target
    )


_CONFIG = typer.Option(None, "--config", help="tfbuild.toml to read (default: ./tfbuild.toml if present).")


def targets_command(
    as_json: bool = typer.Option(False, "--json", help="Print the targets as JSON."),
) -> None:
    """List the build targets (toolchains/*.toml): platform, flavours, what the build needs."""
    from tfbuild.toolchain.targets import load_targets

    if as_json:
        print_json([
            {"name": p.name, "platform": p.platform, "arch": p.arch, "flavours": list(p.flavours),
             "builds_here": p.runnable_here, "requires": list(p.requires), "description": p.description}
            for p in load_targets().values()
        ])
        return
    table = Table(title="tfbuild targets")
    table.add_column("target", no_wrap=True)
    table.add_column("platform", no_wrap=True)
    table.add_column("flavours")
    table.add_column("builds here")
    table.add_column("description")
    for profile in load_targets().values():
        here = "yes" if profile.runnable_here else f"plan only (needs {', '.join(profile.requires)})"
        table.add_row(
            profile.name, f"{profile.platform} {profile.arch}", ", ".join(profile.flavours), here, profile.description
        )
    print_table(_out, table)


def workspace_command(
    sdk: Path | None = typer.Option(None, "--sdk", help="Android SDK directory."),
    ndk: Path | None = typer.Option(None, "--ndk", help="Android NDK directory."),
    api_level: int | None = typer.Option(None, "--api-level", help="SDK platform (default: highest installed)."),
    build_tools: str | None = typer.Option(None, "--build-tools", help="Build tools (default: highest installed)."),
    ndk_api_level: int | None = typer.Option(None, "--ndk-api-level", help="NDK API level (default: the tree's)."),
    source: Path | None = typer.Option(None, "--source", help="TensorFlow tree (default: current directory)."),
    config: Path | None = _CONFIG,
) -> None:
    """Add the Android SDK/NDK repositories to a TensorFlow tree's WORKSPACE (between markers)."""
    from tfbuild.pipeline.workspace import write_android_workspace

    options = _options(
        {
            "sdk": sdk, "ndk": ndk, "api_level": api_level, "build_tools": build_tools,
            "ndk_api_level": ndk_api_level, "source": source,
        },
        config,
        require_target=False,
    )
    update = write_android_workspace(options.source or Path.cwd(), options.android)
    _plain.print(update.block, end="")
    _plain.print(f"wrote {update.path}")


def linkflags_command(
    target: str | None = typer.Option(None, "--target", help="Build target (see 'tfbuild targets')."),
    artifacts: Path | None = typer.Option(
        None, "--artifacts", help="Directory holding the built libraries (default: the build's output directory)."
    ),
    out: Path | None = typer.Option(None, "--out", help="Where to write the snippets (default: --artifacts)."),
    source: Path | None = typer.Option(None, "--source", help="TensorFlow tree for header paths."),
    export: list[str] = typer.Option(
        [], "--export", metavar="SYMBOL",
        help="A shared library exports only this symbol or pattern (repeat; e.g. 'myapp_*'): "
        "writes an export file for the snippets' shared-library links.",
    ),
    jni: bool = typer.Option(False, "--jni", help="A JNI library: export JNI_OnLoad, JNI_OnUnload and Java_*."),
    config: Path | None = _CONFIG,
) -> None:
    """Print and write the link settings an app needs (Xcode, CMake, ndk-build, Gradle, Make)."""
    from tfbuild.pipeline.exports import requested_exports
    from tfbuild.pipeline.linkflags import link_inputs, render_link_snippets, write_export_file, write_link_snippets
    from tfbuild.toolchain.targets import get_target

    options = _options({"target": target, "source": source}, config)
    profile = get_target(options.target)
    artifacts_dir = artifacts.resolve() if artifacts is not None else options.output_dir
    out_dir = out.resolve() if out is not None else artifacts_dir
    exports = requested_exports(tuple(export), jni=jni)
    inputs = link_inputs(profile, artifacts_dir, source=options.source, exports=exports, out_dir=out_dir)
    snippets = render_link_snippets(profile, inputs)
    if inputs.exports is not None:
        _out.rule(inputs.exports.file.file_name)
        _plain.print(inputs.exports.file.text, end="")
    for snippet in snippets:
        _out.rule(snippet.file_name)
        _plain.print(snippet.text, end="")
    export_path = write_export_file(inputs)
    written = write_link_snippets(snippets, out_dir)
    for path in (export_path, *written) if export_path is not None else written:
        _plain.print(f"wrote {path}")
    if inputs.missing:
        _plain.print(f"note: not in {artifacts_dir} yet: {', '.join(inputs.missing)} (build first)")


def build_command(
    target: str | None = typer.Option(None, "--target", help="Build target (see 'tfbuild targets')."),
    app: str | None = typer.Option(
        None, "--app", help="Build [apps.NAME] of tfbuild.toml: its models, op sources, profile (see 'tfbuild plan')."
    ),
    model: list[Path] = typer.Option([], "--model", help="Model file or SavedModel (repeat for several)."),
    source: Path | None = typer.Option(None, "--source", help="TensorFlow source tree to build."),
    flavour: str | None = typer.Option(None, "--flavour", help=f"{' | '.join(Flavour)} (default: chosen)."),
    out: Path | None = typer.Option(
        None, "--out", help="Output directory (default: tfbuild-out/<target>, or tfbuild-out/<app>/<target>)."
    ),
    local: bool | None = typer.Option(None, "--local/--no-local", help="Run on this machine, not in a container."),
    dry_run: bool | None = typer.Option(
        None, "--dry-run",
        help="Check as the build would (analysis, preflight, prerequisites), print the plan and the tree "
        "changes as a diff; compile, change and write nothing.",
    ),
    op_source: list[Path] = typer.Option([], "--op-source", help="A custom-op .cc file (repeat); no --source needed."),
    ops_library_name: str | None = typer.Option(None, "--ops-library-name", help="Op library name (lib<name>.so/.a)."),
    jobs: int | None = typer.Option(None, "--jobs", help="Parallel compile jobs (default: CPU count)."),
    timeout: float | None = typer.Option(None, "--timeout", help="Seconds the whole build may take."),
    protobuf_rename: bool | None = typer.Option(
        None, "--protobuf-rename/--no-protobuf-rename", help="Rename protobuf to google::protobuf3 (Makefile)."
    ),
    extra_cflag: list[str] = typer.Option([], "--extra-cflag", help="Extra compiler flag (repeat)."),
    size_profile: str | None = typer.Option(
        None, "--size-profile",
        help="Size profile: stock | balanced | small (default: stock, the tree's own flags).",
    ),
    per_file_selection: bool | None = typer.Option(
        None, "--per-file-selection/--one-selection",
        help="Each kernel source sees only its own selection (Makefile): a second app recompiles less.",
    ),
    source_date_epoch: int | None = typer.Option(
        None, "--source-date-epoch",
        help="Build time for date macros (default: tree's commit time).",
    ),
    default_ops: str | None = typer.Option(None, "--default-ops", help="Header default ops ('' for none, 'all')."),
    granularity: str | None = typer.Option(None, "--granularity", help="Header granularity: kernel | op."),
    sdk: Path | None = typer.Option(None, "--sdk", help="Android SDK directory (Bazel Android builds)."),
    ndk: Path | None = typer.Option(None, "--ndk", help="Android NDK directory (Android builds)."),
    api_level: int | None = typer.Option(None, "--api-level", help="Android SDK platform level."),
    build_tools: str | None = typer.Option(None, "--build-tools", help="Android build tools version."),
    ndk_api_level: int | None = typer.Option(None, "--ndk-api-level", help="Android NDK API level."),
    mobile_types: str | None = typer.Option(
        None, "--mobile-types",
        help="Android/iOS type set: auto (slim when every kernel the models need survives it) | slim | full.",
    ),
    java_package: str | None = typer.Option(
        None, "--java-package", help="Java package of the JNI library's inference class (Android)."
    ),
    jni_library: str | None = typer.Option(
        None, "--jni-library", help="JNI library name, lib<name>.so (Android; default tensorflow_inference)."
    ),
    base_image: str | None = typer.Option(None, "--base-image", help="Base image of the toolchain images."),
    cache_prefix: str | None = typer.Option(None, "--cache-prefix", help="Prefix of the cache volume names."),
    remote_cache: str | None = typer.Option(
        None, "--remote-cache",
        help="Shared compile cache URL: http(s)/redis for ccache, http(s)/grpc for Bazel (user:password@ allowed).",
    ),
    distcc_hosts: list[str] = typer.Option(
        [], "--distcc-host", help="A distccd worker as distcc names it, HOST:PORT/LIMIT (repeat; Makefile flavour)."
    ),
    config: Path | None = _CONFIG,
    as_json: bool = typer.Option(
        False, "--json",
        help="Print the plan (--dry-run) or the manifest as JSON on stdout; progress and notes go to stderr.",
    ),
) -> None:
    """Build a selective TensorFlow (or op library) for a target, or print the plan (--dry-run)."""
    from tfbuild.pipeline.run import run_build

    options = _options(
        {
            "target": target, "app": app, "models": model, "source": source, "flavour": flavour, "output_dir": out,
            "local": local, "dry_run": dry_run, "op_sources": op_source, "ops_library_name": ops_library_name,
            "jobs": jobs, "timeout": timeout, "protobuf_rename": protobuf_rename, "extra_cflags": extra_cflag,
            "size_profile": size_profile, "source_date_epoch": source_date_epoch,
            "per_file_selection": per_file_selection,
            "default_ops": default_ops, "granularity": granularity, "sdk": sdk, "ndk": ndk,
            "api_level": api_level, "build_tools": build_tools, "ndk_api_level": ndk_api_level,
            "mobile_types": mobile_types, "java_package": java_package, "jni_library": jni_library,
            "base_image": base_image, "cache_prefix": cache_prefix,
            "remote_cache": remote_cache, "distcc_hosts": distcc_hosts or None,
        },
        config,
    )
    result = run_build(options, console=None if options.dry_run else _err if as_json else _out)
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
        print_json({"dry_run": True, "plan": result.plan, "notes": result.notes, "header": result.header_text})
        return
    assert result.manifest is not None
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    print_json({"dry_run": False, "manifest_path": result.manifest, "manifest": manifest, "notes": result.notes,
                "log": result.log, "report": result.report.files if result.report else None})
