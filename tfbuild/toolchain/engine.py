"""The one place tfbuild connects to the Docker engine.

Base images, toolchain images and build containers all need a client; a missing daemon must be
the same clear :class:`~tfbuild.errors.ToolchainError` (with the fix) wherever it is first hit,
rather than a ``requests`` traceback from deep inside the docker SDK.
"""

from __future__ import annotations

import os

from docker.client import DockerClient
from docker.errors import DockerException, ImageNotFound

from tfbuild.errors import ToolchainError

DAEMON_HINT = "start dockerd (e.g. 'sudo dockerd &' or 'sudo service docker start'), or build with --local"


def docker_client() -> DockerClient:
    """A client for the engine named by the environment (``DOCKER_HOST`` or the local socket),
    checked with a ping so an unreachable daemon fails here, once, with the fix."""
    try:
        client = DockerClient.from_env(timeout=600)
        client.ping()
    except DockerException as error:
        where = os.environ.get("DOCKER_HOST") or DEFAULT_SOCKET
        raise ToolchainError(f"the Docker engine is unreachable at {where}: {_reason(error)}", hint=DAEMON_HINT) \
            from None
    return client


DEFAULT_SOCKET = "unix:///var/run/docker.sock"
"""Where the docker SDK looks for the engine when ``DOCKER_HOST`` is not set."""


def _reason(error: BaseException) -> str:
    """The operating system's words for why the engine could not be reached ("Connection
    refused", "No such file or directory"), found in the exceptions the SDK, requests and
    urllib3 wrap around each other; else the SDK's first line, never a Python repr."""
    todo: list[object] = [error]
    seen: set[int] = set()
    while todo:
        current = todo.pop(0)
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, OSError) and current.strerror:
            return current.strerror
        todo.extend((current.__cause__, current.__context__, *current.args))
        todo.extend(getattr(current, name, None) for name in ("reason", "original_error"))
    return (str(error).splitlines() or [type(error).__name__])[0]


def image_exists(client: DockerClient, tag: str) -> bool:
    """Whether ``tag`` names an image the engine already has."""
    try:
        client.images.get(tag)
    except ImageNotFound:
        return False
    return True


def image_id(client: DockerClient, tag: str) -> str:
    """The id (``sha256:...``) of the image ``tag``, which the engine has."""
    identifier = client.images.get(tag).id
    if identifier is None:  # the engine always reports one; the SDK's types allow none
        raise ToolchainError(f"the Docker engine reported no id for image {tag}", hint="check 'docker image inspect'")
    return identifier
