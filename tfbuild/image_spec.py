"""Naming toolchain images by what goes into them.

A toolchain image's tag is a digest of its Dockerfile and build arguments, so the same inputs
always name the same image (and a build reuses it), while any change to either names a new one.
Planning needs the tag without talking to Docker, hence this small module apart from the code
that builds images.
"""

from __future__ import annotations

import hashlib
import json
from typing import Mapping

from tfbuild.build_plan import ImageSpec
from tfbuild.errors import ToolchainError
from tfbuild.resources import docker_dir

IMAGE_REPOSITORY = "tfbuild-toolchain"


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
