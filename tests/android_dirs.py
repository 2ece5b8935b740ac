"""Android SDK and NDK directories shaped like the real ones where tfbuild (and TensorFlow's
configure.py) look. They hold no compilers: the real compilers are the NDK stand-in's
(``tests/android_ndk.py``); these are for planning and for the refusals.

An NDK gets the metadata of its era, from its revision's major:

- r17 and older (the layout the contrib Makefile knows): ``source.properties``,
  ``platforms/android-N/arch-<arch>`` per API level and ABI, the GCC toolchains
  ``toolchains/<triple>-4.9``, and clang under ``toolchains/llvm/prebuilt/<host>``;
- r18 to r22: ``meta/platforms.json`` (``min``/``max`` of ``api_levels``) and
  ``meta/abis.json`` as well, still with ``platforms/``, no GCC;
- r23 and newer: ``meta/`` and ``toolchains/llvm/prebuilt/<host>`` only.

(A real r17 has a ``meta/platforms.json`` too; it is left out here so that the old layout,
which older NDKs have alone, is what r17 and older test.)
"""

from __future__ import annotations

import json
from pathlib import Path

ABI_ARCHES = {"armeabi-v7a": "arm", "arm64-v8a": "arm64", "x86": "x86", "x86_64": "x86_64"}
GCC_TOOLCHAINS = {"armeabi-v7a": "arm-linux-androideabi-4.9", "arm64-v8a": "aarch64-linux-android-4.9",
                  "x86": "x86-4.9", "x86_64": "x86_64-4.9"}
ALL_ABIS = tuple(ABI_ARCHES)


def make_ndk(
    root: Path,
    revision: str = "18.1.5063045",
    api_levels: tuple[int, ...] = (16, 18, 21, 28),
    abis: tuple[str, ...] = ALL_ABIS,
    hosts: tuple[str, ...] = ("linux-x86_64",),
) -> Path:
    """An NDK of ``revision``'s era at ``root`` with ``api_levels`` (meta/ NDKs: their min to
    max), ``abis`` and clang for ``hosts``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "source.properties").write_text(f"Pkg.Desc = Android NDK\nPkg.Revision = {revision}\n")
    major = int(revision.split(".", maxsplit=1)[0])
    if major >= 18:
        (root / "meta").mkdir(exist_ok=True)
        platforms = {"min": min(api_levels), "max": max(api_levels), "aliases": {}}
        (root / "meta" / "platforms.json").write_text(json.dumps(platforms))
        (root / "meta" / "abis.json").write_text(json.dumps({abi: {"bitness": 64 if "64" in abi else 32}
                                                             for abi in abis}))
    if major <= 22:
        for level in api_levels:
            for abi in abis:
                if level >= 21 or "64" not in abi:  # 64-bit platforms start at API 21
                    (root / "platforms" / f"android-{level}" / f"arch-{ABI_ARCHES[abi]}").mkdir(parents=True,
                                                                                              exist_ok=True)
    if major <= 17:
        for abi in abis:
            for host in hosts:
                (root / "toolchains" / GCC_TOOLCHAINS[abi] / "prebuilt" / host).mkdir(parents=True, exist_ok=True)
    for host in hosts:
        (root / "toolchains" / "llvm" / "prebuilt" / host / "bin").mkdir(parents=True, exist_ok=True)
    return root


def make_sdk(root: Path, platforms: tuple[int, ...] = (23, 28), build_tools: tuple[str, ...] = ("26.0.1", "28.0.3")) -> Path:
    for level in platforms:
        (root / "platforms" / f"android-{level}").mkdir(parents=True, exist_ok=True)
    for version in build_tools:
        (root / "build-tools" / version).mkdir(parents=True, exist_ok=True)
    (root / "build-tools").mkdir(parents=True, exist_ok=True)
    (root / "platforms").mkdir(parents=True, exist_ok=True)
    return root
