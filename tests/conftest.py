"""Shared pytest setup.

Tests that need a real external part (Docker engine, Bazel, cross compilers, g++ against
TensorFlow's headers) carry a marker. Where the part is missing they are skipped on a
developer's machine, but in CI (``CI=true``), which installs every part, a missing part is a
failure: a green CI must mean the real thing ran. A part a test can only find out about while
it runs (a linker mode, the NDK stand-in, an installed venv) goes through the same rule:
:func:`missing_part`, the only place a test skips for want of something.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest
from tfbuild_testing import MACHINE_CACHE

from tfbuild.cache import CACHE_DIR_ENV

REPO_ROOT = Path(__file__).resolve().parent.parent
# Fixtures that test modules share, defined beside the helpers that build their data.
pytest_plugins = ["modelgen", "android_ndk", "docker_stand_in"]


def _docker_ready() -> str | None:
    if shutil.which("docker") is None:
        return "docker client not installed"
    probe = subprocess.run(["docker", "info"], capture_output=True, text=True)
    return None if probe.returncode == 0 else "no Docker engine is running"


def _bazel_ready() -> str | None:
    from tfbuild_testing import bazel_binary

    return None if bazel_binary() else "no Bazel binary (npm @bazel/bazel-linux_x64) found"


def _cross_ready() -> str | None:
    """Every cross architecture's compiler, qemu-user program and zlib (toolchains/architectures)."""
    from tfbuild.toolchain.architectures import architectures

    missing = []
    for record in architectures().values():
        if record.native:
            continue
        missing += [tool for tool in (f"{record.tool_prefix}g++", record.runs) if shutil.which(tool) is None]
        if record.target_zlib is not None and not Path(record.sysroot, "lib", "libz.a").is_file():
            missing.append(f"{record.sysroot}/lib/libz.a")
    return f"missing {', '.join(missing)} (bash scripts/install-system-deps.sh)" if missing else None


def _compiler_ready() -> str | None:
    return None if shutil.which("g++") else "g++ not installed"


def _chromium_ready() -> str | None:
    return None if shutil.which("chromium") else "chromium not installed (apt-get install chromium)"


def _android_ndk_ready() -> str | None:
    from android_ndk import MINI_NDK_TOOLS

    from tfbuild.toolchain.targets import Platform, load_targets

    runners = {profile.launcher[0] for profile in load_targets().values()
               if profile.platform is Platform.ANDROID and profile.launcher}
    missing = [tool for tool in (*MINI_NDK_TOOLS, *sorted(runners)) if shutil.which(tool) is None]
    return f"missing {', '.join(missing)} (apt-get install clang-19 lld-19 llvm-19 qemu-user)" if missing else None


FRAMEWORK_RES = Path("/usr/share/android-framework-res/framework-res.apk")


def _android_packaging_ready() -> str | None:
    missing = [tool for tool in ("aapt2", "javac", "javap") if shutil.which(tool) is None]
    missing += [] if FRAMEWORK_RES.is_file() else [str(FRAMEWORK_RES)]
    return (f"missing {', '.join(missing)} (apt-get install aapt android-framework-res default-jdk-headless)"
            if missing else None)


def _nginx_ready() -> str | None:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    return None if found else "nginx not installed (apt-get install nginx-light)"


def _redis_ready() -> str | None:
    return None if shutil.which("redis-server") else "redis-server not installed (apt-get install redis-server)"


def _buildgrid_ready() -> str | None:
    from remote_servers import buildgrid_bgd

    return None if buildgrid_bgd().exists() else "BuildGrid not installed (bash scripts/install-buildgrid.sh)"


def _maven_ready() -> str | None:
    from maven_client import maven_ready

    return maven_ready()


JUNIT = Path("/usr/share/java/junit4.jar")


def _junit_ready() -> str | None:
    return None if JUNIT.is_file() else f"{JUNIT} is absent (apt-get install junit4)"


_PROBES = {
    "docker": _docker_ready,
    "bazel": _bazel_ready,
    "cross": _cross_ready,
    "compiler": _compiler_ready,
    "chromium": _chromium_ready,
    "android_ndk": _android_ndk_ready,
    "android_packaging": _android_packaging_ready,
    "nginx": _nginx_ready,
    "buildgrid": _buildgrid_ready,
    "redis": _redis_ready,
    "maven": _maven_ready,
    "junit": _junit_ready,
}


def _link_entries(machine: Path, private: Path) -> None:
    """``private`` as a directory of links to what ``machine`` holds (nothing if it is absent):
    the test reads what the machine installed, and what it adds lands in ``private``."""
    private.mkdir(parents=True, exist_ok=True)
    if machine.is_dir():
        for entry in machine.iterdir():
            if not (private / entry.name).exists():
                (private / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory) -> Path:
    """A tfbuild cache directory for the session, under pytest's temporary directory. What the
    machine installed in its own cache (:data:`MACHINE_CACHE`) is seen through links: each Bazel
    release scripts/install-bazel.sh or tfbuild put there; the package records of the toolchain
    images are copied (a test that builds an image rewrites its record). What the tests write
    (kernel indexes of throwaway trees, a Bazel release fetched for one test, records) stays in
    the session's directory: no test writes into the user's cache."""
    private = tmp_path_factory.mktemp("tfbuild-cache")
    bazel = MACHINE_CACHE / "bazel"
    _link_entries(bazel, private / "bazel")
    if (private / "bazel" / "versions").is_symlink():
        (private / "bazel" / "versions").unlink()
        _link_entries(bazel / "versions", private / "bazel" / "versions")
    (private / "images").mkdir()
    if (MACHINE_CACHE / "images").is_dir():
        for record in (MACHINE_CACHE / "images").glob("*.packages.txt"):
            shutil.copyfile(record, private / "images" / record.name)
    return private


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch, _session_cache):
    """One private cache per session: copies of one pristine tree share a commit, so later tests
    hit the kernel-index cache."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(_session_cache))


@pytest.fixture(scope="session")
def pristine_trees(tmp_path_factory) -> dict[str, Path]:
    """One TF 1.12-shaped and one TF 2.x-shaped tree (tests/treegen.py), built once."""
    import treegen

    base = tmp_path_factory.mktemp("pristine")
    return {"tf1": treegen.make_tf1_tree(base / "tf1"), "tf2": treegen.make_tf2_tree(base / "tf2")}


@pytest.fixture
def tf1_tree(pristine_trees, tmp_path) -> Path:
    """A private copy of the TF 1.12-shaped tree, free to edit."""
    return Path(shutil.copytree(pristine_trees["tf1"], tmp_path / "tf1", symlinks=True))


@pytest.fixture
def tf2_tree(pristine_trees, tmp_path) -> Path:
    """A private copy of the TF 2.x-shaped tree, free to edit."""
    return Path(shutil.copytree(pristine_trees["tf2"], tmp_path / "tf2", symlinks=True))


@pytest.fixture(scope="session")
def pristine_tf2_makefile_tree(tmp_path_factory) -> Path:
    """The TF 2.0.0-shaped contrib Makefile tree (treegen.make_tf2_makefile_tree), built once."""
    import treegen

    return treegen.make_tf2_makefile_tree(tmp_path_factory.mktemp("pristine-tf2-makefile") / "tf2-makefile")


@pytest.fixture
def tf2_makefile_tree(pristine_tf2_makefile_tree, tmp_path) -> Path:
    """A private copy of the TF 2.0.0-shaped contrib Makefile tree, free to edit."""
    return Path(shutil.copytree(pristine_tf2_makefile_tree, tmp_path / "tf2-makefile", symlinks=True))


_probe_cache: dict[str, str | None] = {}


def _missing_part(item) -> tuple[str, str] | None:
    for marker, probe in _PROBES.items():
        if marker in item.keywords:
            if marker not in _probe_cache:
                _probe_cache[marker] = probe()
            if _probe_cache[marker] is not None:
                return marker, _probe_cache[marker]
    return None


def in_ci() -> bool:
    """Whether this run is CI's (``CI=true``), which installs every part the suite needs."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing_part(reason: str, *, needed_by: str = "this test") -> NoReturn:
    """The one CI rule: skip the test for want of a part of the machine (``reason`` names it and
    how to get it), or, under ``CI=true``, fail it. Every skip of the suite goes through here."""
    if in_ci():
        pytest.fail(f"CI must provide what {needed_by} needs: {reason}", pytrace=False)
    pytest.skip(reason)


class _TensorflowWatch(importlib.abc.MetaPathFinder):
    """Refuses ``import tensorflow`` in a test without the ``tensorflow`` marker, for as long as
    this process has not imported it yet (it then stays imported, so a run of ``-m "not
    tensorflow"`` checks every unmarked test). Finding the package is left alone: tfbuild locates
    the installed wheel with ``importlib.util.find_spec`` without importing it."""

    def __init__(self) -> None:
        self.watched: pytest.Item | None = None
        self.refused: set[str] = set()

    def find_spec(self, name: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name != "tensorflow" or self.watched is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name)
        if spec is not None:
            spec.loader = _RefusedLoader(self, self.watched.nodeid)
        return spec


class _RefusedLoader(importlib.abc.Loader):
    def __init__(self, watch: _TensorflowWatch, nodeid: str) -> None:
        self.watch, self.nodeid = watch, nodeid

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        self.watch.refused.add(self.nodeid)
        raise ImportError("tensorflow imported by a test without the tensorflow marker")

    def exec_module(self, module: object) -> None:  # never reached: create_module refuses
        raise ImportError("tensorflow imported by a test without the tensorflow marker")


_TENSORFLOW_WATCH = _TensorflowWatch()
sys.meta_path.insert(0, _TENSORFLOW_WATCH)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if "tensorflow" not in item.keywords and "tensorflow" not in sys.modules:
        _TENSORFLOW_WATCH.watched = item
    missing = _missing_part(item)
    if missing is not None:
        marker, reason = missing
        missing_part(reason, needed_by=f"the @{marker} marker")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    finally:
        if item.nodeid in _TENSORFLOW_WATCH.refused:
            pytest.fail("this test imports tensorflow (in itself or a fixture): mark it @pytest.mark.tensorflow",
                        pytrace=False)


def pytest_runtest_teardown(item):
    _TENSORFLOW_WATCH.watched = None
