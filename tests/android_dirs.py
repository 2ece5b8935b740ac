"""Android SDK and NDK directories shaped like the real ones where tfbuild (and TensorFlow's
configure.py) look: ``source.properties`` with ``Pkg.Revision``, ``platforms/android-N``,
``build-tools/<version>``. They hold no compilers: Android builds are planned, not run, here."""

from __future__ import annotations

from pathlib import Path


def make_ndk(root: Path, revision: str = "18.1.5063045", api_levels: tuple[int, ...] = (16, 18, 21, 28)) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "source.properties").write_text(f"Pkg.Desc = Android NDK\nPkg.Revision = {revision}\n")
    for level in api_levels:
        (root / "platforms" / f"android-{level}").mkdir(parents=True, exist_ok=True)
    return root


def make_sdk(root: Path, platforms: tuple[int, ...] = (23, 28), build_tools: tuple[str, ...] = ("26.0.1", "28.0.3")) -> Path:
    for level in platforms:
        (root / "platforms" / f"android-{level}").mkdir(parents=True, exist_ok=True)
    for version in build_tools:
        (root / "build-tools" / version).mkdir(parents=True, exist_ok=True)
    (root / "build-tools").mkdir(parents=True, exist_ok=True)
    (root / "platforms").mkdir(parents=True, exist_ok=True)
    return root
