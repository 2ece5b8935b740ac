"""Docker images the docker-marked tests run in, found or built through tfbuild itself.

CI makes the base image and the toolchain images first (scripts/ci-docker-setup.sh), so here
they are normally found; on a developer machine a missing toolchain image is built (a minute or
two) from the base image, once: test processes that want the same image at once (pytest-xdist's
workers) take turns (``machine_lock``), and the second finds it made. A missing base image
cannot be made without root and a mirror, so it skips the test locally and fails it in CI
(conftest.missing_part, as for a missing tool).
"""

from __future__ import annotations

from conftest import missing_part
from tfbuild_testing import machine_lock

from tfbuild.toolchain.base_image import default_base_tag
from tfbuild.toolchain.engine import docker_client, image_exists
from tfbuild.toolchain.images import ToolchainImage, ensure_image, toolchain_spec

TREE_SUITE = "bullseye"
"""The Debian suite the plans choose for the tests' TF 1.x trees (their ci_build Dockerfile says
ubuntu:16.04); op libraries build on the default suite, as the installed wheel is recent."""

BAZEL_VERSION = "0.26.1"
"""The Bazel the tests' trees pin (.bazelversion); the image gets the same arguments the Bazel
flavour's plan gives it, so the image CI prepares is the one the plans use."""


def require_base_image(suite: str | None = None) -> str:
    tag = default_base_tag(suite) if suite else default_base_tag()
    if not image_exists(docker_client(), tag):
        message = f"base image {tag} missing: run 'sudo tfbuild toolchain base --suite {tag.partition(':')[2]}'"
        missing_part(message)
    return tag


def linux_toolchain(suite: str | None = None) -> ToolchainImage:
    """The Linux toolchain on ``suite`` (default: tfbuild's default base)."""
    base = require_base_image(suite)
    spec = toolchain_spec("linux", base=base)
    with machine_lock(f"image-{spec.tag}"):
        return ensure_image(spec)


def bazel_toolchain() -> ToolchainImage:
    """The Bazel toolchain as the plans for the tests' trees ask for it."""
    base = require_base_image(TREE_SUITE)
    spec = toolchain_spec("bazel", base=base, build_args={"BAZEL_VERSION": BAZEL_VERSION})
    with machine_lock(f"image-{spec.tag}"):
        return ensure_image(spec)
