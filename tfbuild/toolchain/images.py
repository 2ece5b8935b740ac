"""Toolchain images: built from ``docker/<name>.Dockerfile``, named by what goes into them.

An image's tag is :func:`tfbuild.toolchain.image_spec.image_spec`'s digest of the Dockerfile and its build
arguments, so "is this image already built?" is just "does the tag exist?": the same inputs
reuse the same image, and any change to the Dockerfile or an argument builds a new one.

After a build the image's own record of installed package versions
(``/etc/tfbuild/packages.txt``, written by every Dockerfile) is copied next to tfbuild's cache
as ``images/<tag>.packages.txt``: Debian moves on, and that file is what lets a later rebuild be
compared with (or pinned to) the image a release was built in.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from docker.client import DockerClient
from docker.errors import APIError, NotFound

from tfbuild.cache import cache_dir
from tfbuild.errors import ToolchainError
from tfbuild.fileio import atomic_write_bytes
from tfbuild.resources import docker_dir
from tfbuild.toolchain.base_image import default_base_tag, make_base_command
from tfbuild.toolchain.engine import docker_client, image_exists, image_id
from tfbuild.toolchain.image_context import context_files
from tfbuild.toolchain.image_spec import ImageSpec, image_spec

PACKAGES_RECORD = "/etc/tfbuild/packages.txt"
DOCKERFILE_SUFFIX = ".Dockerfile"
LABEL_DOCKERFILE = "org.tfbuild.dockerfile"

LogFn = Callable[[str], None]


@dataclass(frozen=True)
class ToolchainImage:
    """A toolchain image that exists in the engine, and where its package record is kept."""

    spec: ImageSpec
    image_id: str
    built: bool  # False when an image with the tag already existed
    packages_path: Path | None
    seconds: float


@dataclass(frozen=True)
class ToolchainStatus:
    """One row of ``tfbuild toolchain list``."""

    name: str
    tag: str
    present: bool
    packages_path: Path | None


def packages_record_path(tag: str) -> Path:
    """Where the package record of image ``tag`` is kept on the host."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", tag)
    return cache_dir() / "images" / f"{safe}.packages.txt"


def toolchain_names() -> tuple[str, ...]:
    """The toolchains ``docker/`` defines, by Dockerfile name (``linux``, ``bazel``, ...)."""
    return tuple(
        sorted(path.name.removesuffix(DOCKERFILE_SUFFIX) for path in docker_dir().glob(f"*{DOCKERFILE_SUFFIX}"))
    )


def toolchain_spec(
    name: str, *, base: str | None = None, build_args: Mapping[str, str] | None = None
) -> ImageSpec:
    """The :class:`ImageSpec` of toolchain ``name`` on ``base`` (default: the tfbuild base image)."""
    if name not in toolchain_names():
        raise ToolchainError(
            f"{docker_dir() / (name + DOCKERFILE_SUFFIX)}: no such toolchain Dockerfile",
            hint=f"known toolchains: {', '.join(toolchain_names()) or 'none'}",
        )
    args = {"BASE_IMAGE": base or default_base_tag(), **(build_args or {})}
    return image_spec(name + DOCKERFILE_SUFFIX, args)


def ensure_image(spec: ImageSpec, *, force: bool = False, log: LogFn = lambda line: None) -> ToolchainImage:
    """Make sure the image ``spec.tag`` exists, building it from ``docker/`` when it does not."""
    started = time.monotonic()
    client = docker_client()
    if image_exists(client, spec.tag) and not force:
        record = packages_record_path(spec.tag)
        if not record.exists():
            _save_packages_record(client, spec.tag)
        return ToolchainImage(spec, image_id(client, spec.tag), False, record, time.monotonic() - started)
    base = spec.build_args.get("BASE_IMAGE")
    if base and not image_exists(client, base):
        raise ToolchainError(
            f"base image {base} (BASE_IMAGE of {spec.dockerfile}) does not exist",
            hint=f"make it with '{make_base_command(base)}' (needs root and a Debian mirror)",
        )
    _build(client, spec, log)
    saved = _save_packages_record(client, spec.tag)
    return ToolchainImage(spec, image_id(client, spec.tag), True, saved, time.monotonic() - started)


def build_toolchain(
    name: str,
    *,
    base: str | None = None,
    build_args: Mapping[str, str] | None = None,
    force: bool = False,
    log: LogFn = lambda line: None,
) -> ToolchainImage:
    """``tfbuild toolchain build NAME``: the image of ``docker/<name>.Dockerfile``, built if needed."""
    return ensure_image(toolchain_spec(name, base=base, build_args=build_args), force=force, log=log)


def list_toolchains(*, base: str | None = None) -> tuple[ToolchainStatus, ...]:
    """Each toolchain's images that exist (any build arguments), and the tag its default
    arguments give when that one is not built yet."""
    client = docker_client()
    rows = []
    for name in toolchain_names():
        dockerfile = name + DOCKERFILE_SUFFIX
        built = sorted(
            tag
            for image in client.images.list(filters={"label": f"{LABEL_DOCKERFILE}={dockerfile}"})
            for tag in image.tags
        )
        default_tag = toolchain_spec(name, base=base).tag
        for tag in built if default_tag in built else [*built, default_tag]:
            record = packages_record_path(tag)
            rows.append(ToolchainStatus(name, tag, tag in built, record if record.exists() else None))
    return tuple(rows)


def _build(client: DockerClient, spec: ImageSpec, log: LogFn) -> None:
    log(f"building {spec.tag} from docker/{spec.dockerfile}")
    with tempfile.TemporaryDirectory(prefix="tfbuild-context-") as context:
        _fill_context(Path(context), spec)
        _stream_build(client, spec, Path(context), log)


def _fill_context(context: Path, spec: ImageSpec) -> None:
    """A build context of just the Dockerfile and the files it ``COPY``-s (hard links when the
    cache is on the same file system), so no unrelated file is sent to the engine."""
    shutil.copy2(docker_dir() / spec.dockerfile, context / Path(spec.dockerfile).name)
    for name, source in context_files(spec).items():
        try:
            os.link(source, context / name)
        except OSError:
            shutil.copy2(source, context / name)


def _stream_build(client: DockerClient, spec: ImageSpec, context: Path, log: LogFn) -> None:
    tail: list[str] = []
    try:
        stream = client.api.build(
            path=str(context),
            dockerfile=Path(spec.dockerfile).name,
            tag=spec.tag,
            buildargs=dict(spec.build_args),
            labels={LABEL_DOCKERFILE: spec.dockerfile},
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
        )
        for chunk in stream:
            if "error" in chunk:
                raise ToolchainError(
                    f"docker/{spec.dockerfile}: image build failed: {chunk['error'].strip()}",
                    hint="the lines before it: " + " | ".join(tail[-5:]) if tail else None,
                )
            for line in chunk.get("stream", "").splitlines():
                if line.strip():
                    log(line)
                    tail = [*tail, line][-10:]
    except APIError as error:
        raise ToolchainError(
            f"docker/{spec.dockerfile}: image build failed: {error.explanation or error}",
            hint="check the build arguments and that the base image exists",
        ) from None


def _save_packages_record(client: DockerClient, tag: str) -> Path | None:
    """Copy ``/etc/tfbuild/packages.txt`` out of image ``tag`` (without running it)."""
    container = client.containers.create(tag, command=["true"])
    try:
        try:
            chunks, _ = container.get_archive(PACKAGES_RECORD)
        except NotFound:
            return None
        archive = io.BytesIO(b"".join(chunks))
    finally:
        container.remove(force=True)
    with tarfile.open(fileobj=archive) as tar:
        member = tar.getmembers()[0]
        extracted = tar.extractfile(member)
        assert extracted is not None
        data = extracted.read()
    return atomic_write_bytes(packages_record_path(tag), data)
