"""``tfbuild aar``: one Android library (AAR) from the finished builds of several ABIs.

A CI builds one target per job (``tfbuild build --target android-arm64``, ``... android-armv7``:
a matrix's cells), so the AAR is assembled afterwards from their output directories, the way a
fan-in job would: each build's manifest says which JNI library it linked, for which ABI, Java
package and minimum API level (``android_jni``, :class:`~tfbuild.pipeline.plan.AndroidJniRecord`).
The builds must agree on the package and the library name (the native methods are named after
the class), and each ABI may come once.

The archive holds what Gradle's Android plugin reads from an AAR:

- ``AndroidManifest.xml``: the package and ``minSdkVersion`` (``templates/android/``);
- ``classes.jar``: the inference class whose native methods the library implements, compiled by
  the JDK's ``javac --release 8`` (Java 8 bytecode, as Android's desugaring takes it) against
  ``java.*`` only, since no ``android.jar`` exists here;
- ``jni/<abi>/lib<name>.so`` for each build;
- ``R.txt`` (the library has no resources: empty) and ``proguard.txt``, which keeps the class
  and its native methods (R8 would otherwise rename them and break the JNI names).

Both zips are reproducible: entries sorted, timestamps fixed (``SOURCE_DATE_EPOCH`` when set,
else 1980-01-01), fixed permissions, no extra fields, so two runs over the same builds give the
same bytes. The AAR is written to a temporary file and renamed, and each build's manifest then
records it (``aar``: path, sha256, ABIs, entries).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tfbuild import __version__
from tfbuild.errors import InputFileError, ToolchainError
from tfbuild.fileio import atomic_write_bytes, sha256_file
from tfbuild.pipeline.manifest import Manifest, update_manifest
from tfbuild.templating import render

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can carry: the default fixed timestamp."""
JAVA_RELEASE = "8"


@dataclass(frozen=True)
class AarInput:
    """One finished Android build, as its manifest describes it."""

    out_dir: Path
    target: str
    abi: str
    library: Path
    java_package: str
    java_class: str
    min_sdk: int


@dataclass(frozen=True)
class AarResult:
    path: Path
    sha256: str
    entries: tuple[str, ...]
    abis: tuple[str, ...]
    java_package: str


def read_aar_input(out_dir: Path) -> AarInput:
    """The JNI library of the build in ``out_dir``, or an :class:`InputFileError` saying why
    that build cannot go into an AAR."""
    data = Manifest.read(out_dir)
    manifest = Path(out_dir) / "manifest.json"
    record = data.android_jni
    if record is None:
        raise InputFileError(
            f"{manifest}: the build of {data.target} made no JNI library",
            hint="an AAR takes Android builds of the Makefile flavour with a clang NDK (r19+): tfbuild build "
            "--target android-arm64 --ndk ...",
        )
    name, abi = record.library, record.abi
    package, java_class, min_sdk = record.java_package, record.java_class, record.min_sdk
    library = Path(out_dir) / name
    if not library.is_file():
        raise InputFileError(f"{library}: the JNI library the manifest names is missing", hint="rebuild")
    return AarInput(Path(out_dir), data.target, abi, library, package, java_class, min_sdk)


def check_inputs(inputs: Sequence[AarInput]) -> None:
    """One package, one library name and one class for all; each ABI once."""
    if not inputs:
        raise InputFileError("no build given", hint="pass the output directories of the Android builds")
    first = inputs[0]
    for other in inputs[1:]:
        for what, mine, theirs in (
            ("Java package", first.java_package, other.java_package),
            ("JNI library", first.library.name, other.library.name),
            ("Java class", first.java_class, other.java_class),
        ):
            if mine != theirs:
                raise InputFileError(
                    f"{other.out_dir}: {what} {theirs} differs from {mine} of {first.out_dir}",
                    hint="build every ABI with the same --java-package and --jni-library",
                )
    seen: dict[str, Path] = {}
    for item in inputs:
        if item.abi in seen:
            raise InputFileError(f"{item.out_dir}: ABI {item.abi} is already given by {seen[item.abi]}",
                                 hint="give each ABI's build once")
        seen[item.abi] = item.out_dir


def build_aar(out_dirs: Iterable[Path], aar: Path, *, javac: str = "javac", record: bool = True) -> AarResult:
    """Assemble ``aar`` from the builds in ``out_dirs``; record it in their manifests."""
    inputs = sorted((read_aar_input(Path(d)) for d in out_dirs), key=lambda item: item.abi)
    check_inputs(inputs)
    aar = Path(aar)
    if aar.is_dir():
        raise InputFileError(f"{aar}: is a directory", hint="name the .aar file to write")
    first = inputs[0]
    stamp = _timestamp(os.environ)
    entries: dict[str, bytes] = {
        "AndroidManifest.xml": render(
            "android/AndroidManifest.xml.j2", tfbuild_version=__version__, java_package=first.java_package,
            min_sdk=max(item.min_sdk for item in inputs),
        ).encode("utf-8"),
        "classes.jar": _classes_jar(first, javac, stamp),
        "R.txt": b"",
        "proguard.txt": render(
            "android/proguard.txt.j2", tfbuild_version=__version__, java_package=first.java_package,
            java_class=first.java_class,
        ).encode("utf-8"),
    }
    for item in inputs:
        entries[f"jni/{item.abi}/{item.library.name}"] = item.library.read_bytes()
    atomic_write_bytes(aar, reproducible_zip(entries, stamp))
    result = AarResult(aar, sha256_file(aar), tuple(sorted(entries)), tuple(item.abi for item in inputs),
                       first.java_package)
    if record:
        for item in inputs:
            update_manifest(item.out_dir, "aar", _record(result, item))
    return result


def reproducible_zip(entries: Mapping[str, bytes], stamp: tuple[int, int, int, int, int, int]) -> bytes:
    """A zip of ``entries`` that depends on nothing else: sorted names, one timestamp, regular
    files with mode 0644, deflated, no extra fields."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            info.create_system = 3  # Unix, so the mode above is read as one
            archive.writestr(info, entries[name], compresslevel=9)
    return buffer.getvalue()


def _classes_jar(item: AarInput, javac: str, stamp: tuple[int, int, int, int, int, int]) -> bytes:
    """The inference class compiled by ``javac --release 8`` into a reproducible jar."""
    if shutil.which(javac) is None:
        raise ToolchainError(f"{javac}: no Java compiler on PATH", hint="install a JDK (Debian: default-jdk-headless)")
    source = java_source(item.java_package, item.java_class, item.library.name.removeprefix("lib").removesuffix(".so"))
    with tempfile.TemporaryDirectory(prefix="tfbuild-aar-") as scratch:
        package_dir = Path(scratch, "src", *item.java_package.split("."))
        package_dir.mkdir(parents=True)
        java = package_dir / f"{item.java_class}.java"
        java.write_text(source, encoding="utf-8")
        classes = Path(scratch, "classes")
        argv = [javac, "--release", JAVA_RELEASE, "-encoding", "UTF-8", "-nowarn", "-Xlint:-options",
                "-implicit:none", "-d", str(classes), str(java)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            first_error = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
            raise ToolchainError(f"javac failed on the generated {java.name}: {first_error}",
                                 hint="check the JDK (javac --release 8 must work)")
        manifest = f"Manifest-Version: 1.0\r\nCreated-By: tfbuild {__version__}\r\n\r\n"
        entries = {"META-INF/MANIFEST.MF": manifest.encode("utf-8")}
        for path in sorted(classes.rglob("*.class")):
            entries[path.relative_to(classes).as_posix()] = path.read_bytes()
    return reproducible_zip(entries, stamp)


def java_source(java_package: str, java_class: str, library: str) -> str:
    """The inference class that loads ``lib<library>.so`` and declares its native methods."""
    return render(
        "android/TensorFlowInference.java.j2", tfbuild_version=__version__, java_package=java_package,
        java_class=java_class, library=library,
    )


def _timestamp(environ: Mapping[str, str]) -> tuple[int, int, int, int, int, int]:
    """``SOURCE_DATE_EPOCH`` as a zip timestamp (UTC, even seconds, not before 1980), else 1980-01-01."""
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return ZIP_EPOCH
    try:
        seconds = int(value)
    except ValueError:
        raise InputFileError(f"$SOURCE_DATE_EPOCH: {value!r} is not a whole number of seconds") from None
    moment = time.gmtime(max(seconds, 315532800))  # 1980-01-01, the zip format's first day
    second = moment.tm_sec - moment.tm_sec % 2  # zip times have two-second steps
    return (moment.tm_year, moment.tm_mon, moment.tm_mday, moment.tm_hour, moment.tm_min, second)


def _record(result: AarResult, item: AarInput) -> dict[str, object]:
    return {
        "path": str(result.path.resolve()),
        "sha256": result.sha256,
        "size": result.path.stat().st_size,
        "abis": list(result.abis),
        "java_package": result.java_package,
        "entries": list(result.entries),
        "this_build": f"jni/{item.abi}/{item.library.name}",
    }
