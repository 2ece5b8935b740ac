"""``tfbuild aar``: pack the JNI libraries of finished Android builds into one AAR.

Each ABI is its own build (one CI job each); this command is the fan-in. It only reads the
builds' manifests and libraries and runs the JDK's ``javac`` on the generated Java class
(:mod:`tfbuild.pipeline.android.aar`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.output import lazy_console

_plain = lazy_console()


@app.command("aar")
def aar_command(
    builds: list[Path] = typer.Argument(
        ..., metavar="DIR", show_default=False, help="Output directories of Android builds (one per ABI)."
    ),
    output: Path = typer.Option(..., "-o", "--output", metavar="PATH", help="The .aar file to write."),
) -> None:
    """Assemble an AAR (manifest, classes.jar, jni/<abi>/lib*.so, R.txt, proguard.txt) from Android builds."""
    from tfbuild.pipeline.android.aar import build_aar

    result = build_aar(builds, output)
    _plain.print(f"wrote {result.path} ({', '.join(result.abis)}; {result.java_package}; sha256 {result.sha256})")
    for entry in result.entries:
        _plain.print(f"  {entry}")
