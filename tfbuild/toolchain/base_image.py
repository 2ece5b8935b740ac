"""The Debian base image every toolchain image starts ``FROM``, made without a registry.

Build machines (and CI) often cannot pull from Docker Hub, but they can reach a Debian mirror.
``debootstrap --variant=minbase`` into a temporary directory, packed and ``docker import``-ed,
gives the same starting point a registry's ``debian:<suite>`` would, from a source the machine
already trusts. The result is tagged by suite (``tfbuild-base:bookworm``) and made only once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ToolchainError
from tfbuild.toolchain.engine import docker_client, image_exists, image_id

BASE_REPOSITORY = "tfbuild-base"
DEFAULT_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"

# What `docker import` cannot take from a bare root filesystem, set the way Debian's own
# images set it.
_IMAGE_CHANGES = (
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV LANG=C.UTF-8",
    'CMD ["/bin/bash"]',
)


@dataclass(frozen=True)
class BaseImageOptions:
    suite: str = DEFAULT_SUITE
    mirror: str = DEFAULT_MIRROR
    tag: str | None = None  # default: tfbuild-base:<suite>
    force: bool = False
    workdir: Path | None = None  # where the temporary root filesystem goes

    @property
    def image_tag(self) -> str:
        return self.tag or default_base_tag(self.suite)


@dataclass(frozen=True)
class BaseImageResult:
    tag: str
    image_id: str
    created: bool  # False when the tag already existed and was kept
    seconds: float


def default_base_tag(suite: str = DEFAULT_SUITE) -> str:
    return f"{BASE_REPOSITORY}:{suite}"


def make_base_command(tag: str) -> str:
    """The command that makes base image ``tag``, for hints: ``tfbuild toolchain base --suite
    bullseye`` for a tfbuild base, else a pointer to ``--tag``."""
    repository, _, suite = tag.partition(":")
    if repository == BASE_REPOSITORY and suite:
        return f"sudo tfbuild toolchain base --suite {suite}"
    return f"sudo tfbuild toolchain base --suite SUITE --tag {tag}"


def make_base_image(
    options: BaseImageOptions, *, log: Callable[[str], None] = lambda line: None
) -> BaseImageResult:
    """Make (or keep) the base image ``options.image_tag`` and return what was done."""
    started = time.monotonic()
    client = docker_client()
    tag = options.image_tag
    if image_exists(client, tag) and not options.force:
        log(f"{tag} already exists (use --force to make it again)")
        return BaseImageResult(tag, image_id(client, tag), False, time.monotonic() - started)
    _check_can_debootstrap()
    with tempfile.TemporaryDirectory(prefix="tfbuild-base-", dir=options.workdir) as scratch:
        rootfs = Path(scratch) / "rootfs"
        _debootstrap(options.suite, options.mirror, rootfs, log)
        _trim(rootfs)
        tarball = Path(scratch) / "rootfs.tar"
        _run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball), "."], "pack", log)
        repository, _, suite_tag = tag.partition(":")
        log(f"docker import -> {tag}")
        client.api.import_image(
            src=str(tarball), repository=repository, tag=suite_tag or "latest",
            changes=list(_IMAGE_CHANGES),
        )
    return BaseImageResult(tag, image_id(client, tag), True, time.monotonic() - started)


def _check_can_debootstrap() -> None:
    if shutil.which("debootstrap") is None:
        raise ToolchainError(
            "debootstrap is not installed; it is needed to make the base image",
            hint="apt-get install debootstrap",
        )
    if os.geteuid() != 0:
        raise ToolchainError(
            "making the base image needs root (debootstrap creates device nodes and chowns files)",
            hint="run 'sudo tfbuild toolchain base', or import a Debian image yourself and pass --base",
        )


def _debootstrap(suite: str, mirror: str, rootfs: Path, log: Callable[[str], None]) -> None:
    argv = ["debootstrap", "--variant=minbase", suite, str(rootfs), mirror]
    log(" ".join(argv))
    _run(argv, "debootstrap", log)


def _trim(rootfs: Path) -> None:
    """Drop what a container never needs and what would make two imports differ needlessly."""
    for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
        directory = rootfs / leftover
        if directory.is_dir():
            for entry in directory.iterdir():
                if entry.is_file():
                    entry.unlink()
    for log_file in (rootfs / "var/log").glob("*.log"):
        log_file.unlink()


def _run(argv: list[str], what: str, log: Callable[[str], None]) -> None:
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail: list[str] = []
    assert process.stdout is not None
    for output in process.stdout:
        line = output.rstrip("\n")
        log(line)
        tail = [*tail, line][-15:]
    if process.wait() != 0:
        raise ToolchainError(
            f"{what} failed with exit code {process.returncode}: " + " | ".join(tail[-5:]),
            hint="check that the Debian mirror is reachable and the suite name is right",
        )
