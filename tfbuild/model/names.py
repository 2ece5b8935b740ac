"""What an op name and a kernel class string may be: the checks the header, the option
resolver and the analysis share, in a module light enough for ``tfbuild --help`` to import."""

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
