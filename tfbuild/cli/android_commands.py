"""``tfbuild aar``: pack the JNI libraries of finished Android builds into one AAR.

Each ABI is its own build (one CI job each); this command is the fan-in. It only reads the
builds' manifests and libraries and runs the JDK's ``javac`` on the generated Java class
(:mod:`tfbuild.pipeline.outputs.android.aar`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.option_flags import resolve, takes_options
from tfbuild.cli.output import lazy_console
from tfbuild.pipeline.declarations import options
from tfbuild.pipeline.declarations.options import Flags

_plain = lazy_console()


@app.command("aar")
@takes_options((options.SOURCE_DATE_EPOCH, "Time of the archives' entries (default: 1980-01-01)."))
def aar_command(
    builds: list[Path] = typer.Argument(
        ..., metavar="DIR", show_default=False, help="Output directories of Android builds (one per ABI)."
    ),
    output: Path | None = typer.Option(None, "-o", "--output", metavar="PATH", help="The .aar file to write."),
    maven_repo: Path | None = typer.Option(
        None, "--maven-repo", metavar="DIR",
        help="Also publish the AAR with a POM into this Maven repository directory (a Gradle app's maven { url }).",
    ),
    coordinates: str | None = typer.Option(
        None, "--coordinates", metavar="GROUP:ARTIFACT:VERSION",
        help="Maven coordinates (default: org.tensorflow:tensorflow-android:<TF version>-tfbuild for TensorFlow's "
        "own Java API, org.tensorflow.tfbuild:tfbuild-inference:<TF version> for tfbuild's class).",
    ),
    android_jar: Path | None = typer.Option(
        None, "--android-jar", metavar="PATH",
        help="An Android SDK's android.jar to compile TensorFlow's Java API against (default: tfbuild's "
        "stand-ins of the android.* members it calls, which stay out of the AAR).",
    ),
    flags: Flags = Flags(),  # noqa: B008 (the flag of the declaration above: takes_options fills it)
) -> None:
    """Assemble an AAR (manifest, classes.jar, jni/<abi>/lib*.so, R.txt, proguard.txt) from Android builds."""
    from tfbuild.pipeline.outputs.android.aar import build_aar
    from tfbuild.pipeline.outputs.android.maven import parse_coordinates

    wanted = parse_coordinates(coordinates) if coordinates is not None else None
    resolved = resolve(flags, require_target=False)
    result = build_aar(builds, output, maven_repo=maven_repo, coordinates=wanted, stubs=android_jar,
                       epoch=resolved.options.source_date_epoch, epoch_from=resolved.origin(options.SOURCE_DATE_EPOCH))
    _plain.print(f"wrote {result.path} ({', '.join(result.abis)}; {result.java_package}; sha256 {result.sha256})")
    for entry in result.entries:
        _plain.print(f"  {entry}")
    if result.maven is not None:
        published = result.maven
        state = "published" if published.written else "already published, the same bytes"
        _plain.print(f"{state}: {published.coordinates} in {maven_repo}")
        _plain.print(f"  Gradle: repositories {{ maven {{ url '{Path(maven_repo or '.').resolve().as_uri()}' }} }}")
        _plain.print(f"          dependencies {{ implementation '{published.coordinates}' }}")
