"""An AAR published into a Maven repository laid out on disk, so a Gradle app switches to it
with one ``maven { url ... }`` and one ``implementation`` line.

The layout is Maven's own: ``<group as directories>/<artifact>/<version>/<artifact>-<version>.aar``
and ``.pom`` (``packaging`` aar), each with ``.md5``, ``.sha1``, ``.sha256`` and ``.sha512``
beside it, and ``<group>/<artifact>/maven-metadata.xml`` listing every version the directory
holds (with its checksums). Gradle and Maven read such a directory through a ``file:`` URL; a
company's CI can upload the same tree to its own repository manager.

Published versions do not change: publishing a version again with other bytes is refused
(give a new version), the same bytes again rewrites nothing, but writes what an interrupted
publish left out (the AAR is written after its POM and checksums, the metadata after the AAR). The metadata's
``lastUpdated`` comes from ``SOURCE_DATE_EPOCH`` when set, so two runs give the same files.
Every file is written through a temporary file and a rename.

The default coordinates are ``org.tensorflow:tensorflow-android:<TF version>-tfbuild`` for an
AAR of TensorFlow's own Java API (the artifact an app already depends on, at a version that
says it is a tfbuild build), and ``org.tensorflow.tfbuild:tfbuild-inference:<TF version>`` for
tfbuild's own class.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from tfbuild import __version__
from tfbuild.errors import ConfigError, InputFileError, OutputPathError
from tfbuild.fileio import atomic_write_bytes
from tfbuild.templating import render

CHECKSUMS = ("md5", "sha1", "sha256", "sha512")
METADATA = "maven-metadata.xml"
_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class Coordinates:
    group: str
    artifact: str
    version: str

    def __str__(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"

    @property
    def artifact_dir(self) -> Path:
        return Path(*self.group.split("."), self.artifact)

    @property
    def version_dir(self) -> Path:
        return self.artifact_dir / self.version

    def file_name(self, extension: str) -> str:
        return f"{self.artifact}-{self.version}.{extension}"


def parse_coordinates(text: str, where: str = "--coordinates") -> Coordinates:
    """``GROUP:ARTIFACT:VERSION``, each part letters, digits, ``_``, ``.`` and ``-`` (no path)."""
    parts = text.split(":")
    if len(parts) != 3 or not all(_PART.fullmatch(part) and ".." not in part for part in parts):
        raise ConfigError(f"{where}: {text!r} is not GROUP:ARTIFACT:VERSION",
                          hint="e.g. com.example:tensorflow-android:1.9.0-app1 (letters, digits, _ . -)")
    return Coordinates(*parts)


def default_coordinates(java_api: str, tensorflow_version: str) -> Coordinates:
    """What an app's ``implementation`` line names when no coordinates are given (module docstring)."""
    version = re.sub(r"[^A-Za-z0-9_.-]", "-", tensorflow_version) or "0"
    if java_api == "tensorflow":
        return Coordinates("org.tensorflow", "tensorflow-android", f"{version}-tfbuild")
    return Coordinates("org.tensorflow.tfbuild", "tfbuild-inference", version)


@dataclass(frozen=True)
class Published:
    coordinates: Coordinates
    aar: Path
    pom: Path
    written: tuple[Path, ...]
    """The files this run wrote (none when the same version was already there, byte for byte)."""


def publish(aar: bytes, repository: Path, coordinates: Coordinates, *, description: str,
            epoch: int | None = None) -> Published:
    """Put ``aar`` and its POM into ``repository`` at ``coordinates`` (module docstring)."""
    repository = Path(repository)
    if repository.exists() and not repository.is_dir():
        raise OutputPathError(f"{repository}: is not a directory", hint="name a directory for the Maven repository")
    version_dir = repository / coordinates.version_dir
    pom = render("android/pom.xml.j2", tfbuild_version=__version__, description=description,
                 group=coordinates.group, artifact=coordinates.artifact, version=coordinates.version).encode("utf-8")
    aar_path = version_dir / coordinates.file_name("aar")
    if aar_path.is_file() and aar_path.read_bytes() != aar:
        raise OutputPathError(
            f"{aar_path}: version {coordinates.version} is already published with other bytes",
            hint="published versions do not change: give a new version with --coordinates")
    # The AAR goes last of the version's files and the metadata after it, and each file is written
    # only when it is missing or differs: a publish stopped halfway is completed by the next one,
    # and a finished one is left as it is.
    written = _write_with_checksums(version_dir / coordinates.file_name("pom"), pom)
    written += _write_with_checksums(aar_path, aar)
    listing = repository / coordinates.artifact_dir / METADATA
    if coordinates.version not in _listed_versions(listing):
        written += _write_with_checksums(listing, _metadata(repository / coordinates.artifact_dir, coordinates,
                                                            epoch))
    return Published(coordinates, aar_path, version_dir / coordinates.file_name("pom"), tuple(written))


def _write_with_checksums(path: Path, data: bytes) -> list[Path]:
    """``data`` at ``path`` and its checksums beside it, each written only where it differs (the
    data file after its checksums); the files written."""
    files = {path.with_name(f"{path.name}.{algorithm}"): hashlib.new(algorithm, data).hexdigest().encode("ascii")
             for algorithm in CHECKSUMS}
    files[path] = data
    return [atomic_write_bytes(target, content) for target, content in files.items()
            if not target.is_file() or target.read_bytes() != content]


def _metadata(artifact_dir: Path, coordinates: Coordinates, epoch: int | None) -> bytes:
    """The artifact's ``maven-metadata.xml``: the versions already listed there, and this one."""
    versions = _listed_versions(artifact_dir / METADATA)
    if coordinates.version not in versions:
        versions.append(coordinates.version)
    stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(epoch if epoch is not None else time.time()))
    return render("android/maven-metadata.xml.j2", group=coordinates.group, artifact=coordinates.artifact,
                  latest=coordinates.version, versions=versions, last_updated=stamp).encode("utf-8")


def _listed_versions(path: Path) -> list[str]:
    if not path.is_file():
        return []
    try:
        root = ElementTree.fromstring(path.read_bytes())
    except ElementTree.ParseError as error:
        raise InputFileError(f"{path}: not a Maven metadata file: {error}",
                             hint="repair or remove it; tfbuild adds versions to it") from None
    return [element.text.strip() for element in root.iter("version") if element.text and element.text.strip()]
