"""``tfbuild workspace``: the Android repositories block in a TensorFlow tree's WORKSPACE."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from android_dirs import make_ndk, make_sdk
from treegen import make_tf1_tree, make_tf2_tree

from tfbuild.cli import main
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.pipeline.declarations.options import AndroidOptions
from tfbuild.pipeline.flavours.workspace import (
    BEGIN_MARKER,
    END_MARKER,
    apply_block,
    render_android_block,
    resolve_android_repositories,
    write_android_workspace,
)
from tfbuild.toolchain.tf_versions import tree_requirements
from tfbuild.tree.facts import read_tree_facts


@pytest.fixture(scope="module")
def tf1_template(tmp_path_factory) -> Path:
    return make_tf1_tree(tmp_path_factory.mktemp("tf1") / "tree")


@pytest.fixture
def tree(tmp_path, tf1_template) -> Path:
    """A fresh copy of the TF 1.x tree's top level (the WORKSPACE is what changes)."""
    root = tmp_path / "tree"
    (root / "tensorflow/core/public").mkdir(parents=True)
    (root / "WORKSPACE").write_text((tf1_template / "WORKSPACE").read_text())
    version_h = "tensorflow/core/public/version.h"
    (root / version_h).write_text((tf1_template / version_h).read_text())
    return root


@pytest.fixture
def android(tmp_path) -> AndroidOptions:
    return AndroidOptions(sdk=make_sdk(tmp_path / "sdk"), ndk=make_ndk(tmp_path / "ndk"))


def block_of(text: str) -> str:
    return text[text.index(BEGIN_MARKER): text.index(END_MARKER) + len(END_MARKER)]


def test_appends_a_block_that_parses_and_keeps_the_rest(tree, android):
    original = (tree / "WORKSPACE").read_text()
    update = write_android_workspace(tree, android)
    text = (tree / "WORKSPACE").read_text()
    assert text.startswith(original)  # nothing before the block changed
    ast.parse(text)  # Starlark syntax is Python syntax here
    block = block_of(text)
    assert 'name = "androidsdk"' in block and 'name = "androidndk"' in block
    assert f'path = "{android.sdk}"' in block and f'path = "{android.ndk}"' in block
    assert "api_level = 28," in block  # highest installed platform, as configure.py picks
    assert 'build_tools_version = "28.0.3"' in block
    assert re.search(r"android_ndk_repository\([^)]*api_level = 21,", block, re.S)  # configure.py's default
    assert update.block.strip() == block


def test_second_run_replaces_only_its_own_block(tree, android, tmp_path):
    write_android_workspace(tree, android)
    with (tree / "WORKSPACE").open("a") as handle:
        handle.write('\n# the user added this after tfbuild\nload("//x:y.bzl", "z")\n')
    other_sdk = make_sdk(tmp_path / "sdk2", platforms=(26,), build_tools=("27.0.3",))
    write_android_workspace(tree, AndroidOptions(sdk=other_sdk, ndk=android.ndk))
    text = (tree / "WORKSPACE").read_text()
    assert text.count(BEGIN_MARKER) == 1 and text.count(END_MARKER) == 1
    assert str(other_sdk) in text and f'"{android.sdk}"' not in text
    assert 'load("//x:y.bzl", "z")' in text
    ast.parse(text)


def test_same_inputs_give_the_same_file(tree, android):
    write_android_workspace(tree, android)
    first = (tree / "WORKSPACE").read_bytes()
    write_android_workspace(tree, android)
    assert (tree / "WORKSPACE").read_bytes() == first


@pytest.mark.parametrize("missing", ["sdk", "ndk"])
def test_refuses_paths_that_do_not_exist(tree, android, tmp_path, missing):
    before = (tree / "WORKSPACE").read_bytes()
    gone = tmp_path / f"no-such-{missing}"
    options = AndroidOptions(**{**vars(android), missing: gone})
    with pytest.raises(ConfigError, match=re.escape(str(gone))):
        write_android_workspace(tree, options)
    assert (tree / "WORKSPACE").read_bytes() == before


def test_refuses_an_ndk_the_tensorflow_version_does_not_support(tree, tmp_path, android):
    r21 = make_ndk(tmp_path / "ndk21", revision="21.4.7075529")
    with pytest.raises(ConfigError, match=r"NDK r21 \(21.4.7075529\) is too new for TensorFlow 1.13.0") as caught:
        write_android_workspace(tree, AndroidOptions(sdk=android.sdk, ndk=r21))
    assert "r10-r18" in caught.value.one_line()
    assert BEGIN_MARKER not in (tree / "WORKSPACE").read_text()


def test_the_same_ndk_is_fine_for_a_later_tensorflow(tmp_path, android):
    tf2 = make_tf2_tree(tmp_path / "tf2", version=(2, 6, 0))
    r21 = make_ndk(tmp_path / "ndk21", revision="21.4.7075529")
    write_android_workspace(tf2, AndroidOptions(sdk=android.sdk, ndk=r21))
    assert "21.4.7075529" in (tf2 / "WORKSPACE").read_text()


def test_ndk_without_source_properties_is_refused(tree, tmp_path, android):
    bare = tmp_path / "bare-ndk"
    bare.mkdir()
    with pytest.raises(ConfigError, match=f"{bare}: no source.properties, so this is not an Android NDK"):
        write_android_workspace(tree, AndroidOptions(sdk=android.sdk, ndk=bare))


def test_old_build_tools_and_missing_levels_are_refused(tree, tmp_path, android):
    old = make_sdk(tmp_path / "old-sdk", platforms=(23,), build_tools=("23.0.2",))
    with pytest.raises(ConfigError, match="older than 26.0.1"):
        write_android_workspace(tree, AndroidOptions(sdk=old, ndk=android.ndk))
    with pytest.raises(ConfigError, match="SDK platform 19 not installed"):
        write_android_workspace(tree, AndroidOptions(sdk=android.sdk, ndk=android.ndk, api_level=19))
    with pytest.raises(ConfigError, match="build tools 99.0.0 not installed"):
        write_android_workspace(tree, AndroidOptions(sdk=android.sdk, ndk=android.ndk, build_tools="99.0.0"))
    with pytest.raises(ConfigError, match=r"has API levels 16-28 \(meta/platforms.json\); .* API level 29 "
                                          r"\(--ndk-api-level\)"):
        write_android_workspace(tree, AndroidOptions(sdk=android.sdk, ndk=android.ndk, ndk_api_level=29))


def test_explicit_levels_are_used(android, tree):
    options = AndroidOptions(sdk=android.sdk, ndk=android.ndk, api_level=23, build_tools="26.0.1", ndk_api_level=16)
    block = write_android_workspace(tree, options).block
    assert "api_level = 23," in block and '"26.0.1"' in block and "api_level = 16," in block


def test_hostile_paths_stay_inside_the_string(tmp_path, tree):
    sdk = make_sdk(tmp_path / 'we"ird\\sdk')
    ndk = make_ndk(tmp_path / "ndk")
    requirements = tree_requirements(read_tree_facts(tree))
    repositories = resolve_android_repositories(AndroidOptions(sdk=sdk, ndk=ndk), requirements)
    block = render_android_block(repositories, requirements)
    calls = [node for node in ast.walk(ast.parse(block)) if isinstance(node, ast.Call)]
    paths = [kw.value.value for call in calls for kw in call.keywords if kw.arg == "path"]
    assert paths == [str(sdk), str(ndk)]


def test_refuses_a_workspace_that_already_declares_the_rules():
    text = 'workspace(name = "x")\nandroid_sdk_repository(name = "androidsdk", path = "/x")\n'
    with pytest.raises(SourceTreeError, match="already declares android_sdk_repository"):
        apply_block(text, f"{BEGIN_MARKER}\n{END_MARKER}\n", where="WORKSPACE")


def test_refuses_damaged_markers():
    with pytest.raises(SourceTreeError, match="markers are damaged"):
        apply_block(f"x = 1\n{BEGIN_MARKER}\n", f"{BEGIN_MARKER}\n{END_MARKER}\n", where="WORKSPACE")


def test_cli_writes_the_block_and_prints_it(tree, android, capsys, monkeypatch):
    monkeypatch.chdir(tree.parent)
    monkeypatch.setenv("TFBUILD_SOURCE", str(tree))  # --source resolves as for every command
    code = main(["workspace", "--sdk", str(android.sdk), "--ndk", str(android.ndk), "--api-level", "23"])
    out = capsys.readouterr().out
    assert code == 0
    assert BEGIN_MARKER in out and f"wrote {tree / 'WORKSPACE'}" in out
    assert "api_level = 23," in (tree / "WORKSPACE").read_text()


def test_cli_without_a_source_tree_says_how_to_give_one(android, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TFBUILD_SOURCE", raising=False)
    monkeypatch.delenv("TFBUILD_CONFIG", raising=False)
    assert main(["workspace", "--sdk", str(android.sdk), "--ndk", str(android.ndk)]) == 2
    err = capsys.readouterr().err
    assert "no TensorFlow source tree given" in err and "--source" in err


def test_cli_refuses_a_missing_ndk_in_one_line(tree, android, capsys, tmp_path):
    code = main(["workspace", "--sdk", str(android.sdk), "--ndk", str(tmp_path / "nope"), "--source", str(tree)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nope" in err
