"""The build container against a real Docker engine: commands, users, copies, and cleanup on
every way out of the ``with`` block (exception, Ctrl-C, timeout, failed start)."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path, PurePosixPath

import pytest
from toolchain_fixtures import require_base_image

from tfbuild.pipeline.planning.plan import Mount
from tfbuild.toolchain.container import (
    BuildContainer,
    CommandTimeout,
    ContainerConfig,
    ContainerStartError,
    wait_gone,
)
from tfbuild.toolchain.engine import docker_client

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def image() -> str:
    return require_base_image()


@pytest.fixture(scope="module")
def client():
    return docker_client()


def _gone(client, name: str) -> bool:
    return wait_gone(client, name, seconds=15)


def test_runs_commands_with_workdir_and_env_streaming_each_line(image, client):
    lines: list[str] = []
    with BuildContainer(ContainerConfig(image=image, env={"GREETING": "hello"})) as box:
        code = box.run(
            ["sh", "-c", 'pwd; echo "$GREETING $WHO"; printf "no newline at end"'],
            workdir=PurePosixPath("/usr"),
            env={"WHO": "world"},
            on_line=lines.append,
        )
        assert box.run(["sh", "-c", "exit 3"]) == 3
        name = box.name
        assert client.containers.get(name).status == "running"
    assert code == 0
    assert lines == ["/usr", "hello world", "no newline at end"]
    assert _gone(client, name)


def test_outputs_in_bind_mounts_belong_to_the_user_it_runs_as(image, tmp_path):
    out = tmp_path / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    mounts = (Mount(target=PurePosixPath("/out"), source=out),)
    with BuildContainer(ContainerConfig(image=image, mounts=mounts)) as box:
        assert box.run(["touch", "/out/mine"]) == 0
    with BuildContainer(ContainerConfig(image=image, mounts=mounts, user="4321:4321")) as box:
        assert box.run(["touch", "/out/theirs"]) == 0
        assert box.run(["sh", "-c", 'test "$HOME" = /tmp']) == 0  # a uid with no home gets one
    assert (out / "mine").stat().st_uid == os.getuid()
    assert (out / "theirs").stat().st_uid == 4321


def test_copies_files_and_directories_out(image, tmp_path):
    with BuildContainer(ContainerConfig(image=image)) as box:
        box.run(["sh", "-c", "mkdir -p /tmp/art/sub && echo one > /tmp/art/a.txt && echo two > /tmp/art/sub/b.txt"])
        single = box.copy_out(PurePosixPath("/tmp/art/a.txt"), tmp_path / "copied.txt")
        tree = box.copy_out(PurePosixPath("/tmp/art"), tmp_path / "tree")
        from tfbuild.errors import BuildError

        with pytest.raises(BuildError, match="not found"):
            box.copy_out(PurePosixPath("/tmp/nothing-here"), tmp_path / "none")
    assert single.read_text() == "one\n"
    assert (tree / "sub" / "b.txt").read_text() == "two\n"
    assert single.stat().st_uid == os.getuid()
    assert not (tmp_path / "none").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tfbuild-copy")] == []


def test_container_is_gone_after_an_exception(image, client):
    with pytest.raises(RuntimeError, match="boom"), BuildContainer(ContainerConfig(image=image)) as box:
        name = box.name
        assert box.run(["true"]) == 0
        raise RuntimeError("boom")
    assert _gone(client, name)


def test_container_is_gone_after_ctrl_c_while_a_command_streams(image, client):
    def interrupt(line: str) -> None:
        if line == "tick":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), BuildContainer(ContainerConfig(image=image)) as box:
        name = box.name
        box.run(["sh", "-c", "while true; do echo tick; sleep 1; done"], on_line=interrupt)
    assert _gone(client, name)


def test_a_timeout_kills_the_command_and_removes_the_container(image, client):
    started = time.monotonic()
    with pytest.raises(CommandTimeout, match="2 s"), BuildContainer(ContainerConfig(image=image)) as box:
        name = box.name
        box.run(["sleep", "120"], timeout=2)
    assert time.monotonic() - started < 60
    assert _gone(client, name)


def test_a_failed_start_leaves_no_container(client, image):
    missing = f"tfbuild-test-no-such-image:{uuid.uuid4().hex[:8]}"
    box = BuildContainer(ContainerConfig(image=missing))
    with pytest.raises(ContainerStartError, match=missing), box:
        pytest.fail("the block must not run")
    assert _gone(client, box.name)
    bad_mount = Mount(target=PurePosixPath("/src"), source=Path("/nonexistent/tfbuild/tree"))
    with (
        pytest.raises(ContainerStartError, match="/nonexistent/tfbuild/tree"),
        BuildContainer(ContainerConfig(image=image, mounts=(bad_mount,))),
    ):
        pytest.fail("the block must not run")


def test_named_volumes_outlive_the_container_for_caches(image, client):
    volume = f"tfbuild-test-cache-{uuid.uuid4().hex[:8]}"
    mounts = (Mount(target=PurePosixPath("/cache/test"), volume=volume),)
    try:
        with BuildContainer(ContainerConfig(image=image, mounts=mounts, user="4321:4321")) as box:
            assert box.run(["sh", "-c", "echo warm > /cache/test/entry"]) == 0
        with BuildContainer(ContainerConfig(image=image, mounts=mounts)) as box:
            lines: list[str] = []
            assert box.run(["cat", "/cache/test/entry"], on_line=lines.append) == 0
        assert lines == ["warm"]
    finally:
        client.volumes.get(volume).remove(force=True)
