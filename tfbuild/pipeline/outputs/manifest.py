"""``manifest.json``: the record of what a build made, from what, with what.

A release engineer shipping a selective binary must be able to say later which models it was cut
for, from which TensorFlow commit, in which toolchain image: a binary that lacks a kernel fails
only on device, long after the build. The manifest names all of it with digests (models, header,
artifacts) and sits beside the artifacts; ``tfbuild linkflags`` reads it back. An Android
Makefile build records its NDK too (``android_ndk``: path, revision, adapter, C++ runtime): the
app's link must name the same runtime, and ``tfbuild verify`` compiles its runner with that NDK.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tfbuild import __version__
from tfbuild.config import read_mapping
from tfbuild.errors import ConfigError, InputFileError, ManifestError
from tfbuild.fileio import atomic_write_text, nesting_bounded, read_input_bytes, sha256_file, sha256_tree
from tfbuild.flavour import Flavour
from tfbuild.pipeline.outputs.elf_pages import load_alignment
from tfbuild.pipeline.planning.plan import AndroidJniRecord, AndroidNdkUse, AppliedSizeProfile, BuildPlan
from tfbuild.pipeline.planning.protobuf_runtime import FULL, ProtobufRuntime
from tfbuild.pipeline.planning.reproducible import Reproducibility
from tfbuild.tree.mobile_types import MobileTypes

MANIFEST_NAME = "manifest.json"
SCHEMA = 1


@dataclass(frozen=True)
class TensorFlowRecord:
    version: str  # the TensorFlow that was built (tree) or compiled against (op library)
    commit: str | None  # the user's commit: the tree's before tfbuild's edits (or the op library's TensorFlow)
    source: str | None  # the tree, or None for an op library
    analysis_version: str  # the TensorFlow whose registry named the kernel classes
    work_commit: str | None = None  # tfbuild's commit on its work branch that was built, gone after the revert
    describe: str | None = None  # git describe --long --tags of commit: what the Makefile's tf_git_version() names


@dataclass(frozen=True)
class ToolchainRecord:
    image_tag: str
    image_id: str | None  # the engine's content digest of the image that ran
    dockerfile: str
    build_args: dict[str, str]
    base_source: str | None = None  # why this base image (the tree's CI OS, the table, the user)
    fixups: tuple[dict[str, str], ...] = ()  # the toolchain fix-ups applied: name, why, step


@dataclass(frozen=True)
class FileRecord:
    """A file by name (relative to the output directory where it lives there), size and digest."""

    name: str
    sha256: str
    size: int
    kind: str | None = None
    path: str | None = None
    load_alignment: int | None = None
    """An ELF program or shared library's LOAD segment alignment, in bytes (16384: 16 KB pages,
    which Google Play requires of 64-bit Android code); None for other files."""


@dataclass(frozen=True)
class CommandRecord:
    """A command line that decides an artifact's bytes, with the environment its step gives
    (``MAKEFLAGS`` from a fix-up, ``NDK_ROOT``)."""

    step: str
    argv: tuple[str, ...]
    env: dict[str, str]


_COMPILER = re.compile(r"(?:^|[-/])(?:make|bazel|ccache|c\+\+|g\+\+|gcc|cc|clang\+\+|clang)(?:-\d+)?$")


def effective_flags(plan: BuildPlan) -> tuple[CommandRecord, ...]:
    """The plan's make, compiler and Bazel steps as they ran: the effective flags of the build."""
    return tuple(
        CommandRecord(step.name, step.argv, dict(step.env))
        for step in plan.steps
        if step.argv and _COMPILER.search(step.argv[0])
    )


@dataclass(frozen=True)
class Manifest:
    target: str
    flavour: Flavour
    tensorflow: TensorFlowRecord
    toolchain: ToolchainRecord | None  # None: built on the host (--local, or Xcode)
    header: FileRecord
    models: tuple[FileRecord, ...]
    artifacts: tuple[FileRecord, ...]
    tfbuild_version: str
    created: str  # UTC, ISO 8601
    schema: int = SCHEMA
    size_profile: AppliedSizeProfile | None = None  # its name, the flags it added, the hot kernel sources
    android_ndk: AndroidNdkUse | None = None  # the NDK (path, revision), the Makefile adapter, the C++ runtime
    mobile_types: MobileTypes | None = None  # __ANDROID_TYPES_SLIM__ or _FULL__, and why
    android_jni: AndroidJniRecord | None = None  # the JNI library's name, Java class and exports
    protobuf_runtime: ProtobufRuntime = FULL  # what TensorFlow's protos were generated for; lite: libprotobuf-lite.a
    fixups: tuple[dict[str, str], ...] = ()  # the toolchain fix-ups applied (local builds too): name, why, step
    reproducibility: Reproducibility | None = None  # SOURCE_DATE_EPOCH, prefix maps, ar flags, known differences
    effective_flags: tuple[CommandRecord, ...] = ()  # the make, compiler and Bazel command lines that ran
    compile_cache: dict[str, Any] | None = None  # ccache's or Bazel's own counts: remote and local hits
    verify: Mapping[str, Any] | None = None  # tfbuild verify's verdict, added after the build
    aar: Mapping[str, Any] | None = None  # the AAR tfbuild aar packed from this build

    def to_json(self) -> str:
        data = asdict(self)
        for section in AFTER_THE_BUILD:
            if data[section] is None:
                del data[section]
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def read(cls, output_dir: Path) -> Manifest:
        """The manifest of the build in ``output_dir``, as the types the build wrote. Missing is an
        :class:`InputFileError` (no finished build here); damaged, or from a tfbuild whose
        schema this one does not read, is a :class:`ManifestError` naming the file and key."""
        path = Path(output_dir) / MANIFEST_NAME
        data = _read_json(path)
        if data.get("schema") != SCHEMA:
            raise ManifestError(
                f"{path}: manifest schema {data.get('schema')!r}, this tfbuild reads schema {SCHEMA}",
                hint="rebuild with this tfbuild",
            )
        try:
            return read_mapping(cls, data, source=f"{path}: not a valid manifest")
        except ConfigError as error:
            raise ManifestError(error.message, hint="rebuild") from None


AFTER_THE_BUILD = ("verify", "aar")
"""Sections later commands add to a finished build's manifest (:func:`update_manifest`)."""


def make_manifest(
    plan: BuildPlan,
    *,
    artifacts: Sequence[Path],
    header: Path,
    models: Sequence[Path],
    tensorflow: TensorFlowRecord,
    image_id: str | None,
    now: _dt.datetime | None = None,
    compile_cache: dict[str, object] | None = None,
) -> Manifest:
    """Describe a finished build; reads (and digests) the header, models and artifacts."""
    kinds = {artifact.name: artifact.kind for artifact in plan.artifacts}
    toolchain = None
    if plan.image is not None:
        toolchain = ToolchainRecord(
            image_tag=plan.image.tag,
            image_id=image_id,
            dockerfile=plan.image.dockerfile,
            build_args=dict(plan.image.build_args),
            base_source=plan.image.base_source,
            fixups=tuple(asdict(fixup) for fixup in plan.fixups),
        )
    created = (now or _dt.datetime.now(_dt.UTC)).astimezone(_dt.UTC)
    return Manifest(
        target=plan.target,
        flavour=plan.flavour,
        tensorflow=tensorflow,
        toolchain=toolchain,
        header=_record(header, plan.output_dir),
        models=tuple(_record(Path(model), None) for model in models),
        artifacts=tuple(_record(Path(path), plan.output_dir, kind=kinds.get(Path(path).name)) for path in artifacts),
        tfbuild_version=__version__,
        created=created.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        size_profile=plan.size_profile,
        android_ndk=plan.android_ndk,
        mobile_types=plan.mobile_types,
        android_jni=plan.android_jni,
        protobuf_runtime=plan.protobuf_runtime,
        fixups=tuple(asdict(fixup) for fixup in plan.fixups),
        reproducibility=plan.reproducibility,
        effective_flags=effective_flags(plan),
        compile_cache=compile_cache,
    )


def write_manifest(manifest: Manifest, output_dir: Path) -> Path:
    """Write a build's manifest. A rerun that made the same artifacts from the same header and
    models keeps what later commands added to the last one (``verify``, ``aar``): their verdict
    is about those very bytes. Any changed digest drops them."""
    kept = _keep_later_sections(manifest, Path(output_dir))
    return atomic_write_text(Path(output_dir) / MANIFEST_NAME, kept.to_json())


def _keep_later_sections(manifest: Manifest, output_dir: Path) -> Manifest:
    if not (output_dir / MANIFEST_NAME).is_file():
        return manifest
    try:
        old = Manifest.read(output_dir)
    except InputFileError:  # damaged, or of another schema: nothing to keep
        return manifest
    if _digests(old) != _digests(manifest):
        return manifest
    return dataclasses.replace(manifest, verify=old.verify, aar=old.aar)


def _digests(manifest: Manifest) -> tuple[object, ...]:
    """What a ``verify`` or ``aar`` section is about: the artifacts, header and models, by content."""
    return (
        sorted((record.name, record.sha256) for record in manifest.artifacts),
        manifest.header.sha256,
        sorted((record.name, record.sha256) for record in manifest.models),
    )


def _read_json(path: Path) -> dict[str, Any]:
    if not os.path.lexists(path):
        raise InputFileError(f"{path}: no manifest, so no finished build here", hint="build first")
    raw = read_input_bytes(path, error=ManifestError, hint="rebuild")  # bounded; a FIFO refused
    try:
        with nesting_bounded(path, ManifestError, hint="rebuild"):
            data = json.loads(raw.decode("utf-8"))
    except ValueError as error:
        raise ManifestError(f"{path}: not a valid manifest: {error}", hint="rebuild") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: not a valid manifest (not a JSON object)", hint="rebuild")
    return data


def update_manifest(output_dir: Path, section: str, value: Mapping[str, object]) -> Path:
    """Set one of the sections :data:`AFTER_THE_BUILD` of the manifest in ``output_dir``
    (``tfbuild verify`` adds ``verify``), keeping the rest as it is; written atomically. A new
    build keeps it only when its artifacts, header and models are byte-identical
    (:func:`write_manifest`). The manifest is read as :meth:`Manifest.read` reads it, first."""
    manifest = Manifest.read(output_dir)
    if section == "verify":
        manifest = dataclasses.replace(manifest, verify=dict(value))
    elif section == "aar":
        manifest = dataclasses.replace(manifest, aar=dict(value))
    else:
        raise ValueError(f"{section}: not a section added after the build")  # a tfbuild bug
    return atomic_write_text(Path(output_dir) / MANIFEST_NAME, manifest.to_json())


def _record(path: Path, base: Path | None, *, kind: str | None = None) -> FileRecord:
    """A file's record; a directory (a SavedModel) is digested file by file."""
    if path.is_dir():
        digest = sha256_tree(path)
        size = sum(item.stat().st_size for item in path.rglob("*") if item.is_file())
    else:
        digest = sha256_file(path)
        size = path.stat().st_size
    relative = None
    if base is not None and Path(base) in path.parents:
        relative = path.relative_to(base).as_posix()
    return FileRecord(name=relative or path.name, sha256=digest, size=size, kind=kind, path=str(path),
                      load_alignment=None if path.is_dir() else load_alignment(path))
