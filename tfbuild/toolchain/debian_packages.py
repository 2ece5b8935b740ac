"""Which Debian package brings a program a build runs on this machine.

A ``--local`` build runs the tree's scripts with what the host has, and a missing program is
found before the tree changes (:mod:`tfbuild.pipeline.prerequisites`). Its name alone does not
say what to install: ``libtoolize`` is in ``libtool``, ``autoreconf`` in ``autoconf``,
``aarch64-linux-gnu-g++`` in ``g++-aarch64-linux-gnu``. The packages are those the toolchain
images install (``docker/*.Dockerfile``), so installing them gives the host what a container
build has.
"""

from __future__ import annotations

from tfbuild.toolchain.architectures import cross_tool_package, runner_package

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
}
"""Program -> the Debian package that installs it; cross tools and qemu-user programs are the
architectures' (:mod:`tfbuild.toolchain.architectures`)."""


def debian_package(program: str) -> str | None:
    """The Debian package that brings ``program`` (a name as the build runs it), or None when
    tfbuild does not know it (or it comes from elsewhere: the NDK, Bazel's release)."""
    name = program.rsplit("/", 1)[-1]
    if name in PACKAGES:
        return PACKAGES[name]
    return runner_package(name) or cross_tool_package(name)


def install_hint(program: str) -> str:
    """What to do about ``program`` missing: install its package, or build in the container."""
    package = debian_package(program)
    if package is None:
        return "install it, or build in the toolchain container (drop --local)"
    return f"it is in Debian's {package} package: apt-get install {package}, or build in the toolchain container " \
           "(drop --local)"
