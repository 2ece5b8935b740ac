"""TensorFlow's protobuf messages (GraphDef, SavedModel, NodeDef...) without importing TensorFlow.

``from tensorflow.core.framework import graph_pb2`` runs ``tensorflow/__init__`` first: seconds
and hundreds of megabytes before the first byte of a model is read. The messages themselves need
none of that, only their descriptors, and the wheel ships those inside its generated ``*_pb2.py``
modules as serialized ``FileDescriptorProto`` literals (the wheel has no ``.proto`` files). So
they are read out of those files with :mod:`ast`, never executed, once per installed TensorFlow,
and kept as a ``FileDescriptorSet`` in tfbuild's cache directory; each run loads that set into a
private descriptor pool and makes the classes with ``message_factory``.

Messages of two descriptor pools do not mix (``CopyFrom`` refuses, ``==`` is always False), and
code that has TensorFlow loaded copies NodeDefs into TensorFlow's own GraphDefs. So when
TensorFlow's generated modules are already loaded, :func:`message_class` returns TensorFlow's
classes; the private pool serves every process that has not imported TensorFlow.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from pathlib import Path
from typing import Any

from tfbuild.cache import cache_dir, write_cache
from tfbuild.errors import ToolchainError
from tfbuild.model.installed import InstalledTensorFlow, installed_tensorflow

log = logging.getLogger(__name__)

ROOT_PROTO = "tensorflow/core/protobuf/saved_model.proto"
"""The file whose import closure holds the model messages tfbuild reads: SavedModel,
MetaGraphDef, GraphDef, FunctionDef, NodeDef, AttrValue, DataType."""
ROOT_PROTOS = (ROOT_PROTO, "tensorflow/core/util/memmapped_file_system.proto")
"""Every file whose messages tfbuild reads, the memmapped package's directory included."""
_SET_VERSION = 2
"""Part of the cached set's name: a set made for fewer :data:`ROOT_PROTOS` is not reused."""

_CACHE_SUBDIR = "tensorflow-protos"


def message_class(full_name: str) -> type[Any]:
    """The class of the message ``full_name`` (``tensorflow.GraphDef``): TensorFlow's own when
    its generated modules are loaded, else the private pool's (see the module doc)."""
    from google.protobuf import message_factory

    try:
        descriptor = _pool().FindMessageTypeByName(full_name)
    except KeyError:  # TensorFlow is loaded but has not imported that message's module
        descriptor = _private_pool().FindMessageTypeByName(full_name)
    if hasattr(message_factory, "GetMessageClass"):  # older protobuf runtimes only have the factory
        return message_factory.GetMessageClass(descriptor)  # type: ignore[no-any-return]
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(descriptor)  # type: ignore[no-any-return]


def data_type_name(enum: int) -> str | None:
    """The ``DataType`` enum name of ``enum`` (``1`` -> ``DT_FLOAT``), None when it names none."""
    values = _pool().FindEnumTypeByName("tensorflow.DataType").values_by_number
    return str(values[enum].name) if enum in values else None


def _pool() -> Any:
    from google.protobuf import descriptor_pool

    default = descriptor_pool.Default()
    try:
        default.FindFileByName(ROOT_PROTO)
    except KeyError:
        return _private_pool()
    return default


@functools.cache
def _private_pool() -> Any:
    from google.protobuf import descriptor_pb2, descriptor_pool

    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set(installed_tensorflow())).file:
        pool.Add(file)  # dependencies come first
    return pool


def descriptor_set(tensorflow: InstalledTensorFlow, cache_root: Path | None = None) -> bytes:
    """The serialized ``FileDescriptorSet`` of :data:`ROOT_PROTOS` and their imports, read from the
    wheel of ``tensorflow`` the first time and from the cache after that."""
    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError

    path = (cache_root or cache_dir()) / _CACHE_SUBDIR / f"{tensorflow.cache_name()}-v{_SET_VERSION}.binpb"
    try:
        cached = path.read_bytes()
        if descriptor_pb2.FileDescriptorSet.FromString(cached).file:
            return cached
    except (OSError, DecodeError):
        pass
    data = _extract_descriptor_set(tensorflow)
    write_cache(path, data)  # a cache that cannot be written costs speed only
    return data


def _extract_descriptor_set(tensorflow: InstalledTensorFlow) -> bytes:
    from google.protobuf import descriptor_pb2

    file_set = descriptor_pb2.FileDescriptorSet()
    added: set[str] = set()

    def add(name: str) -> None:
        if name in added:
            return
        added.add(name)
        file = descriptor_pb2.FileDescriptorProto.FromString(_serialized_file(tensorflow, name))
        for dependency in file.dependency:
            add(dependency)
        file_set.file.append(file)  # after its dependencies

    for root in ROOT_PROTOS:
        add(root)
    return bytes(file_set.SerializeToString())


def _serialized_file(tensorflow: InstalledTensorFlow, proto_name: str) -> bytes:
    """The ``FileDescriptorProto`` bytes that the generated module of ``proto_name`` holds."""
    import ast

    module = _generated_module(tensorflow, proto_name)
    try:
        tree = ast.parse(module.read_bytes(), filename=str(module))
    except (OSError, SyntaxError, ValueError) as error:
        raise ToolchainError(
            f"{module}: cannot read TensorFlow's generated proto module ({error})",
            hint="reinstall tensorflow",
        ) from error
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            literal = _descriptor_literal(node)
            if literal is not None:
                return literal
    raise ToolchainError(
        f"{module}: holds no serialized descriptor for {proto_name}",
        hint="reinstall tensorflow, or report the TensorFlow version to tfbuild",
    )


def _descriptor_literal(call: Any) -> bytes | None:
    """The bytes of ``AddSerializedFile(b'...')`` (protoc 3.20 and later) or of
    ``FileDescriptor(..., serialized_pb=b'...')`` (older generated code)."""
    import ast

    arguments: list[ast.expr] = []
    if isinstance(call.func, ast.Attribute) and call.func.attr == "AddSerializedFile":
        arguments = call.args[:1]
    arguments += [k.value for k in call.keywords if k.arg == "serialized_pb"]
    for argument in arguments:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, bytes):
            return argument.value
    return None


def _generated_module(tensorflow: InstalledTensorFlow, proto_name: str) -> Path:
    """``tensorflow/core/framework/graph.proto`` -> the wheel's ``graph_pb2.py``; the
    well-known ``google/protobuf/*.proto`` files come from the protobuf package itself."""
    stem = proto_name.removesuffix(".proto") + "_pb2.py"
    roots = [tensorflow.site_packages, tensorflow.package_dir]
    if proto_name.startswith("google/protobuf/"):
        spec = importlib.util.find_spec("google.protobuf")
        locations = list(spec.submodule_search_locations or ()) if spec else []
        roots = [Path(location).parent.parent for location in locations] + roots
    for root in roots:
        if (root / stem).is_file():
            return root / stem
    raise ToolchainError(
        f"{tensorflow.package_dir}: no generated module for {proto_name}",
        hint="reinstall tensorflow",
    )
