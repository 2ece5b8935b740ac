"""Toolchain images: tags from inputs, reuse, the package record, and the errors users meet."""

from __future__ import annotations

import re
import subprocess

import pytest
from toolchain_fixtures import bazel_toolchain, linux_toolchain, require_base_image

import tfbuild.toolchain.image_spec
import tfbuild.toolchain.images
from tfbuild.cli import main
from tfbuild.errors import ToolchainError
from tfbuild.toolchain.base_image import BaseImageOptions, make_base_image
from tfbuild.toolchain.container import BuildContainer, ContainerConfig
from tfbuild.toolchain.images import (
    build_toolchain,
    ensure_image,
    packages_record_path,
    toolchain_names,
    toolchain_spec,
)


# -- fast: no Docker ---------------------------------------------------------------------------
def test_every_dockerfile_takes_its_base_image_as_an_argument():
    assert {"linux", "bazel", "android"} <= set(toolchain_names())
    for name in toolchain_names():
        text = (tfbuild.toolchain.images.docker_dir() / f"{name}.Dockerfile").read_text()
        assert re.search(r"^ARG BASE_IMAGE", text, re.M), name
        assert re.search(r"^FROM \$\{BASE_IMAGE\}", text, re.M), name
        assert "/etc/tfbuild/packages.txt" in text, name


def test_the_tag_follows_the_inputs_and_only_them():
    linux = toolchain_spec("linux")
    assert linux.tag == toolchain_spec("linux").tag
    assert linux.tag.startswith("tfbuild-toolchain:linux-")
    assert linux.build_args["BASE_IMAGE"] == "tfbuild-base:bookworm"
    assert toolchain_spec("linux", base="tfbuild-base:trixie").tag != linux.tag
    assert toolchain_spec("linux", build_args={"X": "1"}).tag != linux.tag
    assert toolchain_spec("bazel").tag != linux.tag


def test_an_unknown_toolchain_names_the_known_ones():
    with pytest.raises(ToolchainError, match="no such toolchain") as caught:
        toolchain_spec("windows")
    assert "linux" in caught.value.hint


def test_an_unreachable_daemon_says_how_to_fix_it(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/tfbuild-test/docker.sock")
    with pytest.raises(ToolchainError, match="Docker engine is unreachable") as caught:
        build_toolchain("linux")
    assert "start dockerd" in caught.value.hint and "--local" in caught.value.hint
    assert main(["toolchain", "list"]) == ToolchainError.exit_code


def test_a_bazel_image_needs_the_binary_from_npm(monkeypatch, tmp_path):
    from tfbuild.toolchain.image_context import bazel_release_binary

    monkeypatch.setenv("TFBUILD_CACHE_DIR", str(tmp_path))
    with pytest.raises(ToolchainError, match="Bazel 9.9.9 is not installed") as caught:
        bazel_release_binary("9.9.9", fetch=False)
    assert "npm install --prefix" in caught.value.hint


# -- real Docker ---------------------------------------------------------------------------------
@pytest.mark.docker
def test_the_base_image_is_kept_when_it_exists():
    tag = require_base_image()
    result = make_base_image(BaseImageOptions())
    assert (result.tag, result.created) == (tag, False)


@pytest.mark.docker
def test_the_linux_toolchain_is_reused_and_records_its_package_versions():
    first = linux_toolchain()
    again = ensure_image(first.spec)
    assert not again.built and again.image_id == first.image_id
    record = packages_record_path(first.spec.tag)
    assert again.packages_path == record
    versions = dict(line.split("=", 1) for line in record.read_text().splitlines())
    for package in ("g++", "g++-arm-linux-gnueabihf", "g++-aarch64-linux-gnu", "qemu-user", "ccache", "make"):
        assert versions.get(package), package
    # The record is what the image holds, not a guess: compare with dpkg in a container.
    in_image = subprocess.run(
        ["docker", "run", "--rm", first.spec.tag, "dpkg-query", "-W", "-f=${Version}", "g++-arm-linux-gnueabihf"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert versions["g++-arm-linux-gnueabihf"] == in_image


@pytest.mark.docker
def test_the_bazel_toolchain_runs_the_pinned_bazel():
    image = bazel_toolchain()
    record = packages_record_path(image.spec.tag).read_text()
    assert "bazel=0.26.1 sha256=6c50e142a0a405d3" in record  # npm @bazel/bazel-linux_x64@0.26.1
    lines: list[str] = []
    with BuildContainer(ContainerConfig(image=image.spec.tag, user="4321:4321")) as box:
        code = box.run(["bazel", "--batch", "--output_user_root=/tmp/bazel-root", "version"], on_line=lines.append)
    assert code == 0, lines
    version = "\n".join(lines)
    assert "Build label: 0.26.1" in version


@pytest.mark.docker
def test_a_failing_dockerfile_is_a_toolchain_error_with_its_output(monkeypatch, tmp_path):
    require_base_image()
    (tmp_path / "broken.Dockerfile").write_text(
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN echo about to fail && false\n"
    )
    monkeypatch.setattr(tfbuild.toolchain.images, "docker_dir", lambda: tmp_path)
    monkeypatch.setattr(tfbuild.toolchain.image_spec, "docker_dir", lambda: tmp_path)
    lines: list[str] = []
    with pytest.raises(ToolchainError, match="broken.Dockerfile: image build failed") as caught:
        build_toolchain("broken", log=lines.append)
    assert "about to fail" in caught.value.hint
    assert any("about to fail" in line for line in lines)


@pytest.mark.docker
def test_toolchain_commands_as_a_user_runs_them(capsys):
    linux_toolchain()
    assert main(["toolchain", "build", "linux"]) == 0
    out = capsys.readouterr().out
    assert "reused tfbuild-toolchain:linux-" in out and "package versions:" in out
    assert main(["toolchain", "list"]) == 0
    assert "linux" in capsys.readouterr().out
    assert main(["toolchain", "build", "linux", "--build-arg", "NOEQUALS"]) == 2
