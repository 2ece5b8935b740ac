"""Memmapped packages: a frozen graph whose large constants an app maps from its file instead of
copying them into the heap, as TensorFlow's mobile guides prepare models.

TensorFlow's ``convert_graphdef_memmapped_format`` (contrib, TF 1.x; no TF 2.x wheel ships it)
writes the package, and an app reads it through ``MemmappedEnv``. The layout, as
``MemmappedFileSystemWriter`` writes it and ``MemmappedFileSystem`` reads it:

- the raw little-endian bytes of each converted tensor, each starting at a multiple of 64 bytes
  (``Allocator::kAllocatorAlignment``; zero bytes pad up to it), then the serialized GraphDef;
- a ``MemmappedFileSystemDirectory`` proto listing each region's name, offset and length;
- the directory's offset as 8 little-endian bytes, the last of the file.

Region names start with ``memmapped_package://``; the graph's is ``memmapped_package://.``, a
tensor's is the prefix and the node's name with every character outside ``[A-Za-z0-9_.]`` made
``_`` (and ``_`` appended while the name is taken). Each converted ``Const`` becomes an
``ImmutableConst`` node with only the attrs that op has: ``dtype``, ``shape`` and
``memory_region_name``. TensorFlow converts the graph's own ``Const`` nodes of plain-data types
whose tensor holds at least ``min_conversion_tensor_size`` bytes (10,000 by default); strings and
empty tensors stay ``Const``. :func:`write_package` converts the same nodes into the same layout
(the GraphDef's bytes may differ in the order of its attr maps, which protobuf leaves open).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfbuild.errors import InputFileError
from tfbuild.model.tensor_values import const_bytes

PACKAGE_PREFIX = "memmapped_package://"
DEFAULT_GRAPH = PACKAGE_PREFIX + "."
TENSOR_ALIGNMENT = 64
MIN_CONVERSION_BYTES = 10_000
"""``convert_graphdef_memmapped_format --min_conversion_tensor_size``'s default."""
IMMUTABLE_CONST = "ImmutableConst"
_TRAILER = 8


@dataclass(frozen=True)
class Region:
    """One named byte range of the package."""

    name: str
    offset: int
    length: int


@dataclass(frozen=True)
class MemmappedPackage:
    """A package's regions and its default graph (a ``tensorflow.GraphDef`` message)."""

    regions: tuple[Region, ...]
    graph_def: Any

    @property
    def tensor_regions(self) -> tuple[Region, ...]:
        return tuple(region for region in self.regions if region.name != DEFAULT_GRAPH)


def find_package(path: Path, data: bytes) -> MemmappedPackage | None:
    """The package in ``data`` (read from ``path``), or None when ``data`` does not end as a
    package ends (a directory naming the default graph, at the offset its last 8 bytes give):
    cheap enough to try before any other reading. A package whose graph is damaged is an
    :class:`InputFileError`."""
    try:
        regions = _directory(data)
    except ValueError:
        return None
    return _package(path, data, regions) if any(region.name == DEFAULT_GRAPH for region in regions) else None


def read_package(path: Path, data: bytes) -> MemmappedPackage:
    """The package in ``data`` (read from ``path``); a damaged one is an :class:`InputFileError`
    naming what is wrong."""
    try:
        regions = _directory(data)
    except ValueError as error:
        raise InputFileError(f"{path}: not a memmapped package: {error}") from error
    return _package(path, data, regions)


def _package(path: Path, data: bytes, regions: tuple[Region, ...]) -> MemmappedPackage:
    from google.protobuf.message import DecodeError

    from tfbuild.model.protos import message_class

    graph = next((region for region in regions if region.name == DEFAULT_GRAPH), None)
    if graph is None:
        raise InputFileError(f"{path}: the memmapped package has no default graph ({DEFAULT_GRAPH})")
    try:
        graph_def = message_class("tensorflow.GraphDef").FromString(data[graph.offset:graph.offset + graph.length])
    except (DecodeError, RuntimeError, ValueError) as error:
        raise InputFileError(f"{path}: the memmapped package's graph is not a GraphDef ({error})") from error
    return MemmappedPackage(regions, graph_def)


def _directory(data: bytes) -> tuple[Region, ...]:
    """The regions the package's directory lists, each checked to lie before the directory."""
    from google.protobuf.message import DecodeError

    from tfbuild.model.protos import message_class

    if len(data) <= _TRAILER:
        raise ValueError("too short")
    start = int.from_bytes(data[-_TRAILER:], "little")
    if start >= len(data) - _TRAILER:
        raise ValueError("its last 8 bytes point past the directory")
    try:
        directory = message_class("tensorflow.MemmappedFileSystemDirectory").FromString(data[start:-_TRAILER])
    except (DecodeError, RuntimeError, ValueError) as error:
        raise ValueError(f"the directory at byte {start} cannot be read ({error})") from error
    regions = tuple(Region(element.name, element.offset, element.length) for element in directory.element)
    for region in regions:
        if not region.name.startswith(PACKAGE_PREFIX) or region.offset + region.length > start:
            raise ValueError(f"region {region.name!r} at {region.offset} (+{region.length}) is not inside the package")
    return regions


@dataclass(frozen=True)
class WrittenPackage:
    data: bytes
    converted: int
    """How many ``Const`` nodes became ``ImmutableConst``."""
    tensor_bytes: int


def write_package(graph_def: Any, *, min_bytes: int = MIN_CONVERSION_BYTES, where: str = "the graph") -> WrittenPackage:
    """The package TensorFlow's converter writes for the frozen ``graph_def`` (left unchanged)."""
    from tfbuild.model.protos import message_class

    graph = message_class("tensorflow.GraphDef")()
    graph.CopyFrom(graph_def)
    directory = message_class("tensorflow.MemmappedFileSystemDirectory")()
    out = bytearray()
    used: set[str] = set()
    converted = tensor_bytes = 0
    for node in graph.node:
        if node.op != "Const":
            continue
        raw = const_bytes(node, where=where)
        if raw is None or not raw or len(raw) < min_bytes:
            continue
        name = PACKAGE_PREFIX + _unique(_sanitized(node.name), used)
        out.extend(b"\0" * (-len(out) % TENSOR_ALIGNMENT))
        directory.element.add(offset=len(out), name=name, length=len(raw))
        out.extend(raw)
        tensor = node.attr["value"].tensor
        dtype, shape = tensor.dtype, type(tensor.tensor_shape)()
        shape.CopyFrom(tensor.tensor_shape)
        node.op = IMMUTABLE_CONST
        node.attr.clear()
        node.attr["dtype"].type = dtype
        node.attr["shape"].shape.CopyFrom(shape)
        node.attr["memory_region_name"].s = name.encode()
        converted += 1
        tensor_bytes += len(raw)
    encoded = graph.SerializeToString()
    directory.element.add(offset=len(out), name=DEFAULT_GRAPH, length=len(encoded))
    out.extend(encoded)
    start = len(out)
    out.extend(directory.SerializeToString())
    out.extend(start.to_bytes(_TRAILER, "little"))
    return WrittenPackage(bytes(out), converted, tensor_bytes)


def unpacked_graph(package: MemmappedPackage, data: bytes) -> Any:
    """The package's graph with every ``ImmutableConst`` back as the ``Const`` it was: what
    TensorFlow's Python runtime, which has no ``MemmappedEnv``, can run as the reference."""
    from tfbuild.model.protos import message_class

    regions = {region.name: region for region in package.regions}
    graph = message_class("tensorflow.GraphDef")()
    graph.CopyFrom(package.graph_def)
    for node in graph.node:
        if node.op != IMMUTABLE_CONST:
            continue
        region = regions.get(node.attr["memory_region_name"].s.decode(errors="replace"))
        if region is None:
            continue
        dtype, shape = node.attr["dtype"].type, node.attr["shape"].shape
        node.op = "Const"
        node.attr.clear()
        node.attr["dtype"].type = dtype
        tensor = node.attr["value"].tensor
        tensor.dtype = dtype
        tensor.tensor_shape.CopyFrom(shape)
        tensor.tensor_content = data[region.offset:region.offset + region.length]
    return graph


def _sanitized(name: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "_.") else "_" for c in name)


def _unique(name: str, used: set[str]) -> str:
    while name in used:
        name += "_"
    used.add(name)
    return name
