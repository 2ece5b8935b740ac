"""The Android NDK stand-in of ``../shared/android-ndk-mini``, unpacked once into tfbuild's cache.

The archive is laid out as an NDK r26 (``source.properties``, ``meta/``,
``toolchains/llvm/prebuilt/linux-x86_64/{bin,lib,sysroot}``) and its clang builds real Android
arm64-v8a and armeabi-v7a code (API 21 only), so tfbuild reads it as it reads any NDK. The
``mini_ndk`` fixture unpacks it into ``<cache>/ndk/android-ndk-r26-mini-<archive digest>/``
under the session's tfbuild cache, whose ``ndk`` directory is the machine's own (see
``conftest._session_cache``): later sessions reuse it, and a changed archive gets a new
directory. Where the archive is absent the tests that use it are skipped, and fail under
``CI=true`` (conftest's ``missing_part``); ``$TFBUILD_TEST_SHARED_DIR`` names another directory in
place of ``../shared`` (``/nonexistent`` runs the suite as on a machine without one). Its
compilers run Debian's clang-19, lld-19 and llvm-19, and static programs they build run under
qemu-user (``scripts/install-system-deps.sh``): tests that compile or run are marked ``android_ndk``.
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
CACHE_SUBDIR = "ndk"


def unpack_mini_ndk(cache: Path, archive: Path = MINI_NDK_ARCHIVE) -> Path:
    """The NDK's top directory under ``cache/ndk``, unpacked there unless it already is. The
    archive is unpacked beside its place and renamed into it, so a session that stops halfway,
    or two sessions at once, never leave half an NDK where the next one looks."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    place = cache / CACHE_SUBDIR / f"{MINI_NDK_NAME}-{digest}"
    ndk = place / MINI_NDK_NAME
    if (ndk / "source.properties").is_file():
        return ndk
    place.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{place.name}-", dir=place.parent))
    try:
        # tar, as the stand-in's README does: the archive holds an absolute symlink (clang's
        # headers, lib/clang/19/include -> /usr/lib/llvm-19/...) that tarfile's data filter refuses.
        subprocess.run(["tar", "-xJf", str(archive), "-C", str(staging)], check=True, capture_output=True)
        try:
            staging.rename(place)
        except OSError:
            if not (ndk / "source.properties").is_file():  # not another session's finished copy
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ndk


@pytest.fixture(scope="session")
def mini_ndk(_session_cache: Path) -> Path:
    """The unpacked stand-in NDK (read-only by convention: it is shared across sessions), by its
    real path, as tfbuild's options resolve it."""
    if not MINI_NDK_ARCHIVE.is_file():
        from conftest import missing_part

        missing_part(f"{MINI_NDK_ARCHIVE} is absent (the Android NDK stand-in; ${SHARED_DIR_ENV} names "
                     "another directory in place of ../shared)")
    return unpack_mini_ndk(_session_cache).resolve()
