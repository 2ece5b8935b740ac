"""What the names in a graph may be and mean: op names and kernel class strings (the checks the
header, the option resolver and the analysis share) and the node a NodeDef input names, in a
module light enough for ``tfbuild --help`` to import."""

from __future__ import annotations

import re

_OP_NAME = re.compile(r"(?:_[A-Za-z0-9_>]*|[A-Z][A-Za-z0-9_]*(?:>[A-Z][A-Za-z0-9_]*)*)\Z")
"""TF's op-name grammar (``IsValidOpName`` in core/framework/op_def_util.cc): an upper-case
letter, then letters, digits and underscores, with ``>``-separated namespaces. TF accepts any
text after a leading ``_`` (internal ops); tfbuild narrows that to the same character set,
since every name ends up inside a C++ header."""


def is_valid_op_name(name: str) -> bool:
    """Whether ``name`` follows TF's op-name grammar (see ``_OP_NAME``)."""
    return bool(_OP_NAME.match(name))


def is_valid_kernel_class(kernel_class: str) -> bool:
    """A kernel class string can go into a C string literal in a header on its own line."""
    return bool(kernel_class) and not any(c in kernel_class for c in "\n\r\0")


def node_name(tensor: str) -> str:
    """The node a NodeDef input or a tensor names: ``x`` for ``x``, ``x:1`` and ``^x`` (a control
    edge)."""
    return tensor.removeprefix("^").split(":", 1)[0]
