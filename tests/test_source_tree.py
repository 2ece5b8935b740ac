"""Reading a source tree's facts, and checking one out at a tag, branch or commit."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import treegen

from tfbuild.cli import main
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.tree.checkout import checkout_source, clone_name
from tfbuild.tree.facts import TensorFlowVersion, inspect_source_tree, read_version


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=root,
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    return treegen.make_tf1_tree(tmp_path_factory.mktemp("origin") / "tensorflow")


def test_tf1_tree_facts(origin):
    info = inspect_source_tree(origin)
    assert info.tf_version == "1.13.0"
    assert info.bazel_version == "0.20.0"
    assert info.bazel_version_source == "configure.py: check_bazel_version('0.19.0', '0.20.0')"
    assert info.bazel_version_range == treegen.TF1_BAZEL_VERSIONS
    assert info.flavours == ("makefile", "bazel")
    assert info.filegroup_family == "android"
    assert info.commit == _git(origin, "rev-parse", "HEAD") and not info.dirty


def test_tf2_tree_facts(tmp_path):
    info = inspect_source_tree(treegen.make_tf2_tree(tmp_path / "tf", version=(2, 6, 2)))
    assert (info.tf_version, info.bazel_version, info.bazel_version_source) == ("2.6.2", treegen.TF2_BAZEL_VERSION, ".bazelversion")
    assert info.flavours == ("bazel",) and info.filegroup_family == "portable"


@pytest.mark.parametrize("configure, version, source", [
    ("check_bazel_version('0.15.0')\n", "0.15.0", "configure.py: check_bazel_version('0.15.0')"),
    ("_TF_MIN_BAZEL_VERSION = '0.24.1'\n_TF_MAX_BAZEL_VERSION = '0.26.1'\n"
     "check_bazel_version(_TF_MIN_BAZEL_VERSION, _TF_MAX_BAZEL_VERSION)\n",
     "0.26.1", "configure.py: _TF_MIN/_TF_MAX_BAZEL_VERSION"),
    ("print('no version here')\n", None, "neither .bazelversion nor configure.py states a Bazel version"),
])
def test_bazel_version_forms_of_configure_py(tmp_path, configure, version, source):
    root = treegen.make_tf1_tree(tmp_path / "tf", tags=False)
    (root / "configure.py").write_text(configure)
    info = inspect_source_tree(root)
    assert (info.bazel_version, info.bazel_version_source) == (version, source)
    assert info.dirty  # configure.py is tracked and changed


def test_untracked_files_do_not_make_a_tree_dirty_and_tarballs_have_no_commit(tmp_path):
    root = treegen.make_tf1_tree(tmp_path / "tf", tags=False)
    (root / treegen.OPS_TO_REGISTER_H).write_text("// generated\n")
    assert not inspect_source_tree(root).dirty
    shutil.rmtree(root / ".git")
    info = inspect_source_tree(root)
    assert info.commit is None and not info.dirty and info.tf_version == "1.12.0"


def test_a_directory_that_is_not_a_tree_names_the_missing_file(tmp_path):
    with pytest.raises(SourceTreeError, match=r"tensorflow/core/public/version\.h: not found"):
        inspect_source_tree(tmp_path)
    with pytest.raises(SourceTreeError, match="source tree not found"):
        inspect_source_tree(tmp_path / "missing")


def test_checkout_at_tag_branch_and_commit(origin, tmp_path):
    workdir = tmp_path / "clone"
    assert checkout_source(str(origin), "v1.12.0", workdir) == workdir
    assert inspect_source_tree(workdir).tf_version == "1.12.0"
    assert not (workdir / treegen.KERNELS_DIR / treegen.TF1_NEXT_KERNEL_FILE).exists()
    checkout_source(str(origin), "master", workdir)
    assert inspect_source_tree(workdir).tf_version == "1.13.0"
    commit = _git(origin, "rev-parse", "v1.12.0^{commit}")
    checkout_source(str(origin), commit[:12], workdir)
    info = inspect_source_tree(workdir)
    assert (info.tf_version, info.commit) == ("1.12.0", commit)
    checkout_source(str(origin), None, workdir)  # the origin's default branch
    assert inspect_source_tree(workdir).commit == _git(origin, "rev-parse", "master")


def test_an_existing_clone_is_fetched_not_cloned_again(tmp_path):
    origin = treegen.make_tf1_tree(tmp_path / "tensorflow")
    workdir = tmp_path / "clone"
    checkout_source(str(origin), "v1.12.0", workdir)
    marker = workdir / ".git" / "tfbuild-test-marker"
    marker.write_text("same clone")
    version_h = origin / "tensorflow/core/public/version.h"
    version_h.write_text(version_h.read_text().replace("TF_MINOR_VERSION 13", "TF_MINOR_VERSION 14"))
    _git(origin, "commit", "-q", "-am", "1.14")
    _git(origin, "tag", "v1.14.0")
    checkout_source(str(origin), "v1.14.0", workdir)
    assert marker.read_text() == "same clone"
    assert inspect_source_tree(workdir).tf_version == "1.14.0"


def test_uncommitted_changes_are_refused_unless_allowed(origin, tmp_path):
    workdir = tmp_path / "clone"
    checkout_source(str(origin), "v1.13.0", workdir)
    build = workdir / treegen.KERNELS_BUILD
    build.write_text(build.read_text() + "\n# local edit\n")
    with pytest.raises(SourceTreeError, match="uncommitted changes"):
        checkout_source(str(origin), "v1.12.0", workdir)
    assert inspect_source_tree(workdir).tf_version == "1.13.0"
    checkout_source(str(origin), "v1.12.0", workdir, allow_dirty=True)
    info = inspect_source_tree(workdir)
    assert info.tf_version == "1.12.0" and info.dirty and "# local edit" in build.read_text()


def test_bad_refs_origins_and_workdirs(origin, tmp_path):
    with pytest.raises(SourceTreeError, match="no tag, branch or commit named 'v9.9.9'"):
        checkout_source(str(origin), "v9.9.9", tmp_path / "a")
    with pytest.raises(ConfigError, match="looks like an option"):
        checkout_source(str(origin), "--upload-pack=touch /tmp/x", tmp_path / "b")
    with pytest.raises(ConfigError, match="looks like an option"):
        checkout_source("--upload-pack=touch /tmp/x", "v1.12.0", tmp_path / "c")
    with pytest.raises(SourceTreeError, match="git could not clone"):
        checkout_source(str(tmp_path / "no-such-origin.git"), "v1.12.0", tmp_path / "d")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "file.txt").write_text("not a clone")
    with pytest.raises(SourceTreeError, match="exists and is not a git clone"):
        checkout_source(str(origin), "v1.12.0", occupied)
    other = treegen.make_tf2_tree(tmp_path / "other")
    checkout_source(str(other), "v2.6.0", tmp_path / "clone-of-other")
    with pytest.raises(SourceTreeError, match="not of"):
        checkout_source(str(origin), "v1.12.0", tmp_path / "clone-of-other")


def test_clone_name():
    assert clone_name("https://github.com/tensorflow/tensorflow.git") == "tensorflow"
    assert clone_name("git@github.com:tensorflow/tensorflow") == "tensorflow"
    assert clone_name("/srv/mirrors/tf/") == "tf"


def test_cli_source_checks_out_and_reports(origin, tmp_path, capsys):
    workdir = tmp_path / "clone"
    assert main(["source", str(origin), "--ref", "v1.12.0", "--workdir", str(workdir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tf_version"] == "1.12.0" and report["flavours"] == ["makefile", "bazel"]
    assert report["bazel_version_source"].startswith("configure.py")
    assert main(["source", "--source", str(workdir)]) == 0
    out = capsys.readouterr().out
    assert "1.12.0" in out and "android_*" in out and "makefile, bazel" in out
    assert main(["source", "--source", str(tmp_path)]) == SourceTreeError.exit_code
    assert "version.h: not found" in capsys.readouterr().err


# version.h of TF 2.19 and later: the numbers come from the build (tf_version.bzl), not #defines.
_VERSION_H_WITHOUT_NUMBERS = """\
#ifndef TENSORFLOW_CORE_PUBLIC_VERSION_H_
#define TENSORFLOW_CORE_PUBLIC_VERSION_H_
#define TF_STR_HELPER(x) #x
#define TF_GRAPH_DEF_VERSION 2314  // Updated: 2025/8/9
#endif  // TENSORFLOW_CORE_PUBLIC_VERSION_H_
"""


def _version_tree(root: Path, *, version_h: str = _VERSION_H_WITHOUT_NUMBERS, bzl: str | None = None) -> Path:
    """Only what read_version looks at: version.h and, when given, tensorflow/tf_version.bzl."""
    (root / "tensorflow/core/public").mkdir(parents=True)
    (root / "tensorflow/core/public/version.h").write_text(version_h)
    if bzl is not None:
        (root / "tensorflow/tf_version.bzl").write_text(bzl)
    return root


@pytest.mark.parametrize("bzl, version", [
    ('load("//tensorflow:tf_version.default.bzl", "VERSION_SUFFIX")\n'
     'TF_VERSION = "2.21.0"\nMAJOR_VERSION, MINOR_VERSION, PATCH_VERSION = TF_VERSION.split(".")\n',
     TensorFlowVersion(2, 21, 0)),
    ("TF_VERSION = '2.19.1'\n", TensorFlowVersion(2, 19, 1)),
    ('TF_VERSION = "2.20.0rc1"\n', TensorFlowVersion(2, 20, 0, suffix="rc1")),
    ('TF_VERSION = "2.22.0-dev20260101"\n', TensorFlowVersion(2, 22, 0, suffix="-dev20260101")),
])
def test_a_tree_whose_version_h_has_no_numbers_is_read_from_tf_version_bzl(tmp_path, bzl, version):
    assert read_version(_version_tree(tmp_path, bzl=bzl)) == version


def test_numeric_defines_in_version_h_win_over_tf_version_bzl(tmp_path):
    version_h = ('#define TF_MAJOR_VERSION 2\n#define TF_MINOR_VERSION 18\n#define TF_PATCH_VERSION 1\n'
                 '#define TF_VERSION_SUFFIX "-rc0"\n')
    root = _version_tree(tmp_path, version_h=version_h, bzl='TF_VERSION = "2.21.0"\n')
    assert read_version(root) == TensorFlowVersion(2, 18, 1, suffix="-rc0")


@pytest.mark.parametrize("bzl, says", [
    (None, r"tensorflow/tf_version\.bzl: not found"),
    ('# TF_VERSION = "2.21.0"\nVERSION = TF_VERSION\n', r'tensorflow/tf_version\.bzl: no TF_VERSION = "X\.Y\.Z"'),
    ('TF_VERSION = "next"\n', r'tensorflow/tf_version\.bzl: TF_VERSION = "next" is not a TensorFlow version'),
])
def test_a_tree_stating_its_version_nowhere_names_both_files(tmp_path, bzl, says):
    with pytest.raises(SourceTreeError, match=r"version\.h: no numeric TF_MAJOR_VERSION, and .*" + says):
        read_version(_version_tree(tmp_path, bzl=bzl))


def test_cli_source_reports_a_tree_versioned_by_tf_version_bzl(tmp_path, capsys):
    root = treegen.make_tf2_tree(tmp_path / "tf", version=(2, 6, 0))
    (root / "tensorflow/core/public/version.h").write_text(_VERSION_H_WITHOUT_NUMBERS)
    (root / "tensorflow/tf_version.bzl").write_text('TF_VERSION = "2.21.0"\n')
    assert inspect_source_tree(root).tf_version == "2.21.0"
    assert main(["source", "--source", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tf_version"] == "2.21.0"
