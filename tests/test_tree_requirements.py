"""What a tree's build needs: the tree's configure.py wins, tfbuild's version table is the fallback.

The generated TF1 tree's configure.py lists ``_SUPPORTED_ANDROID_NDK_VERSIONS = [10, ..., 18]``
and defaults the NDK API level to 18, as a TF 1.12-era checkout does; the TF2 tree's states
neither, so the table answers for it. Real 1.8/1.9 checkouts list NDKs but ask no NDK API
level; 1.4 states neither (see the report of ``tfbuild source`` on them).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import treegen
from android_dirs import make_ndk, make_sdk

from tfbuild.cli import main
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.pipeline.declarations.options import AndroidOptions
from tfbuild.pipeline.flavours.workspace import (
    render_android_block,
    resolve_android_repositories,
    write_android_workspace,
)
from tfbuild.toolchain.targets import get_target
from tfbuild.toolchain.tf_versions import ndk_majors_text, tree_requirements, version_table
from tfbuild.tree.facts import TensorFlowVersion, default_ndk_api_level, read_tree_facts, supported_ndk_majors

TABLE = "table: toolchains/tensorflow/versions.toml"
CONFIGURE_NDKS = "configure.py: _SUPPORTED_ANDROID_NDK_VERSIONS"
CONFIGURE_LEVEL = "configure.py: ANDROID_NDK_API_LEVEL prompt default"


@pytest.fixture(scope="module")
def tf1_template(tmp_path_factory) -> Path:
    """A TF 1.12.0 tree: the version whose table entry (1.6) lists only NDK r10-r15."""
    return treegen.make_tf1_tree(tmp_path_factory.mktemp("tf1") / "tree", tags=False)


@pytest.fixture
def tf1(tmp_path, tf1_template) -> Path:
    """A fresh copy of the tree's top level, version.h and configure.py (what changes here)."""
    root = tmp_path / "tf1"
    for relative in ("WORKSPACE", "configure.py", "tensorflow/core/public/version.h"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text((tf1_template / relative).read_text())
    return root


@pytest.fixture
def sdk(tmp_path) -> Path:
    return make_sdk(tmp_path / "sdk")


def _without(root: Path, pattern: str) -> Path:
    """``root`` with the configure.py lines matching ``pattern`` removed."""
    configure = root / "configure.py"
    kept = [line for line in configure.read_text().splitlines(keepends=True) if not re.search(pattern, line)]
    configure.write_text("".join(kept))
    return root


# -- reading configure.py --------------------------------------------------------------------------
def test_the_tf1_tree_states_its_ndks_and_ndk_api_level(tf1):
    facts = read_tree_facts(tf1)
    assert (facts.android_ndk_majors.value, facts.android_ndk_majors.source) == (treegen.TF1_NDK_MAJORS, CONFIGURE_NDKS)
    assert (facts.default_ndk_api_level.value, facts.default_ndk_api_level.source) == (
        treegen.TF1_NDK_API_LEVEL, CONFIGURE_LEVEL)


@pytest.mark.parametrize("text, majors, why", [
    # TF 1.8/1.9 spell it on one line, TF 2.x over several.
    ("_SUPPORTED_ANDROID_NDK_VERSIONS = [10, 11, 12, 13, 14, 15]\n", (10, 11, 12, 13, 14, 15), None),
    ("_SUPPORTED_ANDROID_NDK_VERSIONS = [\n    19, 20, 21, 25\n]\n", (19, 20, 21, 25), None),
    ("def check_bazel_version(min_version):\n  pass\n", None, "configure.py has no _SUPPORTED_ANDROID_NDK_VERSIONS"),
    ("_SUPPORTED_ANDROID_NDK_VERSIONS = [10, 'r11']\n", None, "is not a list of NDK majors: [10, 'r11']"),
    ("_SUPPORTED_ANDROID_NDK_VERSIONS = []\n", None, "is not a list of NDK majors"),
    (None, None, "the tree has no configure.py"),
])
def test_ndk_list_forms(text, majors, why):
    stated = supported_ndk_majors(text)
    assert stated.value == majors
    assert stated.source == CONFIGURE_NDKS if why is None else why in stated.source


@pytest.mark.parametrize("text, level", [
    ("  x = prompt_loop_or_load_from_env(\n      environ_cp,\n      var_name='ANDROID_NDK_API_LEVEL',\n"
     "      var_default='21',  # 21 is required for ARM64 support.\n", 21),
    ('prompt_loop_or_load_from_env(environ_cp, var_name="ANDROID_NDK_API_LEVEL", var_default="26")', 26),
    # TF 1.8/1.9: the NDK's revision is written as api_level; no level is asked for.
    ("  ndk_api_level = check_ndk_level(android_ndk_home_path)\n", None),
    ("var_name='ANDROID_API_LEVEL', var_default=api_levels[-1]", None),  # the SDK's level, not the NDK's
])
def test_ndk_api_level_forms(text, level):
    stated = default_ndk_api_level(text)
    assert stated.value == level
    assert stated.source == (CONFIGURE_LEVEL if level else "configure.py asks no ANDROID_NDK_API_LEVEL")


# -- the tree wins, the table is the fallback ------------------------------------------------------
def test_the_trees_ndk_list_wins_over_the_table(tf1, sdk, tmp_path):
    """A TF 1.12 tree listing r18 builds with r18, although the table's 1.6 entry stops at r15."""
    requirements = tree_requirements(read_tree_facts(tf1))
    assert requirements.table.for_version(requirements.version).android_ndk_majors == tuple(range(10, 16))
    r18 = make_ndk(tmp_path / "ndk18", revision="18.1.5063045")
    block = write_android_workspace(tf1, AndroidOptions(sdk=sdk, ndk=r18)).block
    assert f"accepts NDK r10-r18 ({CONFIGURE_NDKS})" in block
    r19 = make_ndk(tmp_path / "ndk19", revision="19.2.5345600")
    with pytest.raises(ConfigError, match=r"NDK r19 \(19.2.5345600\) is too new for TensorFlow 1.12.0") as caught:
        write_android_workspace(tf1, AndroidOptions(sdk=sdk, ndk=r19))
    assert caught.value.message.endswith(f"which builds with NDK r10-r18 ({CONFIGURE_NDKS})")
    assert caught.value.hint.startswith("use an NDK r18 or older")


def test_a_tree_without_a_list_falls_back_to_the_table_and_says_so(tf1, sdk, tmp_path):
    _without(tf1, "^_SUPPORTED_ANDROID_NDK_VERSIONS")
    r18 = make_ndk(tmp_path / "ndk18", revision="18.1.5063045")
    with pytest.raises(ConfigError, match="NDK r18 .* is too new for TensorFlow 1.12.0") as caught:
        write_android_workspace(tf1, AndroidOptions(sdk=sdk, ndk=r18))
    assert caught.value.message.endswith(
        f"which builds with NDK r10-r15 ({TABLE}, TensorFlow 1.6 entry; "
        "configure.py has no _SUPPORTED_ANDROID_NDK_VERSIONS)"
    )


def test_the_tf2_tree_states_nothing_so_the_table_answers(tmp_path):
    requirements = tree_requirements(read_tree_facts(treegen.make_tf2_tree(tmp_path / "tf2", version=(2, 6, 0))))
    majors = requirements.android_ndk_majors()
    assert majors.value == tuple(range(10, 22))
    assert majors.source == f"{TABLE}, TensorFlow 2.5 entry; configure.py has no _SUPPORTED_ANDROID_NDK_VERSIONS"
    level = requirements.default_ndk_api_level()
    assert (level.value, level.source) == (21, f"{TABLE}, default_ndk_api_level; configure.py asks no ANDROID_NDK_API_LEVEL")
    assert requirements.bazel().source == ".bazelversion"


def test_a_tree_older_than_the_table_that_states_nothing_is_unknown(tf1):
    version_h = tf1 / "tensorflow/core/public/version.h"
    version_h.write_text(version_h.read_text().replace("TF_MINOR_VERSION 12", "TF_MINOR_VERSION 4"))
    requirements = tree_requirements(read_tree_facts(tf1))
    assert requirements.android_ndk_majors().value == treegen.TF1_NDK_MAJORS  # the tree says: no table needed
    _without(tf1, "^_SUPPORTED_ANDROID_NDK_VERSIONS")
    requirements = tree_requirements(read_tree_facts(tf1))
    with pytest.raises(SourceTreeError, match=r"older than any version tfbuild knows \(1.6\), and configure.py has no"):
        requirements.android_ndk_majors()
    report = {line.name: line for line in requirements.report()}
    assert report["android_ndk_majors"].value is None
    assert report["android_ndk_majors"].source.startswith("unknown: TensorFlow 1.4.0 is older")
    assert report["default_ndk_api_level"].value == treegen.TF1_NDK_API_LEVEL



@pytest.mark.parametrize("version, entry, bazel", [
    (TensorFlowVersion(2, 21, 0), "2.21", "7.4.1"),
    (TensorFlowVersion(2, 21, 0, suffix="rc1"), "2.21", "7.4.1"),
    (TensorFlowVersion(2, 22, 0), "2.21", "7.4.1"),  # newer than the table: its newest entry
    (TensorFlowVersion(2, 20, 1), "2.20", "7.4.1"),
    (TensorFlowVersion(2, 19, 0), "2.19", "6.5.0"),
    (TensorFlowVersion(2, 17, 1), "2.17", "6.5.0"),
])
def test_recent_versions_resolve_to_their_own_entries(version, entry, bazel):
    requirements = version_table().for_version(version)
    assert (requirements.tensorflow, requirements.bazel) == (entry, bazel)
    assert requirements.android_ndk_majors == (19, 20, 21, 25)
    assert requirements.debian_suite == "bookworm"
    assert requirements.android_inference_package == "//tensorflow/tools/android/inference_interface"


def test_a_2_21_tree_that_states_nothing_gets_the_2_21_entry(tmp_path):
    """A 2.21 tree as read (version from tf_version.bzl, as real 2.19+ trees need) with no
    .bazelversion and no configure.py: every fact is the 2.21 entry's."""
    public = tmp_path / "tensorflow/core/public"
    public.mkdir(parents=True)
    (public / "version.h").write_text("#define TF_GRAPH_DEF_VERSION 2314\n")
    (tmp_path / "tensorflow/tf_version.bzl").write_text('TF_VERSION = "2.21.0"\n')
    requirements = tree_requirements(read_tree_facts(tmp_path))
    assert str(requirements.version) == "2.21.0"
    entry = f"{TABLE}, TensorFlow 2.21 entry"
    bazel = requirements.bazel()
    assert (bazel.value, bazel.source) == (
        "7.4.1", f"{entry}; neither .bazelversion nor configure.py states a Bazel version")
    majors = requirements.android_ndk_majors()
    assert (majors.value, majors.source) == ((19, 20, 21, 25), f"{entry}; the tree has no configure.py")
    assert requirements.android_inference_package().source == entry
    level = requirements.default_ndk_api_level()
    assert (level.value, level.source) == (21, f"{TABLE}, default_ndk_api_level; the tree has no configure.py")


# -- the NDK API level -----------------------------------------------------------------------------
def test_the_trees_default_ndk_api_level_is_used_and_raised_for_64_bit(tf1, sdk, tmp_path):
    ndk = make_ndk(tmp_path / "ndk", revision="17.2.4988734")
    requirements = tree_requirements(read_tree_facts(tf1))
    armv7 = resolve_android_repositories(AndroidOptions(sdk=sdk, ndk=ndk), requirements)
    assert (armv7.ndk_api_level, armv7.ndk_api_level_source) == (18, f"default, {CONFIGURE_LEVEL}")
    arm64 = resolve_android_repositories(AndroidOptions(sdk=sdk, ndk=ndk), requirements,
                                         target=get_target("android-arm64"))
    assert arm64.ndk_api_level == 21
    assert arm64.ndk_api_level_source == f"raised from the default 18 ({CONFIGURE_LEVEL}) for a 64-bit target"
    block = render_android_block(arm64, requirements)
    assert re.search(r"android_ndk_repository\([^)]*api_level = 21,", block, re.S)
    assert "# NDK API level 21: raised from the default 18" in block
    given = resolve_android_repositories(AndroidOptions(sdk=sdk, ndk=ndk, ndk_api_level=16), requirements)
    assert (given.ndk_api_level, given.ndk_api_level_source) == (16, "--ndk-api-level")


def test_a_default_level_the_ndk_lacks_names_where_the_default_came_from(tf1, sdk, tmp_path):
    ndk = make_ndk(tmp_path / "ndk", revision="17.2.4988734", api_levels=(16, 21))
    with pytest.raises(ConfigError, match=r"has API levels 16, 21 \(platforms/android-N\); the WORKSPACE's "
                       rf"android_ndk_repository builds for API level 18 \(default, {CONFIGURE_LEVEL}\)") as caught:
        write_android_workspace(tf1, AndroidOptions(sdk=sdk, ndk=ndk))
    assert caught.value.hint == "use an NDK that has API level 18, or pass --ndk-api-level 16"


# -- tfbuild source --------------------------------------------------------------------------------
def test_source_reports_each_fact_with_its_source(tf1_template, tmp_path, capsys):
    assert main(["source", "--source", str(tf1_template)]) == 0
    out = capsys.readouterr().out
    assert f"Android NDKs       r10-r18 ({CONFIGURE_NDKS})" in out
    assert f"NDK API level      18 by default ({CONFIGURE_LEVEL})" in out
    assert "Bazel              0.20.0 (configure.py: check_bazel_version('0.19.0', '0.20.0'))" in out
    assert f"Android library    //tensorflow/contrib/android ({TABLE}, TensorFlow 1.6 entry)" in out

    assert main(["source", "--source", str(tf1_template), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["build_facts"]
    assert facts["android_ndk_majors"] == {"value": list(treegen.TF1_NDK_MAJORS), "source": CONFIGURE_NDKS}
    assert facts["default_ndk_api_level"] == {"value": 18, "source": CONFIGURE_LEVEL}


def test_source_reports_the_table_fallback_and_what_nobody_knows(tf1, capsys):
    _without(tf1, r"^_SUPPORTED_ANDROID_NDK_VERSIONS|var_default='18'")
    version_h = tf1 / "tensorflow/core/public/version.h"
    version_h.write_text(version_h.read_text().replace("TF_MINOR_VERSION 12", "TF_MINOR_VERSION 4"))
    assert main(["source", "--source", str(tf1), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["build_facts"]
    assert facts["android_ndk_majors"]["value"] is None
    assert facts["android_ndk_majors"]["source"].startswith("unknown: TensorFlow 1.4.0 is older than any version")
    assert facts["default_ndk_api_level"]["value"] == 21
    assert facts["default_ndk_api_level"]["source"].startswith(f"{TABLE}, default_ndk_api_level")
    assert main(["source", "--source", str(tf1)]) == 0
    assert "Android NDKs       unknown: TensorFlow 1.4.0 is older" in capsys.readouterr().out


def test_the_generated_configure_py_defaults_to_what_tfbuild_reads(tf1_template, tmp_path):
    """Asked nothing (stdin closed, no ANDROID_NDK_API_LEVEL), the tree's own configure.py picks
    the level tfbuild reads from it."""
    ndk = make_ndk(tmp_path / "ndk", revision="18.1.5063045")
    probe = "import sys, configure; print('\\nlevel', configure.get_ndk_api_level({}, sys.argv[1]))"
    done = subprocess.run(["python3", "-c", probe, str(ndk)], cwd=tf1_template, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert "[Default is 18]" in done.stdout  # the prompt a user would see
    assert done.stdout.splitlines()[-1] == f"level {read_tree_facts(tf1_template).default_ndk_api_level.value}"


@pytest.mark.parametrize("majors, text", [
    ((10, 11, 12, 13, 14, 15), "r10-r15"), ((19, 20, 21, 25), "r19, r20, r21, r25"), ((17, 18), "r17, r18"),
])
def test_ndk_majors_text(majors, text):
    assert ndk_majors_text(majors) == text


# -- the toolchain's Debian base --------------------------------------------------------------
CI_FROM = "tensorflow/tools/ci_build/Dockerfile.cpu: FROM"


def _ci_dockerfile(root: Path, line: str | None) -> Path:
    path = root / "tensorflow/tools/ci_build/Dockerfile.cpu"
    path.parent.mkdir(parents=True, exist_ok=True)
    if line is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(f"# CI image\n{line}\n\nRUN true\n")
    return root


@pytest.mark.parametrize(
    ("from_line", "suite", "why"),
    [
        # Real 1.4 (14.04) and 1.8/1.9 (16.04) trees: bullseye is the oldest suite tfbuild makes.
        ("FROM ubuntu:14.04", "bullseye", f"{CI_FROM} ubuntu:14.04 (glibc 2.19); bullseye has glibc 2.31"),
        ("FROM ubuntu:16.04", "bullseye", f"{CI_FROM} ubuntu:16.04 (glibc 2.23); bullseye has glibc 2.31"),
        ("FROM ubuntu:20.04", "bullseye", f"{CI_FROM} ubuntu:20.04 (glibc 2.31); bullseye"),
        # Newer than bullseye's glibc: the oldest suite that is not older.
        ("FROM ubuntu:22.04", "bookworm", f"{CI_FROM} ubuntu:22.04 (glibc 2.35); bookworm has glibc 2.36"),
        # Newer than any suite: the newest there is.
        ("FROM ubuntu:24.04", "bookworm", f"{CI_FROM} ubuntu:24.04 (glibc 2.39); bookworm"),
        # A base the table cannot place, and no file at all: the version table's entry (1.6).
        ("FROM nvidia/cuda:9.0-cudnn7-devel-ubuntu16.04", "bullseye",
         f"{TABLE}, TensorFlow 1.6 entry; {CI_FROM} nvidia/cuda:9.0-cudnn7-devel-ubuntu16.04, a base"),
        (None, "bullseye", f"{TABLE}, TensorFlow 1.6 entry; the tree has no tensorflow/tools/ci_build/Dockerfile.cpu"),
        ("RUN echo no from line", "bullseye", f"{TABLE}, TensorFlow 1.6 entry; tensorflow/tools/ci_build/Dockerfile.cpu has no FROM"),
    ],
)
def test_the_toolchain_base_follows_the_os_the_trees_ci_built_it_in(tf1, from_line, suite, why):
    fact = tree_requirements(read_tree_facts(_ci_dockerfile(tf1, from_line))).debian_suite()
    assert (fact.value, fact.source[: len(why)]) == (suite, why)


def test_without_a_ci_dockerfile_a_recent_release_gets_bookworm_from_the_table(tf1):
    version_h = tf1 / "tensorflow/core/public/version.h"
    version_h.write_text(version_h.read_text().replace("TF_MAJOR_VERSION 1", "TF_MAJOR_VERSION 2")
                         .replace("TF_MINOR_VERSION 12", "TF_MINOR_VERSION 16"))
    fact = tree_requirements(read_tree_facts(_ci_dockerfile(tf1, None))).debian_suite()
    assert fact.value == "bookworm"
    assert fact.source.startswith(f"{TABLE}, TensorFlow 2.16 entry")


def test_source_reports_the_toolchain_base(tf1_template, capsys):
    assert main(["source", "--source", str(tf1_template)]) == 0
    assert f"Toolchain base     Debian bullseye ({CI_FROM} ubuntu:16.04 (glibc 2.23)" in capsys.readouterr().out
