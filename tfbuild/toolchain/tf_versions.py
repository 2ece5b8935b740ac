"""What each TensorFlow version's build needs (Bazel version, usable Android NDKs, package
paths), read from ``toolchains/tensorflow/versions.toml``.

These facts change with every TensorFlow release and are looked up, not derived, so they live
in data a reviewer can check against TensorFlow's own configure.py, not in code.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from tfbuild.config import Check, non_empty, read_toml
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.resources import toolchains_dir
from tfbuild.tree.facts import TensorFlowVersion

VERSIONS_FILE = Path("tensorflow") / "versions.toml"


def _major_minor(text: str) -> None:
    parts = text.split(".")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ConfigError(f"'{text}' is not MAJOR.MINOR")


@dataclass(frozen=True)
class VersionRequirements:
    """One ``[[versions]]`` entry: what the builds of TensorFlow ``tensorflow`` (``MAJOR.MINOR``)
    and later need, up to the next entry's version."""

    tensorflow: Annotated[str, Check(_major_minor)]
    bazel: str
    android_ndk_majors: tuple[int, ...]
    android_inference_package: str

    @property
    def since(self) -> tuple[int, int]:
        major, minor = self.tensorflow.split(".")
        return (int(major), int(minor))


@dataclass(frozen=True)
class VersionTable:
    versions: Annotated[tuple[VersionRequirements, ...], Check(non_empty)]
    min_build_tools: str
    default_ndk_api_level: int
    min_ndk_api_level_64bit: int
    configure_env: Mapping[str, str]
    source: Path

    def for_version(self, version: TensorFlowVersion) -> VersionRequirements:
        """The entry for ``version``: the last one whose ``since`` is not newer."""
        entries = sorted(self.versions, key=lambda entry: entry.since)
        applicable = [entry for entry in entries if entry.since <= version.minor_version]
        if not applicable:
            oldest = ".".join(map(str, entries[0].since))
            raise SourceTreeError(
                f"TensorFlow {version} is older than any version tfbuild knows ({oldest})",
                hint=f"use a TensorFlow {oldest} or newer tree, or add an entry to {self.source}",
            )
        return applicable[-1]


@functools.cache
def version_table(path: Path | None = None) -> VersionTable:
    """``toolchains/tensorflow/versions.toml`` (or ``path``), read and checked."""
    path = path or toolchains_dir() / VERSIONS_FILE
    return read_toml(VersionTable, path, source=path)
