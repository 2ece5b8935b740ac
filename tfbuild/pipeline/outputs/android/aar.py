"""``tfbuild aar``: one Android library (AAR) from the finished builds of several ABIs.

A CI builds one target per job (``tfbuild build --target android-arm64``, ``... android-armv7``:
a matrix's cells), so the AAR is assembled afterwards from their output directories, the way a
fan-in job would: each build's manifest says which JNI library it linked, for which ABI, Java
package and minimum API level (``android_jni``, :class:`~tfbuild.pipeline.planning.plan.AndroidJniRecord`).
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

Both zips are reproducible: entries sorted, timestamps fixed (the build option
``source_date_epoch``, from ``--source-date-epoch``, ``SOURCE_DATE_EPOCH`` or ``tfbuild.toml``,
when set, else 1980-01-01), fixed permissions, no extra fields, so two runs over the same builds give the
same bytes. The AAR is written to a temporary file and renamed, and each build's manifest then
records it (``aar``: path, sha256, ABIs, entries).
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tfbuild import __version__
from tfbuild.errors import ConfigError, InputFileError, ManifestError, OutputPathError, ToolchainError
from tfbuild.fileio import atomic_write_bytes, sha256_file
from tfbuild.pipeline.outputs.android.jni_library import JAVA_DIR, JNI_DIR
from tfbuild.pipeline.outputs.android.maven import Coordinates, Published, default_coordinates, publish
from tfbuild.pipeline.outputs.manifest import MANIFEST_NAME, Manifest, update_manifest
from tfbuild.pipeline.planning.plan import AndroidJniRecord
from tfbuild.pipeline.planning.reproducible import ZIP_EPOCH
from tfbuild.resources import templates_dir
from tfbuild.templating import render

STUBS_DIR = "android/stand_ins"
"""``android.*`` stand-ins under ``templates/`` to compile against (its README says why)."""

JAVA_RELEASE = "8"
LATEST_ZIP_TIME = 4354819199
"""2107-12-31 23:59:59 UTC: the last moment a zip entry's date can hold."""


ABIS = ("arm64-v8a", "armeabi-v7a", "x86_64", "x86", "riscv64")
"""The ABI directories Android's package manager reads under ``jni/``."""
MIN_SDK_RANGE = range(1, 100)
_LIBRARY_FILE = re.compile(r"lib[A-Za-z][A-Za-z0-9_]*\.so")
_JAVA_SOURCE = re.compile(r"java/(?:[A-Za-z_][A-Za-z0-9_]*/)+(?:[A-Za-z_][A-Za-z0-9_]*|package-info)\.java")
"""A Java source a build copies: a class's file, or a package's ``package-info.java`` (r1.9's
``org/tensorflow`` has one)."""
_JAVA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)*")


@dataclass(frozen=True)
class AarInput:
    """One finished Android build, as its manifest describes it (checked: a manifest is input)."""

    out_dir: Path
    target: str
    abi: str
    library: Path
    java_package: str
    java_class: str
    min_sdk: int
    java_api: str = "tfbuild"
    java_sources: tuple[Path, ...] = ()
    jni_classes: tuple[str, ...] = ()
    tensorflow_version: str = ""

    @property
    def inputs(self) -> tuple[Path, ...]:
        """Every file the AAR is made from: none of them may be its output."""
        return (self.out_dir / MANIFEST_NAME, self.library, *self.java_sources)


@dataclass(frozen=True)
class AarResult:
    path: Path
    """The AAR written: ``-o``'s file, else the one in the Maven repository."""
    sha256: str
    entries: tuple[str, ...]
    abis: tuple[str, ...]
    java_package: str
    java_api: str = "tfbuild"
    maven: Published | None = None


def read_aar_input(out_dir: Path) -> AarInput:
    """The JNI library of the build in ``out_dir``, or an :class:`InputFileError` saying why
    that build cannot go into an AAR."""
    data = Manifest.read(out_dir)
    manifest = Path(out_dir) / MANIFEST_NAME
    record = data.android_jni
    if record is None:
        raise InputFileError(
            f"{manifest}: the build of {data.target} made no JNI library",
            hint="an AAR takes Android builds of the Makefile flavour with a clang NDK (r19+): tfbuild build "
            "--target android-arm64 --ndk ...",
        )
    _check_record(manifest, record)
    library = Path(out_dir) / record.library
    if not library.is_file():
        raise InputFileError(f"{library}: the JNI library the manifest names is missing", hint="rebuild")
    sources = tuple(Path(out_dir) / source for source in record.java_sources)
    missing = next((source for source in sources if not source.is_file()), None)
    if missing is not None:
        raise InputFileError(f"{missing}: a Java source the manifest names is missing", hint="rebuild")
    return AarInput(Path(out_dir), data.target, record.abi, library, record.java_package, record.java_class,
                    record.min_sdk, record.java_api, sources, record.jni_classes, data.tensorflow.version)


def _check_record(manifest: Path, record: AndroidJniRecord) -> None:
    """A manifest is input like any other: every name in its JNI record must be what a build
    writes (a file name, not a path out of the build's directory), every number in range."""
    bad: str | None = None
    if not _LIBRARY_FILE.fullmatch(record.library):
        bad = f"android_jni.library {record.library!r} is not a lib<name>.so file name"
    elif record.abi not in ABIS:
        bad = f"android_jni.abi {record.abi!r} is not an Android ABI ({', '.join(ABIS)})"
    elif record.min_sdk not in MIN_SDK_RANGE:
        bad = f"android_jni.min_sdk {record.min_sdk!r} is not an API level"
    elif record.java_api not in ("tensorflow", "tfbuild"):
        bad = f"android_jni.java_api {record.java_api!r} is not tensorflow or tfbuild"
    elif not all(_JAVA_NAME.fullmatch(name) for name in (record.java_package, record.java_class, *record.jni_classes)):
        bad = "android_jni names a Java package or class that is not a Java name"
    else:
        source = next((source for source in record.java_sources if not _JAVA_SOURCE.fullmatch(source)), None)
        if source is not None:
            bad = f"android_jni.java_sources holds {source!r}, not a java/<package>/<Class>.java path"
    if bad is not None:
        raise ManifestError(f"{manifest}: {bad}", hint="rebuild")


def check_inputs(inputs: Sequence[AarInput]) -> None:
    """One package, one library name and one class for all; each ABI once."""
    if not inputs:
        raise InputFileError("no build given", hint="pass the output directories of the Android builds")
    first = inputs[0]
    for other in inputs[1:]:
        for what, mine, theirs in (
            ("Java API", first.java_api, other.java_api),
            ("Java package", first.java_package, other.java_package),
            ("JNI library", first.library.name, other.library.name),
            ("Java class", first.java_class, other.java_class),
        ):
            if mine != theirs:
                raise InputFileError(
                    f"{other.out_dir}: {what} {theirs} differs from {mine} of {first.out_dir}",
                    hint="build every ABI with the same --java-package and --jni-library",
                )
        if _java_digest(other) != _java_digest(first):
            raise InputFileError(f"{other.out_dir}: its Java API sources differ from those of {first.out_dir}",
                                 hint="build every ABI from the same tree")
    seen: dict[str, Path] = {}
    for item in inputs:
        if item.abi in seen:
            raise InputFileError(f"{item.out_dir}: ABI {item.abi} is already given by {seen[item.abi]}",
                                 hint="give each ABI's build once")
        seen[item.abi] = item.out_dir


def _java_digest(item: AarInput) -> list[tuple[str, str]]:
    return sorted((source.relative_to(item.out_dir).as_posix(), sha256_file(source)) for source in item.java_sources)


def check_output(aar: Path, inputs: Sequence[AarInput]) -> None:
    """Refuse an output that is a directory, or that would replace one of the AAR's own inputs
    (a build's manifest, JNI library or Java source) or anything a build recorded as its own."""
    aar = Path(aar)
    if aar.is_dir():
        raise OutputPathError(f"{aar}: is a directory", hint="name the .aar file to write")
    if aar.exists() and not _is_aar(aar):
        raise OutputPathError(f"{aar}: exists and is not an AAR", hint="tfbuild aar replaces only an AAR it can read")
    target = aar.resolve()
    for item in inputs:
        owned = {path.resolve() for path in item.inputs}
        for directory in (JNI_DIR, JAVA_DIR):
            if target.is_relative_to((item.out_dir / directory).resolve()):
                owned.add(target)
        for artifact in Manifest.read(item.out_dir).artifacts:
            owned.add((item.out_dir / artifact.name).resolve())
        if target in owned:
            raise OutputPathError(f"{aar}: is a file of the build in {item.out_dir}, which the AAR is made from",
                                  hint="write the AAR elsewhere")


def _is_aar(path: Path) -> bool:
    """Whether ``path`` is a zip holding an Android library's manifest and classes."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {"AndroidManifest.xml", "classes.jar"} <= set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def build_aar(out_dirs: Iterable[Path], aar: Path | None, *, javac: str = "javac", record: bool = True,
              stubs: Path | None = None, maven_repo: Path | None = None,
              coordinates: Coordinates | None = None, epoch: int | None = None,
              epoch_from: str = "source date epoch") -> AarResult:
    """Assemble an AAR from the builds in ``out_dirs`` into ``aar`` and/or a Maven repository
    (:mod:`~tfbuild.pipeline.outputs.android.maven`; coordinates default from the Java API and the tree's
    TensorFlow version); record it in their manifests. ``stubs`` is a class path of ``android.*``
    to compile the tree's Java API against (an SDK's ``android.jar``); without it, tfbuild's
    stand-ins. ``epoch``: the entries' time in seconds since 1970 (the build option
    ``source_date_epoch``, given by ``epoch_from``), None for 1980-01-01."""
    if aar is None and maven_repo is None:
        raise ConfigError("nothing to write", hint="give -o FILE.aar, --maven-repo DIR, or both")
    stamp = zip_timestamp(epoch, epoch_from)
    inputs = sorted((read_aar_input(Path(d)) for d in out_dirs), key=lambda item: item.abi)
    check_inputs(inputs)
    if aar is not None:
        check_output(Path(aar), inputs)
    first = inputs[0]
    if maven_repo is not None:
        coordinates = coordinates or default_coordinates(first.java_api, first.tensorflow_version)
        check_output(Path(maven_repo) / coordinates.version_dir / coordinates.file_name("aar"), inputs)
    entries: dict[str, bytes] = {
        "AndroidManifest.xml": render(
            "android/AndroidManifest.xml.j2", tfbuild_version=__version__, java_package=first.java_package,
            min_sdk=max(item.min_sdk for item in inputs),
        ).encode("utf-8"),
        "classes.jar": _classes_jar(first, javac, stamp, stubs),
        "R.txt": b"",
        "proguard.txt": render(
            "android/proguard.txt.j2", tfbuild_version=__version__, java_package=first.java_package,
            java_class=first.java_class, java_api=first.java_api, jni_classes=first.jni_classes,
        ).encode("utf-8"),
    }
    for item in inputs:
        entries[f"jni/{item.abi}/{item.library.name}"] = item.library.read_bytes()
    data = reproducible_zip(entries, stamp)
    published = None
    if maven_repo is not None:
        assert coordinates is not None
        published = publish(data, Path(maven_repo), coordinates, epoch=epoch, description=(
            f"TensorFlow {first.tensorflow_version} for Android, selective build by tfbuild "
            f"({first.java_package}.{first.java_class}; {', '.join(item.abi for item in inputs)})"))
    if aar is not None:
        atomic_write_bytes(aar, data)
    written = Path(aar) if aar is not None else published.aar if published is not None else None
    assert written is not None
    result = AarResult(written, hashlib.sha256(data).hexdigest(), tuple(sorted(entries)),
                       tuple(item.abi for item in inputs), first.java_package, first.java_api, published)
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


def _classes_jar(item: AarInput, javac: str, stamp: tuple[int, int, int, int, int, int],
                 stubs: Path | None) -> bytes:
    """The Java API compiled by ``javac --release 8`` into a reproducible jar: the tree's sources
    (against ``android.*`` stand-ins, which stay out of the jar), or tfbuild's generated class."""
    if shutil.which(javac) is None:
        raise ToolchainError(f"{javac}: no Java compiler on PATH", hint="install a JDK (Debian: default-jdk-headless)")
    with tempfile.TemporaryDirectory(prefix="tfbuild-aar-") as scratch:
        classes = Path(scratch, "classes")
        if item.java_api == "tensorflow":
            class_path = stubs or _compile(javac, sorted(templates_dir().joinpath(STUBS_DIR).rglob("*.java")),
                                           Path(scratch, "stubs"), None, "the android.* stand-ins")
            _compile(javac, list(item.java_sources), classes, class_path, f"the Java API of {item.out_dir}")
        else:
            source = java_source(item.java_package, item.java_class,
                                 item.library.name.removeprefix("lib").removesuffix(".so"))
            package_dir = Path(scratch, "src", *item.java_package.split("."))
            package_dir.mkdir(parents=True)
            java = package_dir / f"{item.java_class}.java"
            java.write_text(source, encoding="utf-8")
            _compile(javac, [java], classes, None, f"the generated {java.name}")
        manifest = f"Manifest-Version: 1.0\r\nCreated-By: tfbuild {__version__}\r\n\r\n"
        entries = {"META-INF/MANIFEST.MF": manifest.encode("utf-8")}
        for path in sorted(classes.rglob("*.class")):
            entries[path.relative_to(classes).as_posix()] = path.read_bytes()
    return reproducible_zip(entries, stamp)


def _compile(javac: str, sources: Sequence[Path], classes: Path, class_path: Path | None, what: str) -> Path:
    """``javac --release 8`` of ``sources`` into ``classes``; a :class:`ToolchainError` with
    javac's first error line when it fails."""
    argv = [javac, "--release", JAVA_RELEASE, "-encoding", "UTF-8", "-nowarn", "-Xlint:-options",
            "-implicit:none", "-d", str(classes), *(("-classpath", str(class_path)) if class_path else ()),
            *map(str, sources)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        first_error = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
        raise ToolchainError(f"javac failed on {what}: {first_error}",
                             hint="check the JDK (javac --release 8 must work)")
    return classes


def java_source(java_package: str, java_class: str, library: str) -> str:
    """The inference class that loads ``lib<library>.so`` and declares its native methods."""
    return render(
        "android/TensorFlowInference.java.j2", tfbuild_version=__version__, java_package=java_package,
        java_class=java_class, library=library,
    )


def zip_timestamp(epoch: int | None, where: str = "source date epoch") -> tuple[int, int, int, int, int, int]:
    """``epoch`` (seconds since 1970) as a zip timestamp (UTC, even seconds, not before 1980),
    else 1980-01-01; one line naming ``where`` it came from when no zip entry can carry it."""
    if epoch is not None and epoch > LATEST_ZIP_TIME:
        raise ConfigError(f"{where}: {epoch} is not a time a zip file can carry (1980 to 2107)")
    moment = time.gmtime(max(epoch or 0, ZIP_EPOCH))  # ZIP_EPOCH: 1980-01-01, the zip format's first day
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
        "java_api": result.java_api,
        **({"maven": {"coordinates": str(result.maven.coordinates), "path": str(result.maven.aar.resolve())}}
           if result.maven is not None else {}),
    }
