"""``tfbuild vendor`` and ``build --vendor-dir``: a 2.x tree's external repositories from local git
mirrors, and real Bazel building the tree with no network at all.

The tree (``treegen.add_external_repositories``) declares two archives as TensorFlow's
workspace.bzl does: ``tinyhash`` as a GitHub ``.tar.gz`` of a commit (its bytes can be made again
from the mirror: repository cache) and ``tinyfmt`` as a ``.zip`` with a ``patch_file`` the compile
needs (laid out as an override). ``libtensorflow_cc.so`` links both.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import pytest
import treegen
from conftest import REPO_ROOT, missing_part
from tfbuild_testing import bazel_binary

from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
from tfbuild.pipeline.flavours import plan_build
from tfbuild.tree.external_repos import external_repositories
from tfbuild.tree.facts import read_tree_facts
from tfbuild.tree.vendor import CACHE_DIR, OVERRIDES_DIR, read_record

APP = REPO_ROOT / "tests/data/apps/app_a.json"
HEADER = "// ops_to_register.h (test fixture)\n#define SHOULD_REGISTER_OP(op) true\n"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "tfbuild", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """A 2.x tree with two external archives, their git mirrors, and the tree's pins."""
    root = tmp_path_factory.mktemp("vendor")
    tree = treegen.make_tf2_tree(root / "tf")
    commits = treegen.add_external_repositories(tree, root / "mirrors")
    (root / "commits.json").write_text(json.dumps(commits))
    return root


def test_the_workspace_is_read_as_bazel_would_fetch_it(world):
    repositories = {repository.name: repository for repository in external_repositories(world / "tf")}
    commits = json.loads((world / "commits.json").read_text())
    assert set(repositories) == {"tinyhash", "tinyfmt"}
    tinyhash, tinyfmt = repositories["tinyhash"], repositories["tinyfmt"]
    assert tinyhash.github is not None
    assert (tinyhash.github.owner, tinyhash.github.ref, tinyhash.github.extension) == ("acme", commits["tinyhash"], "tar.gz")
    assert tinyhash.build_file == "//third_party:tinyhash.BUILD"
    assert tinyhash.declared_at == "tensorflow/workspace.bzl:11"
    assert tinyfmt.patch_file == "//third_party/tinyfmt:fix_header.patch"
    assert tinyfmt.github is not None
    assert tinyfmt.github.extension == "zip"


def test_names_assigned_in_the_file_are_followed(tmp_path):
    """TensorFlow 2.0 pins protobuf through PROTOBUF_URLS / PROTOBUF_SHA256 variables."""
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "WORKSPACE").write_text('workspace(name = "org_tensorflow")\n')
    (tmp_path / "tensorflow/workspace.bzl").write_text(
        'def tf_workspace():\n'
        '    PROTOBUF_URLS = ["https://github.com/protocolbuffers/protobuf/archive/310ba5ee.tar.gz"]\n'
        '    PROTOBUF_SHA256 = "b9e9"\n'
        '    tf_http_archive(\n        name = "com_google_protobuf",\n        sha256 = PROTOBUF_SHA256,\n'
        '        strip_prefix = "protobuf-" + "310ba5ee",\n        urls = PROTOBUF_URLS,\n    )\n'
        '    tf_http_archive(name = "computed", sha256 = "x", urls = some_function())\n'
    )
    [protobuf] = external_repositories(tmp_path)
    assert (protobuf.name, protobuf.sha256, protobuf.strip_prefix) == ("com_google_protobuf", "b9e9", "protobuf-310ba5ee")
    assert protobuf.github is not None
    assert protobuf.github.repo == "protobuf"


def test_the_dry_run_lists_each_repository_and_where_it_comes_from(world):
    done = run_cli("vendor", "--source", "tf", "--mirrors", "mirrors", "--out-dir", "never", "--dry-run", cwd=world)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["tinyhash", "cache"] and "acme+tinyhash" in lines[0]
    assert lines[1].split()[:2] == ["tinyfmt", "override"] and "a commit pins the files" in lines[1]
    assert lines[2] == "would lay out 1 in the repository cache, 1 overridden"
    assert not (world / "never").exists()


def test_the_archive_is_remade_byte_for_byte_and_the_zip_laid_out_patched(world):
    done = run_cli("vendor", "--source", "tf", "--mirrors", "mirrors", "--out-dir", "vendor", cwd=world)
    assert done.returncode == 0, done.stderr
    record = read_record(world / "vendor")
    assert (record.cached, record.overrides, record.missing) == (("tinyhash",), ("tinyfmt",), ())
    [tinyhash, _] = external_repositories(world / "tf")
    assert (world / "vendor" / CACHE_DIR / "content_addressable/sha256" / tinyhash.sha256 / "file").is_file()
    tinyfmt = world / "vendor" / OVERRIDES_DIR / "tinyfmt"
    assert "#define TINYFMT_PATCHED 1" in (tinyfmt / "include/tinyfmt.h").read_text()  # patch_file applied
    assert (tinyfmt / "BUILD.bazel").read_text() == (world / "tf/third_party/tinyfmt/tinyfmt.BUILD").read_text()
    assert 'workspace(name = "tinyfmt")' in (tinyfmt / "WORKSPACE").read_text()


def test_a_repository_without_a_mirror_is_named_in_one_line(world, tmp_path):
    mirrors = tmp_path / "mirrors"
    shutil.copytree(world / "mirrors" / "acme+tinyhash", mirrors / "acme+tinyhash")
    done = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(mirrors), "--out-dir", "v", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "missing (1, no mirror): tinyfmt"
    assert read_record(tmp_path / "v").missing == ("tinyfmt",)


def test_a_mirror_without_the_pinned_commit_fails_in_one_line(world, tmp_path):
    mirrors = tmp_path / "mirrors"
    shutil.copytree(world / "mirrors" / "acme+tinyfmt", mirrors / "acme+tinyfmt")
    treegen.make_external_mirror(mirrors, "tinyhash", date="2020-01-01T12:00:00+00:00")  # same files, another commit
    done = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(mirrors), "--out-dir", "v", cwd=tmp_path)
    pinned = json.loads((world / "commits.json").read_text())["tinyhash"]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert done.returncode == 4, done.stderr
    assert len(errors) == 1, done.stderr
    assert f"acme+tinyhash/.git: no commit {pinned}, the pin of tinyhash (tensorflow/workspace.bzl:11)" in errors[0]
    assert not (tmp_path / "v").exists()


def test_the_bazel_plan_reads_the_vendor_directory(world):
    if not (world / "vendor" / "vendor.json").exists():
        run_cli("vendor", "--source", "tf", "--mirrors", "mirrors", "--out-dir", "vendor", cwd=world)
    given = {"target": "linux-x86_64", "flavour": "bazel", "source": str(world / "tf"), "jobs": 2,
             "output_dir": str(world / "out"), "vendor_dir": str(world / "vendor")}
    in_container = plan_build(resolve_build_options(Flags.named(**given), environ={}, cwd=world),
                              header_text=HEADER, tree=read_tree_facts(world / "tf"))
    build = next(step for step in in_container.steps if step.argv[0] == "bazel")
    assert "--repository_cache=/vendor/repository-cache" in build.argv
    assert "--override_repository=tinyfmt=/vendor/overrides/tinyfmt" in build.argv
    assert build.argv.index("--repository_cache=/vendor/repository-cache") < build.argv.index("//tensorflow:libtensorflow_cc.so")
    assert PurePosixPath("/vendor") in {mount.target for mount in in_container.mounts}
    assert in_container.network == "none"
    assert any(note.kind == "offline" and "1 overridden" in note.text for note in in_container.notes)
    local = plan_build(resolve_build_options(Flags.named(**given, local=True, analysis_only=True), environ={},
                                             cwd=world), header_text=HEADER, tree=read_tree_facts(world / "tf"))
    build = next(step for step in local.steps if step.argv[0] == "bazel")
    assert build.argv[:3] == ("bazel", "build", "--nobuild")
    assert f"--override_repository=tinyfmt={world / 'vendor' / 'overrides' / 'tinyfmt'}" in build.argv
    assert local.artifacts == ()


def _offline(then_in: Path | None = None) -> list[str]:
    """A command prefix that runs its command in a new network namespace with only loopback up
    (Bazel's client talks to its server there): no route to anywhere else. With ``then_in``,
    ``bazel shutdown`` runs there afterwards, in the same namespace (the only one that reaches
    the server)."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        missing_part("unshare and ip (util-linux, iproute2) to run Bazel without a network")
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        missing_part(f"a new network namespace (unshare --net: {probe.stderr.decode().strip()}); run as root")
    script = 'ip link set lo up && { "$@"; rc=$?; [ "$0" = - ] || (cd "$0" && bazel shutdown) >/dev/null 2>&1; exit $rc; }'
    return ["unshare", "--net", "--", "sh", "-c", script, str(then_in) if then_in else "-"]


@pytest.mark.bazel
def test_real_bazel_builds_the_tree_from_the_mirrors_with_no_network(world, tmp_path):
    reach = ("import socket, sys\ntry:\n    socket.create_connection(('192.0.2.1', 443), timeout=3)\n"
             "except OSError as error:\n    sys.exit(f'unreachable: {error}')\n")
    proof = subprocess.run([*_offline(), sys.executable, "-c", reach], capture_output=True, text=True, check=False)
    assert proof.returncode != 0
    assert "unreachable" in proof.stderr  # no route out: any download Bazel tried would fail
    vendor = run_cli("vendor", "--source", "tf", "--mirrors", "mirrors", "--out-dir", "vendor", cwd=world)
    assert vendor.returncode == 0, vendor.stderr
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bazel").symlink_to(bazel_binary())
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    tree, out = world / "tf", tmp_path / "out"
    build = ["build", "--target", "linux-x86_64", "--flavour", "bazel", "--local", "--source", str(tree),
             "--model", str(APP), "--out-dir", str(out), "--jobs", "2", "--vendor-dir", str(world / "vendor")]
    done = subprocess.run([*_offline(then_in=tree), sys.executable, "-m", "tfbuild", *build], env=env,
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    log = (out / "linux-x86_64.build.log").read_text()
    assert f"--repository_cache={world / 'vendor' / CACHE_DIR}" in log
    assert "--override_repository=tinyfmt=" in log
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(out / "libtensorflow_cc.so")], capture_output=True,
                             text=True, check=True).stdout
    assert " TfStandinVendored" in symbols  # compiled against both repositories, tinyfmt patched


def test_a_mirror_named_outright_is_an_override_and_says_what_was_not_checked(world, tmp_path):
    """``--mirror NAME=DIR@REF[:SUBDIR]``: archives GitHub does not serve, and repositories another
    repository declares (bazel_toolchains' git_repository of rules_docker), which the tree does not show."""
    mirror = world / "mirrors" / "acme+tinyhash"
    done = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(world / "mirrors"), "--out-dir", "v",
                   "--mirror", f"tinyhash={mirror}@HEAD", "--mirror", f"rules_elsewhere={world / 'mirrors/acme+tinyfmt'}@HEAD:include",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()[:3]}
    assert lines["tinyhash"].split()[1] == "override" and "named outright (--mirror, [vendor] mirror): not checked against the pin" in lines["tinyhash"]
    assert "declared outside the tree: no pin to check; its include/" in lines["rules_elsewhere"]
    assert (tmp_path / "v" / OVERRIDES_DIR / "rules_elsewhere" / "tinyfmt.h").is_file()  # the commit's include/
    assert read_record(tmp_path / "v").overrides == ("tinyhash", "tinyfmt", "rules_elsewhere")
    unknown = run_cli("vendor", "--source", str(world / "tf"), "--mirror", f"nowhere={mirror}", "--dry-run", cwd=tmp_path)
    assert unknown.returncode == 4
    assert "the workspace declares no archive named nowhere" in unknown.stderr


@pytest.mark.parametrize("inside", [".", "third_party/vendor"])
def test_a_vendor_directory_in_the_tree_is_refused_before_anything_is_written(world, tmp_path, inside):
    tree = tmp_path / "tf"
    shutil.copytree(world / "tf", tree, symlinks=True)
    before = sorted(path.relative_to(tree) for path in tree.rglob("*") if ".git" not in path.parts)
    done = run_cli("vendor", "--source", str(tree), "--mirrors", str(world / "mirrors"),
                   "--out-dir", str(tree / inside), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "the vendor directory is inside the source tree" in done.stderr
    assert sorted(path.relative_to(tree) for path in tree.rglob("*") if ".git" not in path.parts) == before


def _files(directory: Path) -> dict[str, bytes]:
    return {str(path.relative_to(directory)): path.read_bytes() for path in sorted(directory.rglob("*")) if path.is_file()}


def test_a_directory_that_is_not_a_vendor_directory_is_refused_and_left_as_it_was(world, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("the user's\n")
    done = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(world / "mirrors"),
                   "--out-dir", str(mine), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "holds files and no vendor.json, so it is not a vendor directory to replace" in done.stderr
    assert _files(mine) == {"notes.txt": b"the user's\n"}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine"]


def test_a_stopped_vendor_run_leaves_the_earlier_directory_whole_and_no_partial_one(world, tmp_path):
    """SIGTERM (a CI cancel) while an override is being laid out: the earlier vendor directory is as
    it was, nothing half-laid-out is left beside it, and the exit code is the shell's 143."""
    first = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(world / "mirrors"), "--out-dir", "v",
                    cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    earlier = _files(tmp_path / "v")
    # A git that announces listing a commit and then takes its time: the stop lands mid-layout.
    real_git = shutil.which("git")
    assert real_git is not None
    slow = tmp_path / "bin"
    slow.mkdir()
    marker = tmp_path / "archiving"
    (slow / "git").write_text(
        "#!/bin/sh\n"
        f'for word in "$@"; do if [ "$word" = ls-tree ]; then touch "{marker}"; sleep 60; fi; done\n'
        f'exec "{real_git}" "$@"\n')
    (slow / "git").chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "PATH": f"{slow}:{os.environ['PATH']}"}
    process = subprocess.Popen([sys.executable, "-m", "tfbuild", "vendor", "--source", str(world / "tf"), "--mirrors",
                                str(world / "mirrors"), "--out-dir", "v"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if marker.exists() or process.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), process.communicate()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 143, stderr
    assert _files(tmp_path / "v") == earlier
    assert sorted(path.name for path in tmp_path.iterdir()) == ["archiving", "bin", "v"]


def test_the_mirror_table_in_tfbuild_toml_is_read_relative_to_the_file(world, tmp_path):
    """A company's CI keeps ``[vendor]`` next to the tree: the directory of mirrors, and the
    mappings for what GitHub does not serve, each DIR relative to tfbuild.toml."""
    project = tmp_path / "project"
    shutil.copytree(world / "mirrors" / "acme+tinyhash", project / "kept" / "tinyhash-mirror")
    config = project / "tfbuild.toml"
    config.write_text(f'[build]\nsource = "{world / "tf"}"\n\n[vendor]\nmirrors = "{world / "mirrors"}"\n'
                      'mirror = ["tinyhash=kept/tinyhash-mirror@HEAD"]\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TFBUILD_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-m", "tfbuild", "vendor", "--dry-run"], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()[:2]}
    assert lines["tinyhash"].split()[1] == "override"
    assert f"{project / 'kept' / 'tinyhash-mirror' / '.git'}@HEAD" in lines["tinyhash"]
    assert lines["tinyfmt"].split()[1] == "override" and str(world / "mirrors" / "acme+tinyfmt") in lines["tinyfmt"]

    config.write_text(f'[build]\nsource = "{world / "tf"}"\n\n[vendor]\nmirror = ["tinyhash"]\n')
    bad = subprocess.run([sys.executable, "-m", "tfbuild", "vendor", "--dry-run"], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=600, check=False)
    assert bad.returncode == 2, bad.stderr
    [error] = [line for line in bad.stderr.splitlines() if line.startswith("error: ")]
    assert "[vendor] mirror" in error and "'tinyhash' is not NAME=DIR[@REF[:SUBDIR]]" in error


def test_a_symbolic_link_as_the_vendor_directory_is_refused_and_left_as_it_was(world, tmp_path):
    """The directory is replaced whole: a link would be replaced by a directory, so it is refused."""
    target = tmp_path / "big-disk"
    target.mkdir()
    (tmp_path / "v").symlink_to(target)
    done = run_cli("vendor", "--source", str(world / "tf"), "--mirrors", str(world / "mirrors"), "--out-dir", "v",
                   cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "v: a symbolic link" in done.stderr and f"pass --out-dir the directory it points to ({target})" in done.stderr
    assert (tmp_path / "v").is_symlink() and not any(target.iterdir())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["big-disk", "v"]
