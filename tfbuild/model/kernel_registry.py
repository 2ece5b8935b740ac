"""The installed TensorFlow's op and CPU kernel registries, kept as data between runs.

The analysis asks, for every node, which CPU kernel class TensorFlow would run it with, and
TensorFlow's header tool answers that by importing TensorFlow and asking its registry. The
registry only changes when TensorFlow (or a custom op library) does, so tfbuild reads it once,
in a child process that imports TensorFlow (:mod:`registry_dump`), and keeps it in its cache
directory keyed by the installed TensorFlow and the op libraries loaded. Every later run answers
from that copy by TensorFlow's own selection rules (:mod:`kernel_match`), without TensorFlow.

The first run with a TensorFlow (or with a new set of ``--op-library`` files) pays for one
TensorFlow import in the child; the rest pay for reading a JSON file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tfbuild
from tfbuild.cache import cache_dir, read_through
from tfbuild.errors import InputFileError, ToolchainError
from tfbuild.fileio import sha256_file
from tfbuild.model.installed import InstalledTensorFlow, installed_tensorflow
from tfbuild.model.kernel_match import KERNEL_LABEL_ATTR, Registration, find_registration, parse_device_type
from tfbuild.model.protos import message_class
from tfbuild.model.registry_dump import LIBRARY_ERROR_EXIT, decode_registration

SCHEMA = 2
_CACHE_SUBDIR = "kernel-registry"
_LOADED: dict[Path, KernelRegistry] = {}
"""Registries read in this process, by cache file: the analysis and compat steps of one
command share one."""


class KernelRegistry:
    """What TensorFlow's kernel lookup consults: ops with their attr defaults, the CPU and
    DEFAULT kernel registrations, and the DataType values with the names ``tf.as_dtype`` gives.

    A view over the cached document :mod:`registry_dump` writes (see there for its shape); an
    op's registrations and defaults are decoded when a node of that op is first looked up, so
    a model pays for the ops it uses, not for the thousands TensorFlow registers.
    ``op_libraries`` are the custom-op libraries whose ops and kernels it includes."""

    def __init__(self, document: Mapping[str, Any], op_libraries: Sequence[Path] = ()) -> None:
        self.document = document
        self.tensorflow_version = str(document["tensorflow_version"])
        self.op_libraries = tuple(op_libraries)
        self.valid_types = frozenset(int(t) for t in document["valid_types"])
        self._ops: Mapping[str, str] = document["ops"]  # op -> JSON text of {attr: base64 default}
        self._registrations: Mapping[str, str] = document["registrations"]  # op -> JSON text
        self._dtype_names = {int(enum): str(name) for enum, name in document["dtype_names"].items()}
        if not isinstance(self._ops, Mapping) or not isinstance(self._registrations, Mapping):
            raise TypeError("not a kernel registry document")
        self._table: dict[tuple[str, str, str], list[Registration]] = {}
        self._constrained: dict[str, tuple[str, ...]] = {}
        self._op_defaults: dict[str, dict[str, str]] = {}
        self._defaults: dict[tuple[str, str, Any], Any] = {}
        self._device_types: dict[str, str | None] = {}

    def has_op(self, op: str) -> bool:
        return op in self._ops

    def ops_with_kernels(self) -> list[str]:
        """The ops that have a CPU or DEFAULT kernel registration, sorted."""
        return sorted(self._registrations)

    def registrations(self, op: str) -> list[Registration]:
        """``op``'s CPU and DEFAULT registrations, in TensorFlow's registry order."""
        return [decode_registration(entry) for entry in json.loads(self._registrations.get(op, "[]"))]

    def default(self, op: str, attr: str, like: Any) -> Any | None:
        """The default value of ``op``'s ``attr`` as an AttrValue of class ``like``; None when the
        op or attr is unknown or has no default."""
        key = (op, attr, like)
        if key not in self._defaults:
            if op not in self._op_defaults:
                self._op_defaults[op] = json.loads(self._ops[op]) if op in self._ops else {}
            encoded = self._op_defaults[op].get(attr)
            self._defaults[key] = None if encoded is None else like.FromString(base64.b64decode(encoded))
        return self._defaults[key]

    def dtype_name(self, enum: int) -> str:
        """``tf.as_dtype(enum).name`` (``float32``), or ``type#<n>`` where TensorFlow has none."""
        return self._dtype_names.get(enum, f"type#{enum}")

    def constrained_attrs(self, op: str) -> tuple[str, ...]:
        """The attrs that can change which kernel a node of ``op`` gets: those its registrations
        constrain, and the ``_kernel`` label."""
        if op not in self._constrained:
            self._index(op)
        return self._constrained[op]

    def kernel_class(self, node_def: Any, device: str) -> str | None:
        """The class ``TryFindKernelClass`` returns for ``node_def`` placed on ``device``: None
        when the op is unknown, the device does not parse, or no kernel (or an error) results."""
        if node_def.op not in self._ops:
            return None
        if node_def.op not in self._constrained:
            self._index(node_def.op)
        if device not in self._device_types:
            self._device_types[device] = parse_device_type(device)
        device_type = self._device_types[device]
        if device_type is None:
            return None
        attrs = node_def.attr
        value_class = message_class("tensorflow.AttrValue")  # only read: any pool's class will do

        def lookup(name: str) -> Any | None:
            return attrs[name] if name in attrs else self.default(node_def.op, name, value_class)

        chosen = find_registration(self._table, node_def.op, device_type, lookup, self.valid_types)
        if chosen is None:
            return None
        if chosen.kernel_class is None:  # never seen in practice; see registry_dump
            return _live_kernel_class(node_def, device, self.op_libraries)
        return chosen.kernel_class

    def _index(self, op: str) -> None:
        names: dict[str, None] = {KERNEL_LABEL_ATTR: None}
        for registration in self.registrations(op):
            self._table.setdefault((op, registration.device_type, registration.label), []).append(registration)
            names.update((c.attr, None) for c in registration.constraints)
        self._constrained[op] = tuple(names)


def load_kernel_registry(op_libraries: Sequence[Path] = (), *, cache_root: Path | None = None) -> KernelRegistry:
    """The registry of the installed TensorFlow with ``op_libraries`` loaded, from the cache or,
    the first time, from a child process that imports TensorFlow.

    Raises :class:`InputFileError` naming a library that is missing or that TensorFlow cannot
    load."""
    libraries = tuple(Path(p) for p in op_libraries)
    missing = [p for p in libraries if not p.is_file()]
    if missing:
        raise InputFileError(f"{missing[0]}: op library not found", hint="build the custom-op .so first")
    path = _cache_path(installed_tensorflow(), libraries, cache_root)
    if path not in _LOADED:
        _LOADED[path], _ = read_through(
            path,
            schema=SCHEMA,
            decode=lambda document: KernelRegistry(document, libraries),
            encode=lambda registry: dict(registry.document),
            compute=lambda: KernelRegistry(_dump_in_child(libraries), libraries),
        )
    return _LOADED[path]


def _cache_path(tensorflow: InstalledTensorFlow, libraries: Iterable[Path], cache_root: Path | None) -> Path:
    """One file per installed TensorFlow and ordered list of op libraries (by content)."""
    digest = hashlib.sha256(tensorflow.fingerprint.encode())
    for library in libraries:
        digest.update(f"\0{library.resolve()}\0{sha256_file(library)}".encode())
    name = f"{tensorflow.cache_name()}-{digest.hexdigest()[:12]}.json"
    return (cache_root or cache_dir()) / _CACHE_SUBDIR / name


def _dump_in_child(libraries: Sequence[Path]) -> dict[str, Any]:
    """Run :mod:`registry_dump` in a child Python (TensorFlow stays out of this process)."""
    import subprocess
    import tempfile

    package_root = str(Path(tfbuild.__file__).resolve().parent.parent)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL=os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="tfbuild-registry-") as directory:
        out = Path(directory) / "registry.json"
        command = [sys.executable, "-m", "tfbuild.model.registry_dump", str(out),
                   *(str(p.resolve()) for p in libraries)]  # dlopen ignores the cwd
        child = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        try:
            document: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            document = {}
    if child.returncode == LIBRARY_ERROR_EXIT and "error" in document:
        error = document["error"]
        library = next((p for p in libraries if str(p.resolve()) == error["library"]), error["library"])
        raise InputFileError(
            f"{library}: cannot load op library: {error['reason']}",
            hint="build it against the installed TensorFlow",
        )
    if child.returncode != 0 or "registrations" not in document:
        last = (child.stderr.strip().splitlines() or [f"exit code {child.returncode}"])[-1]
        raise ToolchainError(
            f"cannot read the installed TensorFlow's kernel registry: {last}",
            hint="check that `python -c 'import tensorflow'` works in this environment",
        )
    return document


def _live_kernel_class(node_def: Any, device: str, op_libraries: Sequence[Path]) -> str | None:
    """Ask TensorFlow itself, in this process: for a registration the cached copy could not name."""
    from tfbuild.tensorflow_import import import_tensorflow

    tf = import_tensorflow()
    from tensorflow.python.util import _pywrap_kernel_registry

    for library in op_libraries:
        tf.load_op_library(str(library.resolve()))
    lookup = type(node_def)()
    lookup.CopyFrom(node_def)
    lookup.device = device
    found = _pywrap_kernel_registry.TryFindKernelClass(lookup.SerializeToString())
    return found.decode("utf-8") if found else None
