"""The Android NDK stand-in of ``../shared/android-ndk-mini``, unpacked once per checkout.

The archive is laid out as an NDK r26 (``source.properties``, ``meta/``,
``toolchains/llvm/prebuilt/linux-x86_64/{bin,lib,sysroot}``) and its clang builds real Android
arm64-v8a and armeabi-v7a code (API 21 only), so tfbuild reads it as it reads any NDK. The
``mini_ndk`` fixture unpacks it into pytest's cache directory
(``.pytest_cache/d/android-ndk-mini/android-ndk-r26-mini-<archive digest>/``; the session's
temporary directory when pytest's cache is turned off): later sessions reuse it, a changed
archive gets a new directory, and two test processes at once (pytest-xdist's workers) unpack it
once, under a lock. Where the archive is absent the tests that use it are skipped, and fail under
``CI=true`` (conftest's ``missing_part``); ``$TFBUILD_TEST_SHARED_DIR`` names another directory in
place of ``../shared`` (``/nonexistent`` runs the suite as on a machine without one). An archive
that is there but cannot be unpacked into an NDK fails its tests everywhere. Its compilers run
Debian's clang-19, lld-19 and llvm-19, and static programs they build run under qemu-user
(``scripts/install-system-deps.sh``): tests that compile or run are marked ``android_ndk``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR_ENV = "TFBUILD_TEST_SHARED_DIR"
SHARED_DIR = Path(os.environ.get(SHARED_DIR_ENV) or REPO_ROOT.parent / "shared")
"""Test parts kept beside the checkout, not in it."""
MINI_NDK_DIR = SHARED_DIR / "android-ndk-mini"
MINI_NDK_ARCHIVE = MINI_NDK_DIR / "android-ndk-r26-mini.tar.xz"
MINI_NDK_NAME = "android-ndk-r26-mini"
MINI_NDK_TOOLS = ("clang-19", "clang++-19", "ld.lld-19", "llvm-ar-19")
"""Debian's programs the stand-in's ``bin/`` scripts run."""
CACHE_SUBDIR = "android-ndk-mini"
"""The directory of pytest's cache the stand-in is unpacked in."""


def unpack_mini_ndk(cache: Path, archive: Path = MINI_NDK_ARCHIVE) -> Path:
    """The NDK's top directory under ``cache``, unpacked there unless it already is. The archive
    is unpacked beside its place and renamed into it, under a lock, so a session that stops
    halfway, or two test processes at once, never leave half an NDK where the next one looks.
    An archive tar cannot unpack, or one that holds no NDK, fails the test that asked for it."""
    from tfbuild_testing import machine_lock

    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    place = cache / f"{MINI_NDK_NAME}-{digest}"
    ndk = place / MINI_NDK_NAME
    if (ndk / "source.properties").is_file():
        return ndk
    cache.mkdir(parents=True, exist_ok=True)
    with machine_lock(place.name, cache):
        if (ndk / "source.properties").is_file():  # another process unpacked it while this one waited
            return ndk
        staging = Path(tempfile.mkdtemp(prefix=f".{place.name}-", dir=cache))
        try:
            # tar, as the stand-in's README does: the archive holds an absolute symlink (clang's
            # headers, lib/clang/19/include -> /usr/lib/llvm-19/...) that tarfile's data filter refuses.
            done = subprocess.run(["tar", "-xJf", str(archive), "-C", str(staging)], capture_output=True, text=True)
            if done.returncode != 0:
                pytest.fail(f"{archive}: tar cannot unpack it: {done.stderr.strip()[-300:]}", pytrace=False)
            if not (staging / MINI_NDK_NAME / "source.properties").is_file():
                pytest.fail(f"{archive}: holds no {MINI_NDK_NAME}/source.properties (not the NDK stand-in)",
                            pytrace=False)
            shutil.rmtree(place, ignore_errors=True)  # what a stopped session left, if anything
            staging.rename(place)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return ndk


@pytest.fixture(scope="session")
def mini_ndk(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked stand-in NDK (read-only by convention: it is shared across sessions), by its
    real path, as tfbuild's options resolve it."""
    if not MINI_NDK_ARCHIVE.is_file():
        from conftest import missing_part

        missing_part(f"{MINI_NDK_ARCHIVE} is absent (the Android NDK stand-in; ${SHARED_DIR_ENV} names "
                     "another directory in place of ../shared)")
    cache = getattr(pytestconfig, "cache", None)  # None with -p no:cacheprovider
    directory = cache.mkdir(CACHE_SUBDIR) if cache is not None else tmp_path_factory.mktemp(CACHE_SUBDIR)
    return unpack_mini_ndk(directory).resolve()
