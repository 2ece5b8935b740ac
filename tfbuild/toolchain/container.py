"""A build container as a context manager: started on entry, gone on every way out.

Modelled on pypa/cibuildwheel's ``oci_container.py``: one long-lived container per build, with
a unique name, into which commands are run one by one (so the mounts, caches and state carry
from step to step), and which is stopped and removed however the ``with`` block ends (a failed
start, an exception, Ctrl-C, a timeout). Commands run as the calling user (``--user uid:gid``)
so everything a build writes into bind-mounted directories belongs to that user, not root.

Only the docker SDK is used; commands are argv lists, never shell strings.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import TYPE_CHECKING

import docker.errors
from docker.types import Mount as DockerMount

import docker
from tfbuild.errors import BuildError, CommandTimeout, ToolchainError
from tfbuild.kill_timer import KillTimer
from tfbuild.toolchain.engine import docker_client
from tfbuild.toolchain.image_spec import Mount

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer
    from docker.models.containers import Container

__all__ = [
    "CONTAINER_PREFIX",
    "LABEL_ROLE",
    "BuildContainer",
    "CommandTimeout",
    "ContainerConfig",
    "ContainerStartError",
    "calling_user",
    "unique_name",
    "wait_gone",
]

CONTAINER_PREFIX = "tfbuild"
LABEL_ROLE = "org.tfbuild.role"
LineFn = Callable[[str], None]
_ROOT = PurePosixPath("/")


class ContainerStartError(ToolchainError):
    """The container could not be created or started (missing image, bad mount, ...)."""


@dataclass(frozen=True)
class ContainerConfig:
    """What a build container is made of."""

    image: str
    mounts: tuple[Mount, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    workdir: PurePosixPath = _ROOT
    user: str | None = None  # "uid:gid"; default: the calling user's
    name_hint: str = "build"
    network: str = "bridge"
    """Docker's network mode: ``host`` reaches servers on this machine's loopback."""


def calling_user() -> str:
    """``uid:gid`` of this process, the identity container commands run under by default."""
    return f"{os.getuid()}:{os.getgid()}"


def unique_name(hint: str) -> str:
    """A container name no other build (or test) running at the same time can share."""
    slug = re.sub(r"[^a-zA-Z0-9_.-]+", "-", hint).strip("-")[:40] or "build"
    return f"{CONTAINER_PREFIX}-{slug}-{uuid.uuid4().hex[:12]}"


class BuildContainer:
    """``with BuildContainer(config) as box: box.run([...])``.

    The container's main process only sleeps (under docker's init, so it dies on the stop
    signal); each :meth:`run` is a ``docker exec``.
    """

    def __init__(self, config: ContainerConfig, *, client: docker.DockerClient | None = None) -> None:
        self.config = config
        self.name = unique_name(config.name_hint)
        self._client = client
        self._container: Container | None = None
        self._lock = threading.Lock()

    # -- lifetime -------------------------------------------------------------------------
    def __enter__(self) -> BuildContainer:
        client = self._client or docker_client()
        self._client = client
        try:
            container = client.containers.create(
                self.config.image,
                command=["sleep", "infinity"],
                name=self.name,
                user=self.config.user or calling_user(),
                mounts=[_docker_mount(mount) for mount in self.config.mounts],
                environment=self._base_env(),
                working_dir=str(self.config.workdir),
                labels={LABEL_ROLE: "build"},
                init=True,
                network_mode=self.config.network,
            )
            self._container = container
            container.start()
            self._open_cache_volumes()
        except BaseException as error:
            self.kill()
            if isinstance(error, docker.errors.DockerException):
                raise ContainerStartError(
                    f"could not start a container from {self.config.image}: {_explain(error)}",
                    hint="check that the image exists ('tfbuild toolchain list') and the mounted paths exist",
                ) from None
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.kill()

    def kill(self) -> None:
        """Kill and remove the container now (what leaving the ``with`` block does). Safe from
        any thread, more than once, and when it never started; commands still running end."""
        with self._lock:
            container, self._container = self._container, None
        if container is None:
            return
        with contextlib.suppress(docker.errors.NotFound):
            container.remove(force=True)

    # -- commands -------------------------------------------------------------------------
    def run(
        self,
        argv: Sequence[str],
        *,
        workdir: PurePosixPath | None = None,
        env: Mapping[str, str] | None = None,
        on_line: LineFn | None = None,
        timeout: float | None = None,
        user: str | None = None,
    ) -> int:
        """Run ``argv`` in the container and return its exit code, passing each output line
        (stdout and stderr merged) to ``on_line`` as it arrives.

        Past ``timeout`` seconds the whole container is killed (a command's children cannot
        outlive it that way) and :class:`~tfbuild.errors.CommandTimeout` is raised.
        """
        container, client = self._require()
        api = client.api
        exec_id = str(
            api.exec_create(
                container.id,
                list(argv),
                workdir=str(workdir or self.config.workdir),
                environment=dict(env or {}),
                user=user or self.config.user or calling_user(),
            )["Id"]
        )
        with KillTimer(timeout, self.kill) as timer:
            try:
                stream = api.exec_start(exec_id, stream=True)
                _split_lines(stream, on_line or (lambda line: None))
            except (docker.errors.APIError, OSError) as error:
                if not timer.fired:
                    raise BuildError(f"lost the container {self.name} while running {argv[0]}: {error}") from None
        if timer.fired:
            raise CommandTimeout(
                f"{' '.join(argv)[:120]}: no result after {timeout:g} s; container {self.name} was killed",
                hint="raise the timeout, or look at the build log for the step that hangs",
            )
        return int(api.exec_inspect(exec_id)["ExitCode"])

    def exists(self, path: PurePosixPath) -> bool:
        """Whether ``path`` exists inside the container."""
        return self.run(["test", "-e", str(path)]) == 0

    def copy_out(self, path: PurePosixPath, destination: Path) -> Path:
        """Copy file or directory ``path`` out of the container to ``destination``.

        The archive Docker sends is extracted as it arrives (never held whole in memory),
        refusing members that would land outside the destination (tarfile's "data" filter),
        into a temporary directory beside the destination that is then renamed into place, with
        ownership dropped, so the result belongs to the calling user and a failed copy leaves
        nothing half-written.
        """
        container, _ = self._require()
        try:
            chunks, _stat = container.get_archive(str(path))
        except docker.errors.NotFound:
            raise BuildError(f"{path}: not found in container {self.name}") from None
        destination.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=destination.parent, prefix=".tfbuild-copy-") as scratch:
            stream = io.BufferedReader(_ChunkReader(chunks), buffer_size=1 << 20)
            with tarfile.open(fileobj=stream, mode="r|*") as tar:
                tar.extractall(scratch, filter="data")
            for _padding in chunks:  # read the response to its end, so its connection is released
                pass
            (extracted,) = Path(scratch).iterdir()
            if destination.is_dir() and not destination.is_symlink():
                shutil.rmtree(destination)
            os.replace(extracted, destination)
        return destination

    # -- helpers --------------------------------------------------------------------------
    def _require(self) -> tuple[Container, docker.DockerClient]:
        container, client = self._container, self._client
        if container is None or client is None:
            raise BuildError(f"container {self.name} is not running")
        return container, client

    def _base_env(self) -> dict[str, str]:
        env = dict(self.config.env)
        user = self.config.user or calling_user()
        if not user.startswith("0:"):
            # An arbitrary uid has no passwd entry in the image: no home directory and no user
            # name, which tools such as Bazel refuse to run without.
            env.setdefault("HOME", "/tmp")
            env.setdefault("USER", "tfbuild")
        return env

    def _open_cache_volumes(self) -> None:
        """Let the calling user write to named volumes Docker created owned by root."""
        if (self.config.user or calling_user()).startswith("0:"):
            return
        for mount in self.config.mounts:
            if mount.volume is not None and not mount.read_only:
                code = self.run(["chmod", "a+rwx", str(mount.target)], user="0:0")
                if code != 0:
                    raise ContainerStartError(f"could not open cache volume {mount.volume} to the build user")


class _ChunkReader(io.RawIOBase):
    """The chunks of a ``get_archive`` response as a file read once, front to back, holding one
    chunk at a time (a build's artifacts can be hundreds of megabytes)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._pending:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._pending = memoryview(chunk)
        target = memoryview(buffer).cast("B")
        size = min(len(target), len(self._pending))
        target[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def _split_lines(chunks: Iterable[bytes], on_line: LineFn) -> None:
    pending = b""
    for chunk in chunks:
        pending += chunk
        *lines, pending = re.split(rb"\r\n|\n|\r", pending)
        for line in lines:
            on_line(line.decode("utf-8", "replace"))
    if pending:
        on_line(pending.decode("utf-8", "replace"))


def _docker_mount(mount: Mount) -> DockerMount:
    if mount.source is None:  # a named volume (a Mount has exactly one of the two)
        return DockerMount(str(mount.target), mount.volume, type="volume", read_only=mount.read_only)
    source = mount.source.resolve()
    if not source.exists():
        raise ContainerStartError(
            f"{source}: directory to mount at {mount.target} does not exist",
            hint="create it, or check the source-tree path given to tfbuild",
        )
    return DockerMount(str(mount.target), str(source), type="bind", read_only=mount.read_only)


def _explain(error: docker.errors.DockerException) -> str:
    explanation = getattr(error, "explanation", None)
    return str(explanation or error)


def wait_gone(client: docker.DockerClient, name: str, seconds: float = 10.0) -> bool:
    """Whether no container called ``name`` exists (waiting up to ``seconds`` for removal)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not client.containers.list(all=True, filters={"name": f"^/{name}$"}):
            return True
        time.sleep(0.2)
    return False
