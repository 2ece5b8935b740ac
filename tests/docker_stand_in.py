"""A stand-in Docker engine for tests whose subject is a container build's plan, not the engine.

A dry run of a container build asks the engine two things: is it reachable, and does it have the
toolchain image (or its base). Its exit code depends on the answers, so without an engine a test
of what the plan says, of the preflight, or of a wrong ``--out`` would see exit 6 instead. The
``docker_stand_in`` fixture points ``DOCKER_HOST`` (for tfbuild in this process and in the
processes it starts) at a small server on a Unix socket that answers like an engine holding
every image: ``/version``, ``/_ping`` and an image's inspect. Anything else (building an image,
starting a container) gets an error, so a test that reaches a real container step fails loudly
instead of passing against the stand-in. Tests of the engine itself are marked ``docker``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socketserver
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

API_VERSION = "1.41"
_IMAGE = re.compile(r"^(?:/v[0-9.]+)?/images/(?P<name>.+)/json$")


class _Engine(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the docker SDK's connection pool expects

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.endswith("/_ping"):
            self._reply(200, "OK", "text/plain")
        elif path.endswith("/version"):
            self._reply(200, json.dumps({"ApiVersion": API_VERSION, "Version": "tfbuild-test-stand-in"}))
        elif match := _IMAGE.match(path):
            name = match["name"]
            digest = hashlib.sha256(name.encode()).hexdigest()
            self._reply(200, json.dumps({"Id": f"sha256:{digest}", "RepoTags": [name]}))
        else:
            self._refuse()

    def do_POST(self) -> None:
        self._refuse()

    do_PUT = do_DELETE = do_POST

    def do_HEAD(self) -> None:  # the docker CLI's ping: headers only
        self.send_response(200 if self.path.split("?", 1)[0].endswith("/_ping") else 501)
        self.send_header("Content-Length", "0")
        self.send_header("Api-Version", API_VERSION)
        self.end_headers()

    def _refuse(self) -> None:
        message = f"the tests' stand-in Docker engine does not do {self.command} {self.path}"
        self._reply(501, json.dumps({"message": message}))

    def _reply(self, status: int, body: str, content_type: str = "application/json") -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Api-Version", API_VERSION)
        self.end_headers()
        self.wfile.write(data)

    def address_string(self) -> str:  # a Unix socket's peer has no (host, port)
        return "unix"

    def log_message(self, format: str, *args: object) -> None:  # quiet: the tests read tfbuild, not the engine
        pass


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture(scope="session")
def _docker_stand_in_socket() -> Iterator[Path]:
    # A short directory of its own: a Unix socket's path is limited to about 100 bytes.
    directory = Path(tempfile.mkdtemp(prefix="tfbuild-docker-"))
    socket = directory / "docker.sock"
    server = _Server(str(socket), _Engine)
    thread = threading.Thread(target=server.serve_forever, name="docker-stand-in", daemon=True)
    thread.start()
    try:
        yield socket
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def docker_stand_in(monkeypatch: pytest.MonkeyPatch, _docker_stand_in_socket: Path) -> str:
    """``DOCKER_HOST`` for an engine that is reachable and has every image (see the module's
    docstring); set for this test, and inherited by the processes it starts."""
    host = f"unix://{_docker_stand_in_socket}"
    monkeypatch.setenv("DOCKER_HOST", host)
    for variable in ("DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"):
        monkeypatch.delenv(variable, raising=False)
    return host
