"""``tfbuild toolchain base|build|list``: the Docker images builds run in, as a sub-app
:mod:`tfbuild.cli` adds under ``toolchain``."""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import CommandGroup
from tfbuild.cli.output import lazy_console, print_table, stdout_console
from tfbuild.errors import ConfigError

toolchain_app = typer.Typer(
    cls=CommandGroup,
    help="Make the base image and the toolchain images builds run in.", no_args_is_help=True
)

_out = lazy_console(markup=False)


def _log_line(line: str) -> None:
    _out.print(line)


def parse_build_args(pairs: list[str]) -> dict[str, str]:
    """``--build-arg NAME=VALUE`` options as a mapping; a pair without ``=`` is a usage error."""
    args: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ConfigError(
                f"--build-arg {pair!r}: expected NAME=VALUE", hint="e.g. --build-arg BAZEL_VERSION=0.26.1"
            )
        args[name] = value
    return args


@toolchain_app.command("base")
def base_command(
    suite: str = typer.Option("bookworm", "--suite", metavar="NAME", help="Debian suite to debootstrap."),
    mirror: str = typer.Option("http://deb.debian.org/debian", "--mirror", metavar="URL", help="Debian mirror URL."),
    tag: str | None = typer.Option(None, "--tag", metavar="NAME", help="Image tag (default: tfbuild-base:<suite>)."),
    force: bool = typer.Option(False, "--force", help="Make it again even if the tag exists."),
    workdir: Path | None = typer.Option(
        None, "--workdir", metavar="DIR",
        help="Scratch directory for the root file system.",
    ),
) -> None:
    """Make the Debian base image with debootstrap + docker import (needs root, no registry)."""
    from tfbuild.toolchain.base_image import BaseImageOptions, make_base_image

    options = BaseImageOptions(suite=suite, mirror=mirror, tag=tag, force=force, workdir=workdir)
    result = make_base_image(options, log=_log_line)
    verb = "made" if result.created else "kept"
    _out.print(f"{verb} {result.tag} ({result.image_id[:19]}) in {result.seconds:.0f} s")


@toolchain_app.command("build")
def build_command(
    name: str = typer.Argument(
        ..., metavar="NAME",
        help="Toolchain name: docker/<NAME>.Dockerfile (linux, bazel, android).",
    ),
    base: str | None = typer.Option(
        None, "--base", metavar="NAME",
        help="Base image (default: tfbuild-base:bookworm).",
    ),
    build_arg: list[str] = typer.Option(
        [], "--build-arg", metavar="NAME=VALUE",
        help="NAME=VALUE passed to the Dockerfile.",
    ),
    force: bool = typer.Option(False, "--force", help="Build again even if the tag exists."),
) -> None:
    """Build (or reuse) a toolchain image; its tag is a digest of the Dockerfile and arguments."""
    from tfbuild.toolchain.images import build_toolchain

    image = build_toolchain(name, base=base, build_args=parse_build_args(build_arg), force=force, log=_log_line)
    verb = "built" if image.built else "reused"
    _out.print(f"{verb} {image.spec.tag} ({image.image_id[:19]}) in {image.seconds:.0f} s")
    if image.packages_path is not None:
        _out.print(f"package versions: {image.packages_path}")


@toolchain_app.command("list")
def list_command(
    base: str | None = typer.Option(None, "--base", metavar="NAME", help="Base image the tags are computed for."),
) -> None:
    """Show each toolchain, the tag its default arguments give, and whether that image exists."""
    from rich.table import Table

    from tfbuild.toolchain.images import list_toolchains

    table = Table(title="Toolchain images (built, and the default arguments' tag)")
    for column in ("Toolchain", "Tag", "Built", "Package record"):
        table.add_column(column, overflow="fold")
    for row in list_toolchains(base=base):
        table.add_row(row.name, row.tag, "yes" if row.present else "no", str(row.packages_path or "-"))
    print_table(stdout_console(markup=False), table)
