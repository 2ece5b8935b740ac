"""Model files as TensorFlow NodeDefs: recognise what a file holds, whatever it is called.

Release engineers hand tfbuild whatever their training team exported: frozen GraphDefs, text
GraphDefs, memmapped packages (:mod:`tfbuild.model.memmapped`), SavedModel directories, ``.meta``
files, TFLite flatbuffers with Select-TF ops, or a JSON ops list written by an earlier run. File
names lie (``model.txt`` that is a binary proto, ``graph.pb`` that is text), so the format is
decided from the content and the directory layout; the extension only breaks ties between
interpretations that are equally clean.

The result, :class:`LoadedModel`, exposes every NodeDef the model can execute: the graph's own
nodes and every node of every function in its library (``tf.function``, control-flow-v2
``While``/``If`` bodies and ``PartitionedCall`` targets live there), across every MetaGraph of a
SavedModel, plus the NodeDefs embedded in a TFLite model's ``Flex*`` custom ops.

Nothing here imports TensorFlow: the protobuf classes come from the descriptors its wheel ships
(:mod:`tfbuild.model.protos`), the TFLite schema from the wheel's generated flatbuffers module,
loaded by path. Both are loaded on first use, so importing this module stays cheap.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any

from tfbuild.errors import InputFileError, ToolchainError
from tfbuild.fileio import MODEL_SIZE_LIMIT, input_problem, nesting_bounded, read_input_bytes, sha256_file
from tfbuild.model.memmapped import find_package
from tfbuild.model.scope import ModelScope, output_graph_def, scoped_graph_defs

TFLITE_IDENTIFIER = b"TFL3"
"""FlatBuffers file identifier of TFLite models, stored at bytes 4..8."""

FLEX_PREFIX = "Flex"
"""Custom-code prefix of Select-TF ops in TFLite models (TF's header tool names it FLEX_PREFIX)."""

SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")

EVERYTHING = ModelScope()
"""The default scope: every node of every MetaGraph."""


class ModelFormat(StrEnum):
    """What a model input turned out to be. The values appear in ``analyze --json``."""

    GRAPHDEF = "graphdef"
    GRAPHDEF_TEXT = "graphdef-text"
    METAGRAPH = "metagraph"
    METAGRAPH_TEXT = "metagraph-text"
    SAVED_MODEL = "saved-model"  # a SavedModel directory
    SAVED_MODEL_PROTO = "saved-model-proto"  # a SavedModel proto outside its directory
    SAVED_MODEL_PROTO_TEXT = "saved-model-proto-text"
    TFLITE = "tflite"
    OPS_LIST = "ops-list"
    MEMMAPPED = "memmapped"  # a memmapped package (convert_graphdef_memmapped_format)


@dataclass(frozen=True)
class NodeSource:
    """One NodeDef and where in the model it was found (for problem reports)."""

    where: str  # "graph", "function while_body_5", "tflite subgraph 0 operator 3"
    name: str  # node name ("" for Flex NodeDefs, which carry none)
    node_def: Any  # tensorflow.core.framework.node_def_pb2.NodeDef


@dataclass(frozen=True)
class ListedOp:
    """One entry of a JSON ops list: an op and the kernel class already chosen for it."""

    op: str
    kernel_class: str | None


@dataclass(frozen=True)
class LoadedModel:
    """A parsed model input.

    ``graph_defs`` holds one GraphDef per graph (one per MetaGraph for SavedModels; empty for
    TFLite and ops lists). ``flex_nodes`` are the NodeDefs of a TFLite model's Select-TF ops,
    ``tflite_custom_ops`` the custom codes of its other (non-TensorFlow) custom ops, and
    ``listed_ops`` the entries of a JSON ops list. ``scope`` says which part of a SavedModel or
    MetaGraph the graphs are (``signature serving_default of MetaGraph [serve]``; see
    :mod:`tfbuild.model.scope`), ``""`` when they are all of it.
    """

    path: Path
    format: ModelFormat
    sha256: str
    graph_defs: tuple[Any, ...] = ()
    flex_nodes: tuple[NodeSource, ...] = ()
    tflite_custom_ops: tuple[str, ...] = ()
    listed_ops: tuple[ListedOp, ...] = ()
    scope: str = ""

    def node_sources(self) -> Iterator[NodeSource]:
        """Every NodeDef the model holds: graph nodes, then function-library nodes, then Flex."""
        for where, nodes in self.node_lists():
            for node in nodes:
                yield NodeSource(where, node.name, node)
        yield from self.flex_nodes

    def node_lists(self) -> Iterator[tuple[str, Any]]:
        """The repeated NodeDef fields :meth:`node_sources` walks, with their ``where``: each
        graph's nodes, then each of its functions' (for loops that must not build a
        :class:`NodeSource` per node); Flex nodes are not in them."""
        for graph_def in self.graph_defs:
            yield "graph", graph_def.node
            for function in graph_def.library.function:
                yield f"function {function.signature.name}", function.node_def


def load_model(path: Path | str, scope: ModelScope = EVERYTHING) -> LoadedModel:
    """Parse ``path`` (a file or a SavedModel directory) into a :class:`LoadedModel`; of a
    SavedModel or MetaGraph, only the part ``scope`` names (other formats have no parts).

    The cheap signatures come first: TFLite's identifier, then a JSON array. A binary GraphDef
    can show either by accident (bytes 4..8 are its first node's name, so a node named
    ``TFL3...``; its first two bytes read ``\n[`` when that node is 91 bytes long), so when
    that reading fails the file is still tried as a binary proto before the error is reported.

    Raises :class:`InputFileError` naming the file when it is missing, empty, corrupt or of no
    format tfbuild reads, and :class:`~tfbuild.errors.ConfigError` when it has no part ``scope``
    names.
    """
    path = Path(path)
    try:
        path.stat()
    except OSError as error:
        raise InputFileError(f"{path}: {input_problem(path, error)}", hint="check the model path") from None
    if path.is_dir():
        return _load_saved_model_dir(path, scope)
    data = _read_nonempty(path)
    package = find_package(path, data)
    if package is not None:
        graph_defs, described = _output_scoped(path, (package.graph_def,), scope)
        return LoadedModel(path, ModelFormat.MEMMAPPED, sha256_file(path), graph_defs=graph_defs, scope=described)
    text = _as_text(data)
    if data[4:8] == TFLITE_IDENTIFIER:
        return _with_proto_fallback(path, data, scope, lambda: _load_tflite(path, data))
    if text is not None and text.lstrip().startswith("["):
        return _with_proto_fallback(path, data, scope, lambda: _load_ops_list(path, text))
    return _load_proto_file(path, data, text, scope)


def load_frozen_graph_def(model: Path, *, package: str, product: str) -> Any:
    """The GraphDef of a frozen-graph file, for a command that writes another form of it
    (``memmap``, ``quantize-weights``): anything else is one line naming the file (exit 3).
    ``package`` says why a memmapped package will not do; ``product`` names what is made."""
    loaded = load_model(model)
    if loaded.format is ModelFormat.MEMMAPPED:
        raise InputFileError(f"{model}: is a memmapped package{package}",
                             hint="give the frozen GraphDef it came from")
    if loaded.format not in (ModelFormat.GRAPHDEF, ModelFormat.GRAPHDEF_TEXT):
        raise InputFileError(
            f"{model}: {product} is made from a frozen GraphDef; this is a {loaded.format.value}",
            hint="freeze the model to a GraphDef first",
        )
    (graph_def,) = loaded.graph_defs
    return graph_def


def _with_proto_fallback(
    path: Path, data: bytes, scope: ModelScope, load: Callable[[], LoadedModel]
) -> LoadedModel:
    try:
        return load()
    except InputFileError:
        binary = _parse_binary(path, data)
        if binary is None:
            raise
        kind, message = binary
        return _proto_model(path, _BINARY_FORMATS[kind], kind, message, scope)


def _read_nonempty(path: Path) -> bytes:
    data = read_input_bytes(path, limit=MODEL_SIZE_LIMIT)
    if not data.strip():
        raise InputFileError(f"{path}: the file is empty", hint="re-export the model")
    return data


# --- GraphDef / MetaGraphDef / SavedModel protos -------------------------------------------


def _proto_classes() -> dict[str, type[Any]]:
    from tfbuild.model.protos import message_class

    return {kind: message_class(f"tensorflow.{kind}") for kind in ("SavedModel", "MetaGraphDef", "GraphDef")}


_BINARY_FORMATS = {
    "SavedModel": ModelFormat.SAVED_MODEL_PROTO,
    "MetaGraphDef": ModelFormat.METAGRAPH,
    "GraphDef": ModelFormat.GRAPHDEF,
}
_TEXT_FORMATS = {
    "SavedModel": ModelFormat.SAVED_MODEL_PROTO_TEXT,
    "MetaGraphDef": ModelFormat.METAGRAPH_TEXT,
    "GraphDef": ModelFormat.GRAPHDEF_TEXT,
}


def _graph_defs_of(kind: str, message: Any) -> tuple[Any, ...]:
    if kind == "SavedModel":
        return tuple(meta_graph.graph_def for meta_graph in message.meta_graphs)
    if kind == "MetaGraphDef":
        return (message.graph_def,)
    return (message,)


def _has_content(graph_defs: tuple[Any, ...]) -> bool:
    return any(len(g.node) or len(g.library.function) for g in graph_defs)


def _preferred_kind(path: Path) -> str | None:
    """The message type the file name suggests, used only to break ties."""
    if path.name.startswith("saved_model."):
        return "SavedModel"
    if path.suffix == ".meta":
        return "MetaGraphDef"
    if path.suffix in (".pb", ".pbtxt", ".graphdef"):
        return "GraphDef"
    return None


def _load_proto_file(path: Path, data: bytes, text: str | None, scope: ModelScope) -> LoadedModel:
    text_error = None
    if text is not None:
        parsed, text_error = _parse_text(path, text)
        if parsed is not None:
            kind, message = parsed
            return _proto_model(path, _TEXT_FORMATS[kind], kind, message, scope)
    binary = _parse_binary(path, data)
    if binary is not None:
        kind, message = binary
        return _proto_model(path, _BINARY_FORMATS[kind], kind, message, scope)
    if text_error is not None:
        raise InputFileError(f"{path}: {text_error}", hint="fix the text proto or re-export the model")
    raise InputFileError(
        f"{path}: not a GraphDef, MetaGraphDef, SavedModel, memmapped package, TFLite model or JSON ops list "
        "(binary parse failed; truncated or corrupt?)",
        hint="re-export the model",
    )


def _proto_model(path: Path, fmt: ModelFormat, kind: str, message: Any, scope: ModelScope) -> LoadedModel:
    if not _has_content(_graph_defs_of(kind, message)):
        raise InputFileError(
            f"{path}: the model ({fmt.value}) holds no nodes", hint="re-export the model"
        )
    graph_defs, described = _scoped(path, kind, message, scope)
    return LoadedModel(path=path, format=fmt, sha256=sha256_file(path), graph_defs=graph_defs, scope=described)


def _scoped(path: Path, kind: str, message: Any, scope: ModelScope) -> tuple[tuple[Any, ...], str]:
    """The GraphDefs of the part of the message ``scope`` names, and its description."""
    if kind == "SavedModel":
        return scoped_graph_defs(path, message.meta_graphs, scope)
    if kind == "MetaGraphDef":
        return scoped_graph_defs(path, [message], scope)
    return _output_scoped(path, _graph_defs_of(kind, message), scope)


def _output_scoped(path: Path, graph_defs: tuple[Any, ...], scope: ModelScope) -> tuple[tuple[Any, ...], str]:
    """A GraphDef's (or a memmapped package's) graphs narrowed to ``scope.outputs``, if any."""
    if not scope.outputs:
        return graph_defs, ""
    return tuple(output_graph_def(path, graph, scope.outputs) for graph in graph_defs), scope.describe_outputs()


def _as_text(data: bytes) -> str | None:
    """``data`` decoded, if it can be a text proto (UTF-8 without NUL bytes)."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _parse_text(path: Path, text: str) -> tuple[tuple[str, Any] | None, str | None]:
    """Try the three text formats; the message types share no top-level field names, so at
    most one non-empty interpretation parses. On failure, report the error of the attempt that
    got furthest into the file: that is the format the author meant."""
    from google.protobuf import text_format

    best_error: tuple[tuple[int, int], str] | None = None
    preferred = _preferred_kind(path)
    classes = _proto_classes()
    # On a tie (every attempt failed on the same token) name the likeliest format.
    order = sorted(classes, key=lambda kind: (kind != preferred, kind != "GraphDef"))
    parsed = []
    for kind in order:
        message = classes[kind]()
        try:
            with nesting_bounded(path, hint="re-export the model"):
                text_format.Parse(text, message, descriptor_pool=message.DESCRIPTOR.file.pool)
        except text_format.ParseError as error:
            position = (error.GetLine() or 0, error.GetColumn() or 0)
            if best_error is None or position > best_error[0]:
                best_error = (position, f"not a valid text {kind}: {_first_line(str(error))}")
            continue
        parsed.append((kind, message))
    with_content = [p for p in parsed if _has_content(_graph_defs_of(*p))]
    if with_content:
        return _pick(with_content, preferred), None
    if parsed:  # parses, but holds nothing: report it as that (empty) format
        return _pick(parsed, preferred or "GraphDef"), None
    return None, best_error[1] if best_error else "not a text proto"


def _pick(candidates: list[tuple[str, Any]], preferred: str | None) -> tuple[str, Any]:
    for candidate in candidates:
        if candidate[0] == preferred:
            return candidate
    return candidates[0]


def _parse_binary(path: Path, data: bytes) -> tuple[str, Any] | None:
    """Parse ``data`` as each message type and keep the cleanest interpretation.

    Binary protobuf parsing is lenient: a GraphDef often parses as a SavedModel too, with most
    of its bytes ending up as unknown fields. So an interpretation is scored by the share of
    the input it understood (serialised size after dropping unknown fields); one that holds no
    nodes at all is discarded; among equally clean ones the file name decides.
    """
    from google.protobuf.message import DecodeError

    preferred = _preferred_kind(path)
    scored = []
    for kind, cls in _proto_classes().items():
        try:
            message = cls.FromString(data)
        except (DecodeError, RuntimeError, ValueError):
            continue
        message.DiscardUnknownFields()
        if not _has_content(_graph_defs_of(kind, message)):
            continue
        understood = message.ByteSize() / len(data)
        scored.append((understood, kind == preferred, kind, message))
    if not scored:
        return None
    understood, _, kind, message = max(scored, key=lambda s: (round(s[0], 6), s[1]))
    if understood < 0.5:
        return None
    return kind, message


def _load_saved_model_dir(path: Path, scope: ModelScope) -> LoadedModel:
    """A SavedModel directory: ``saved_model.pb`` (or ``.pbtxt``) holding every MetaGraph.

    The digest is that of the proto file read: the ops depend on it alone, and hashing a
    variables directory of hundreds of megabytes would add nothing.
    """
    proto = next((path / name for name in SAVED_MODEL_FILES if (path / name).is_file()), None)
    if proto is None:
        raise InputFileError(
            f"{path}: directory is not a SavedModel (no saved_model.pb or saved_model.pbtxt)",
            hint="pass the SavedModel's top directory or a model file",
        )
    data = _read_nonempty(proto)
    cls = _proto_classes()["SavedModel"]
    message = cls()
    try:
        with nesting_bounded(proto, hint="re-export the SavedModel"):
            if proto.suffix == ".pbtxt":
                from google.protobuf import text_format

                text_format.Parse(data.decode("utf-8"), message, descriptor_pool=message.DESCRIPTOR.file.pool)
            else:
                message.ParseFromString(data)
    except InputFileError:
        raise
    except Exception as error:  # DecodeError, ParseError, UnicodeDecodeError
        raise InputFileError(
            f"{proto}: not a valid SavedModel proto: {_first_line(str(error))}",
            hint="re-export the SavedModel",
        ) from error
    if not _has_content(_graph_defs_of("SavedModel", message)):
        raise InputFileError(f"{proto}: the SavedModel holds no nodes", hint="re-export the model")
    graph_defs, described = scoped_graph_defs(path, message.meta_graphs, scope)
    return LoadedModel(
        path=path, format=ModelFormat.SAVED_MODEL, sha256=sha256_file(proto), graph_defs=graph_defs, scope=described
    )


# --- JSON ops list ------------------------------------------------------------------------

_OPS_LIST_SHAPE = 'expected [["Op", "KernelClass"], ...]'


def _load_ops_list(path: Path, text: str) -> LoadedModel:
    """TF's ops-list format: ``[["Op", "KernelClass"], ...]``; the kernel may be "" or null."""
    try:
        with nesting_bounded(path, hint=_OPS_LIST_SHAPE):
            entries = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{path}: not a valid JSON ops list: {_first_line(str(error))}",
            hint=_OPS_LIST_SHAPE,
        ) from error
    if not isinstance(entries, list) or not entries:
        raise InputFileError(f"{path}: the JSON ops list is empty", hint=_OPS_LIST_SHAPE)
    listed = []
    for index, entry in enumerate(entries):
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not isinstance(entry[0], str)
            or not (entry[1] is None or isinstance(entry[1], str))
        ):
            raise InputFileError(
                f"{path}: entry {index} of the JSON ops list is {json.dumps(entry)[:80]}, "
                'not ["Op", "KernelClass"]',
                hint="kernel classes may be \"\" or null, op names must be strings",
            )
        listed.append(ListedOp(entry[0], entry[1] or None))
    return LoadedModel(
        path=path, format=ModelFormat.OPS_LIST, sha256=sha256_file(path), listed_ops=tuple(listed)
    )


# --- TFLite -------------------------------------------------------------------------------


def _load_tflite(path: Path, data: bytes) -> LoadedModel:
    """A TFLite flatbuffer. Builtin ops run in TFLite itself; Select-TF ops (custom code
    ``Flex<Op>``) carry a flexbuffer vector ``[op name, serialized NodeDef]``, and those NodeDefs
    are the TensorFlow kernels the app's binary must contain."""
    schema = _tflite_schema()
    flex: list[NodeSource] = []
    custom: set[str] = set()
    try:
        model = schema.Model.GetRootAs(data, 0)
        codes = [model.OperatorCodes(i).CustomCode() for i in range(model.OperatorCodesLength())]
        for s in range(model.SubgraphsLength()):
            subgraph = model.Subgraphs(s)
            for o in range(subgraph.OperatorsLength()):
                operator = subgraph.Operators(o)
                code = codes[operator.OpcodeIndex()]
                if code is None:
                    continue
                name = code.decode("utf-8", errors="replace")
                if not name.startswith(FLEX_PREFIX):
                    custom.add(name)
                    continue
                where = f"tflite subgraph {s} operator {o}"
                node_def = _flex_node_def(path, data, operator, name, where)
                flex.append(NodeSource(where, _output_name(subgraph, operator), node_def))
    except InputFileError:
        raise
    except Exception as error:  # a corrupt flatbuffer surfaces as struct/index errors
        raise InputFileError(
            f"{path}: corrupt TFLite flatbuffer ({type(error).__name__}: {_first_line(str(error))})",
            hint="re-convert the model",
        ) from error
    return LoadedModel(
        path=path,
        format=ModelFormat.TFLITE,
        sha256=sha256_file(path),
        flex_nodes=tuple(flex),
        tflite_custom_ops=tuple(sorted(custom)),
    )


@functools.cache
def _tflite_schema() -> ModuleType:
    """TensorFlow's generated TFLite schema (``tensorflow/lite/python/schema_py_generated.py``),
    loaded from its file under a private name: it needs only ``flatbuffers``, whereas importing
    it as ``tensorflow.lite...`` would run ``tensorflow/__init__``."""
    from tfbuild.model.installed import installed_tensorflow

    path = installed_tensorflow().package_dir / "lite" / "python" / "schema_py_generated.py"
    spec = importlib.util.spec_from_file_location("_tfbuild_tflite_schema", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise ToolchainError(f"{path}: TensorFlow's TFLite schema module is missing", hint="reinstall tensorflow")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flex_node_def(path: Path, data: bytes, operator: Any, code: str, where: str) -> Any:
    from flatbuffers import flexbuffers

    from tfbuild.model.protos import message_class

    if operator.CustomOptionsLength():
        options = operator.CustomOptionsAsNumpy().tobytes()
    else:  # models over 2 GB keep custom options after the flatbuffer
        offset, size = operator.LargeCustomOptionsOffset(), operator.LargeCustomOptionsSize()
        options = data[offset : offset + size]
    try:
        vector = flexbuffers.GetRoot(options).AsVector
        op_name = vector[0].AsString
        node_def = message_class("tensorflow.NodeDef").FromString(vector[1].AsStringBytes)
    except Exception as error:
        raise InputFileError(
            f"{path}: {where}: custom op {code} has no readable NodeDef in its options "
            f"({type(error).__name__})",
            hint="re-convert the model with SELECT_TF_OPS",
        ) from error
    if node_def.op != op_name or code != FLEX_PREFIX + op_name:
        raise InputFileError(
            f"{path}: {where}: custom op {code} carries a NodeDef for {node_def.op!r}",
            hint="re-convert the model",
        )
    return node_def


def _output_name(subgraph: Any, operator: Any) -> str:
    if not operator.OutputsLength():
        return ""
    index = int(operator.Outputs(0))
    if not 0 <= index < subgraph.TensorsLength():
        return ""
    name = subgraph.Tensors(index).Name()
    return name.decode("utf-8", errors="replace") if name else ""


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unknown error"
