"""The installed TensorFlow, found on disk without importing it.

Importing TensorFlow costs seconds and hundreds of megabytes, and the model steps only need two
things from it: the protobuf descriptors its wheel ships (:mod:`tfbuild.model.protos`) and its
kernel registry (:mod:`tfbuild.model.kernel_registry`). Both are cached, keyed by the installed
TensorFlow, so this module says which TensorFlow that is from the package's files alone:
``importlib.util.find_spec`` locates the package without running its ``__init__``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ToolchainError

_IDENTITY_FILES = ("__init__.py", "libtensorflow_framework.so.2", "libtensorflow_framework.2.dylib",
                   "python/_pywrap_tensorflow_internal.so")
"""Files whose size and modification time change whenever the wheel is reinstalled."""


@dataclass(frozen=True)
class InstalledTensorFlow:
    """Where the ``tensorflow`` package lives, the version its distribution declares, and a
    ``fingerprint`` of the installation (path, version, sizes and times of its main files)
    that names its caches: a reinstall or another virtual environment gets fresh ones."""

    package_dir: Path
    version: str
    fingerprint: str

    @property
    def site_packages(self) -> Path:
        return self.package_dir.parent

    def cache_name(self) -> str:
        """``2.21.0-1a2b3c4d5e6f``: the version first, so a cache directory reads well."""
        return f"{self.version}-{self.fingerprint[:12]}"


@functools.cache
def installed_tensorflow() -> InstalledTensorFlow:
    """The TensorFlow that ``import tensorflow`` would load in this Python."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        raise ToolchainError(
            "TensorFlow is not installed in this Python; tfbuild reads models with its protos and kernel registry",
            hint="pip install tensorflow",
        )
    package_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
    version = _distribution_version(package_dir)
    digest = hashlib.sha256(f"{package_dir}\0{version}".encode())
    for name in _IDENTITY_FILES:
        try:
            stat = (package_dir / name).stat()
        except OSError:
            continue
        digest.update(f"\0{name}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return InstalledTensorFlow(package_dir, version, digest.hexdigest())


def _distribution_version(package_dir: Path) -> str:
    """The version of the distribution that installed ``package_dir`` (``tensorflow``,
    ``tensorflow-cpu``, ``tf-nightly``...: whichever one's top-level package it is), read from
    its ``.dist-info`` directly: ``importlib.metadata`` would read every distribution's metadata."""
    for dist_info in sorted(package_dir.parent.glob("*.dist-info")):
        try:
            top_level = (dist_info / "top_level.txt").read_text(encoding="utf-8")
        except OSError:
            continue
        if "tensorflow" in top_level.split():  # the directory is NAME-VERSION.dist-info
            return dist_info.name.removesuffix(".dist-info").rpartition("-")[2]
    return "unknown"
