"""Real servers the remote-cache and distcc tests start on this machine's loopback.

- :func:`nginx_cache`: Debian's nginx with its WebDAV module, the HTTP cache ccache and Bazel
  both speak (GET a key, PUT it back), optionally behind basic auth;
- :func:`redis_cache`: Debian's redis-server, ccache's other remote storage;
- :func:`buildgrid_cache`: BuildGrid (PyPI), a REAPI server, as Bazel's gRPC cache;
- :func:`distccd_workers`: distccd in containers of the linux toolchain image, one per worker,
  each on its own loopback port (the host's network, as the build container then uses).

Both are context managers that stop what they started however the test ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tfbuild.toolchain.engine import docker_client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def remove_cache_volumes(prefixes: list[str]) -> None:
    """Remove the cache volumes builds made under these ``--cache-prefix`` values."""
    client = docker_client()
    for volume in client.volumes.list():
        if any(volume.name.startswith(prefix + "-") for prefix in prefixes):
            volume.remove(force=True)


@dataclass
class NginxCache:
    """A running nginx: its URL (with the credentials when it has them), where it stores what
    was PUT, and its access log."""

    url: str
    storage: Path
    access_log: Path
    process: subprocess.Popen[bytes]

    def stored_files(self) -> list[Path]:
        return [path for path in self.storage.rglob("*") if path.is_file()]

    def requests(self, method: str) -> list[str]:
        return [line for line in self.access_log.read_text().splitlines() if f'"{method} ' in line]

    def failed_requests(self) -> list[str]:
        """Requests the server answered with an error other than 404 (a cache miss)."""
        lines = self.access_log.read_text().splitlines()
        return [line for line in lines if (status := line.split('" ', 1)[-1].split(" ", 1)[0]) >= "400"
                and status != "404"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


NGINX_CONF = """\
daemon off;
{user}worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log info;
events {{ worker_connections 256; }}
http {{
  access_log {root}/access.log;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy;
  fastcgi_temp_path {root}/fastcgi;
  server {{
    listen 127.0.0.1:{port};
    client_max_body_size 0;
    location / {{
      root {root}/storage;
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw group:rw all:rw;
{auth}    }}
  }}
}}
"""


@contextlib.contextmanager
def nginx_cache(root: Path, *, path: str = "cache", username: str | None = None,
                password: str | None = None) -> Iterator[NginxCache]:
    """nginx with WebDAV PUT on a free loopback port, storing under ``root/storage``."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"  # tests that call this carry @nginx
    root.mkdir(parents=True, exist_ok=True)
    for name in ("storage", "body", "proxy", "fastcgi"):
        (root / name).mkdir(exist_ok=True)
    # Started by root, nginx would run its worker as nobody, who cannot enter pytest's private
    # temporary directories: the worker stays root then (the server is the test's own).
    user = "user root;\n" if os.geteuid() == 0 else ""
    auth = ""
    if username is not None:
        (root / "htpasswd").write_text(f"{username}:{{PLAIN}}{password}\n")
        auth = f'      auth_basic "cache";\n      auth_basic_user_file {root}/htpasswd;\n'
    port = free_port()
    (root / "nginx.conf").write_text(NGINX_CONF.format(root=root, port=port, auth=auth, user=user))
    process = subprocess.Popen([nginx, "-p", str(root), "-e", str(root / "error.log"), "-c", str(root / "nginx.conf")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = None
    try:
        wait_for_port(port)
        credentials = f"{username}:{password}@" if username is not None else ""
        server = NginxCache(f"http://{credentials}127.0.0.1:{port}/{path}", root / "storage",
                            root / "access.log", process)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)


@dataclass
class DistccWorker:
    name: str
    port: int

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}/2"

    def log(self) -> str:
        container = docker_client().containers.get(self.name)
        return container.logs().decode(errors="replace")

    def compiled(self) -> int:
        """Compiles this worker finished (distccd's own log lines)."""
        return self.log().count("COMPILE_OK")


@contextlib.contextmanager
def distccd_workers(image: str, count: int = 2) -> Iterator[list[DistccWorker]]:
    """``count`` distccd containers of ``image``, each its own worker on a loopback port."""
    client = docker_client()
    workers = []
    try:
        for _ in range(count):
            port = free_port()
            name = f"tfbuild-test-distccd-{uuid.uuid4().hex[:10]}"
            client.containers.run(
                image,
                ["distccd", "--no-detach", "--daemon", "--log-stderr", "--log-level", "info",
                 "--listen", "127.0.0.1", "--port", str(port), "--allow", "127.0.0.1", "--jobs", "2"],
                name=name, detach=True, network_mode="host", user=f"{os.getuid()}:{os.getgid()}",
                labels={"org.tfbuild.role": "test-distccd"},
            )
            workers.append(DistccWorker(name, port))
            wait_for_port(port)
        yield workers
    finally:
        for worker in workers:
            with contextlib.suppress(Exception):
                client.containers.get(worker.name).remove(force=True)


BUILDGRID_VERSION = "0.4.4"


def buildgrid_bgd() -> Path:
    """BuildGrid's ``bgd``, in the venv scripts/install-buildgrid.sh makes in the machine's tfbuild
    cache (the tests point TFBUILD_CACHE_DIR at a private one)."""
    from tfbuild_testing import MACHINE_CACHE

    return MACHINE_CACHE / f"buildgrid-{BUILDGRID_VERSION}" / "bin" / "bgd"


BUILDGRID_CONF = """\
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: none
storages:
  - !lru-storage &main-storage
    size: 512MB
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: "{instance}"
    services:
      - !action-cache
        cache: *main-action
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
"""


@contextlib.contextmanager
def buildgrid_cache(root: Path, *, instance: str = "") -> Iterator[str]:
    """A BuildGrid REAPI server (ActionCache, CAS, ByteStream in memory) on a free loopback
    port; yields its ``grpc://`` URL (with ``/instance`` when given)."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    (root / "buildgrid.yml").write_text(BUILDGRID_CONF.format(port=port, instance=instance))
    with (root / "buildgrid.log").open("wb") as log:
        process = subprocess.Popen([str(buildgrid_bgd()), "server", "start", str(root / "buildgrid.yml")],
                                   stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for_port(port, seconds=60)
            yield f"grpc://127.0.0.1:{port}" + (f"/{instance}" if instance else "")
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def redis_cache(root: Path) -> Iterator[str]:
    """Debian's redis-server on a free loopback port, keeping nothing on disk; yields its URL."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    process = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--dir", str(root), "--logfile", str(root / "redis.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)
