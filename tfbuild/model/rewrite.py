"""A GraphDef model, copied with some NodeDef attrs removed, and the registry that says which
attrs may go: the installed TensorFlow's op definitions, the ones the model was written against.

An attr whose value is its op's default can be removed without changing what the node does:
a runtime fills in the defaults its own definition declares, and a runtime that predates the
attr behaves as the default does. :class:`InstalledOpDefs` answers "is this value the default?";
:func:`without_attrs` makes the copy, :func:`serialize` writes it in the input's format and
:func:`reload` reads those bytes back, so the copy can be checked as it will be read.

Nothing here imports TensorFlow: the op definitions come from tfbuild's copy of its registry.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from tfbuild.errors import InputFileError
from tfbuild.fileio import sha256_bytes
from tfbuild.model.formats import LoadedModel, ModelFormat
from tfbuild.model.kernel_registry import load_kernel_registry
from tfbuild.model.protos import message_class

REWRITABLE_FORMATS = (ModelFormat.GRAPHDEF, ModelFormat.GRAPHDEF_TEXT)


class InstalledOpDefs:
    """The installed TensorFlow's op registry, read from tfbuild's copy of it
    (:mod:`tfbuild.model.kernel_registry`) rather than from TensorFlow."""

    def __init__(self) -> None:
        self._registry = load_kernel_registry()
        self.tensorflow_version: str = self._registry.tensorflow_version

    def default(self, op: str, attr: str) -> Any | None:
        """The default ``AttrValue`` of ``op``'s ``attr``; None when the op or attr is unknown
        to the installed TensorFlow or the attr has no default."""
        return self._registry.default(op, attr, message_class("tensorflow.AttrValue"))

    def is_default(self, op: str, attr: str, value: Any) -> bool:
        default = self._registry.default(op, attr, type(value))  # messages of one pool compare
        return default is not None and bool(default == value)


def attr_value_text(value: Any) -> str:
    """An ``AttrValue`` in one-line text format (for summaries that read it without TensorFlow)."""
    from google.protobuf import text_format

    text: str = text_format.MessageToString(value, as_one_line=True)
    return text


def without_attrs(model: LoadedModel, removals: Mapping[tuple[str, str], Collection[str]]) -> LoadedModel:
    """A copy of a GraphDef ``model`` without the attrs ``removals`` names, keyed by the
    ``(where, node name)`` of :meth:`LoadedModel.node_sources` (graph nodes, then function
    nodes). The model itself is not changed."""
    require_graph_def(model)
    copies = []
    for graph_def in model.graph_defs:
        copy = type(graph_def)()
        copy.CopyFrom(graph_def)
        copies.append(copy)
    copied = replace(model, graph_defs=tuple(copies))
    for source in copied.node_sources():
        for attr in removals.get((source.where, source.name), ()):
            if attr in source.node_def.attr:
                del source.node_def.attr[attr]
    return copied


def serialize(model: LoadedModel) -> bytes:
    """The GraphDef of ``model`` as bytes in its own format (binary or text)."""
    require_graph_def(model)
    (graph_def,) = model.graph_defs
    if model.format == ModelFormat.GRAPHDEF_TEXT:
        from google.protobuf import text_format

        text: str = text_format.MessageToString(graph_def)
        return text.encode("utf-8")
    data: bytes = graph_def.SerializeToString(deterministic=True)
    return data


def reload(data: bytes, like: LoadedModel, path: Path) -> LoadedModel:
    """``data`` (from :func:`serialize`) read back as a model of ``like``'s format at ``path``."""
    from google.protobuf import text_format

    graph_def = type(like.graph_defs[0])()
    if like.format == ModelFormat.GRAPHDEF_TEXT:
        text_format.Parse(data.decode("utf-8"), graph_def)
    else:
        graph_def.ParseFromString(data)
    return LoadedModel(path=Path(path), format=like.format, sha256=sha256_bytes(data), graph_defs=(graph_def,))


def require_graph_def(model: LoadedModel) -> None:
    """Refuse (exit 3) a model that is not one GraphDef, the only kind tfbuild rewrites."""
    if model.format not in REWRITABLE_FORMATS or len(model.graph_defs) != 1:
        raise InputFileError(
            f"{model.path}: a {model.format.value} model; tfbuild rewrites GraphDefs (.pb, .pbtxt) only",
            hint="freeze it to a GraphDef first (convert_variables_to_constants_v2), then run tfbuild compat on that",
        )
