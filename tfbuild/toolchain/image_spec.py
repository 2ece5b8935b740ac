"""Naming toolchain images by what goes into them.

A toolchain image's tag is a digest of its Dockerfile and build arguments, so the same inputs
always name the same image (and a build reuses it), while any change to either names a new one.
Planning needs the tag without talking to Docker, hence this small module apart from the code
that builds images. It also holds :class:`Mount`, the other half of what a plan asks of its
toolchain, so plans can name images and mounts without importing the Docker SDK.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tfbuild.errors import ToolchainError
from tfbuild.resources import docker_dir

IMAGE_REPOSITORY = "tfbuild-toolchain"


@dataclass(frozen=True)
class ImageSpec:
    """The toolchain image a plan runs in.

    ``dockerfile`` names a file under ``docker/``; ``build_args`` are its ARGs (the base image
    among them); ``tag`` is derived from a digest of the Dockerfile and its args, so the same
    inputs always name (and reuse) the same image.
    """

    dockerfile: str
    build_args: Mapping[str, str]
    tag: str
    base_source: str | None = field(default=None, compare=False)
    """Why the plan chose this base image (the tree's CI OS, the version table, or the user);
    not part of the image's identity."""


@dataclass(frozen=True)
class Mount:
    """A host directory (``source``) or a named volume (``volume``) mounted at ``target``.

    Named volumes hold caches (ccache, Bazel's output base) so a second app's build on the same
    tree reuses the first one's work.
    """

    target: PurePosixPath
    source: Path | None = None
    volume: str | None = None
    read_only: bool = False

    def __post_init__(self) -> None:
        if (self.source is None) == (self.volume is None):
            raise ValueError("a Mount has exactly one of source or volume")


def image_spec(dockerfile: str, build_args: Mapping[str, str]) -> ImageSpec:
    """The :class:`ImageSpec` for ``docker/<dockerfile>`` built with ``build_args``."""
    path = docker_dir() / dockerfile
    if not path.is_file():
        raise ToolchainError(
            f"{path}: toolchain Dockerfile not found",
            hint="check the target profile's 'dockerfile' entry under toolchains/",
        )
    digest = hashlib.sha256()
    digest.update(path.read_bytes())
    digest.update(json.dumps(dict(sorted(build_args.items())), sort_keys=True).encode())
    name = path.name.removesuffix(".Dockerfile").removesuffix(".dockerfile")
    return ImageSpec(
        dockerfile=dockerfile,
        build_args=dict(sorted(build_args.items())),
        tag=f"{IMAGE_REPOSITORY}:{name}-{digest.hexdigest()[:16]}",
    )
