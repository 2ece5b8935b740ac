"""Which Debian package brings a program a build runs on this machine.

A ``--local`` build runs the tree's scripts with what the host has, and a missing program is
found before the tree changes (:mod:`tfbuild.pipeline.prerequisites`). Its name alone does not
say what to install: ``libtoolize`` is in ``libtool``, ``autoreconf`` in ``autoconf``,
``aarch64-linux-gnu-g++`` in ``g++-aarch64-linux-gnu``. The packages are those the toolchain
images install (``docker/*.Dockerfile``), so installing them gives the host what a container
build has.
"""

from __future__ import annotations

import re

PACKAGES = {
    "autoreconf": "autoconf",
    "autoconf": "autoconf",
    "autoheader": "autoconf",
    "libtoolize": "libtool",
    "libtool": "libtool",
    "automake": "automake",
    "aclocal": "automake",
    "make": "make",
    "g++": "g++",
    "gcc": "gcc",
    "cc": "gcc",
    "c++": "g++",
    "ar": "binutils",
    "ld": "binutils",
    "ranlib": "binutils",
    "nm": "binutils",
    "strip": "binutils",
    "ccache": "ccache",
    "distcc": "distcc",
    "git": "git",
    "curl": "curl",
    "unzip": "unzip",
    "zip": "zip",
    "patch": "patch",
    "python3": "python3",
    "python": "python-is-python3",
    "cmake": "cmake",
    "java": "openjdk-17-jdk-headless",
    "javac": "openjdk-17-jdk-headless",
    "jar": "openjdk-17-jdk-headless",
    "qemu-arm": "qemu-user",
    "qemu-aarch64": "qemu-user",
}
"""Program -> the Debian package that installs it."""

_CROSS = re.compile(r"^(?P<triple>(?:arm|aarch64|i686|x86_64)-linux-gnu\w*)-(?P<tool>g\+\+|gcc|ar|ld|ranlib|strip|nm)$")
"""Debian's cross tools: ``<triple>-g++`` in ``g++-<triple>``, binutils' in ``binutils-<triple>``."""


def debian_package(program: str) -> str | None:
    """The Debian package that brings ``program`` (a name as the build runs it), or None when
    tfbuild does not know it (or it comes from elsewhere: the NDK, Bazel's release)."""
    name = program.rsplit("/", 1)[-1]
    if name in PACKAGES:
        return PACKAGES[name]
    cross = _CROSS.match(name)
    if cross is None:
        return None
    tool = cross.group("tool")
    return f"{tool if tool in ('g++', 'gcc') else 'binutils'}-{cross.group('triple')}"


def install_hint(program: str) -> str:
    """What to do about ``program`` missing: install its package, or build in the container."""
    package = debian_package(program)
    if package is None:
        return "install it, or build in the toolchain container (drop --local)"
    return f"it is in Debian's {package} package: apt-get install {package}, or build in the toolchain container " \
           "(drop --local)"
