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

from tfbuild.config import check_keys, integer, integers, load_toml, require_keys, string, string_table, table
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.resources import toolchains_dir
from tfbuild.tree.facts import TensorFlowVersion

VERSIONS_FILE = Path("tensorflow") / "versions.toml"


@dataclass(frozen=True)
class VersionRequirements:
    """The entry that applies to one TensorFlow version."""

    since: tuple[int, int]
    bazel: str
    android_ndk_majors: tuple[int, ...]
    android_inference_package: str


@dataclass(frozen=True)
class VersionTable:
    entries: tuple[VersionRequirements, ...]  # sorted by ``since``
    min_build_tools: str
    default_ndk_api_level: int
    min_ndk_api_level_64bit: int
    configure_env: Mapping[str, str]
    source: Path

    def for_version(self, version: TensorFlowVersion) -> VersionRequirements:
        """The entry for ``version``: the last one whose ``since`` is not newer."""
        applicable = [entry for entry in self.entries if entry.since <= version.minor_version]
        if not applicable:
            oldest = ".".join(map(str, self.entries[0].since))
            raise SourceTreeError(
                f"TensorFlow {version} is older than any version tfbuild knows ({oldest})",
                hint=f"use a TensorFlow {oldest} or newer tree, or add an entry to {self.source}",
            )
        return applicable[-1]


@functools.cache
def version_table(path: Path | None = None) -> VersionTable:
    path = path or toolchains_dir() / VERSIONS_FILE
    data = load_toml(path)
    where = str(path)
    keys = ("min_build_tools", "default_ndk_api_level", "min_ndk_api_level_64bit", "versions", "configure_env")
    check_keys(data, keys, where=where)
    require_keys(data, keys, where=where)
    entries = []
    raw = data["versions"]
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: [[versions]] must be a non-empty list of tables")
    for index, item in enumerate(raw):
        item_where = f"{where}: versions[{index}]"
        entry = table(item, where=item_where)
        entry_keys = ("tensorflow", "bazel", "android_ndk_majors", "android_inference_package")
        check_keys(entry, entry_keys, where=item_where)
        require_keys(entry, entry_keys, where=item_where)
        entries.append(
            VersionRequirements(
                since=_minor(string(entry["tensorflow"], where=f"{item_where}.tensorflow"), item_where),
                bazel=string(entry["bazel"], where=f"{item_where}.bazel"),
                android_ndk_majors=integers(entry["android_ndk_majors"], where=f"{item_where}.android_ndk_majors"),
                android_inference_package=string(
                    entry["android_inference_package"], where=f"{item_where}.android_inference_package"
                ),
            )
        )
    return VersionTable(
        entries=tuple(sorted(entries, key=lambda entry: entry.since)),
        min_build_tools=string(data["min_build_tools"], where=f"{where}: min_build_tools"),
        default_ndk_api_level=integer(data["default_ndk_api_level"], where=f"{where}: default_ndk_api_level"),
        min_ndk_api_level_64bit=integer(data["min_ndk_api_level_64bit"], where=f"{where}: min_ndk_api_level_64bit"),
        configure_env=string_table(data["configure_env"], where=f"{where}: [configure_env]"),
        source=path,
    )


def _minor(text: str, where: str) -> tuple[int, int]:
    parts = text.split(".")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ConfigError(f"{where}: tensorflow = '{text}' is not MAJOR.MINOR")
    return (int(parts[0]), int(parts[1]))
