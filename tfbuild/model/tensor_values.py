"""The values a ``Const`` node's ``TensorProto`` holds, decoded as TensorFlow's
``Tensor::FromProto`` decodes them: the raw bytes of ``tensor_content`` when it has any,
otherwise the typed values (``float_val``, ``int_val``, ...), the last one repeated to fill the
shape and any beyond it ignored, or zeros when there are none.

Two transforms of a frozen graph read them: a memmapped package stores the raw bytes in its
regions (:mod:`tfbuild.model.memmapped`), and ``quantize_weights`` reads the float weights to
quantize them (:mod:`tfbuild.model.quantize_weights`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tfbuild.errors import InputFileError

POD_TYPES: Mapping[int, tuple[str, str | None]] = {
    # DataType enum: (numpy dtype of its raw bytes, the TensorProto field of its values)
    1: ("<f4", "float_val"), 2: ("<f8", "double_val"), 3: ("<i4", "int_val"), 4: ("u1", "int_val"),
    5: ("<i2", "int_val"), 6: ("i1", "int_val"), 8: ("<c8", "scomplex_val"), 9: ("<i8", "int64_val"),
    10: ("?", "bool_val"), 14: ("<u2", "half_val"), 17: ("<u2", "int_val"), 18: ("<c16", "dcomplex_val"),
    19: ("<u2", "half_val"), 22: ("<u4", "uint32_val"), 23: ("<u8", "uint64_val"),
}
"""TensorFlow's plain-data types (``TF_CALL_POD_TYPES``): the only ones a memmapped package can
hold. bfloat16 (14) and half (19) keep their 16-bit patterns in ``half_val``."""


EXPANDED_BYTES_LIMIT = 2 << 30
"""The most bytes a ``Const`` given by its typed values (``float_val: 1.0`` repeated to fill the
shape) is expanded to: 2 GiB, protobuf's limit for a whole model. A shape claiming more is refused
before anything is allocated (TensorFlow would try to allocate it when loading the graph)."""


def shape_elements(shape: Any) -> int | None:
    """How many elements a ``TensorShapeProto`` has (None: a dimension or the rank unknown,
    a shape ``Tensor::FromProto`` refuses)."""
    dims: list[int] = [int(dim.size) for dim in shape.dim]
    if any(size < 0 for size in dims) or shape.unknown_rank:
        return None
    return math.prod(dims)


def tensor_elements(tensor: Any) -> int | None:
    """How many elements a ``TensorProto``'s shape has (see :func:`shape_elements`)."""
    return shape_elements(tensor.tensor_shape)


def const_bytes(node: Any, *, where: str = "the graph") -> bytes | None:
    """The raw bytes of a ``Const`` node's tensor (None: not plain data, or a shape not fully
    known), as the module doc says. ``tensor_content`` is returned as it is: a caller that needs
    the shape's exact size checks its length. Typed values that would expand to more than
    :data:`EXPANDED_BYTES_LIMIT` are an :class:`InputFileError` naming ``where`` and the node."""
    import numpy as np

    tensor = node.attr["value"].tensor
    kind = POD_TYPES.get(tensor.dtype)
    count = tensor_elements(tensor)
    if kind is None or count is None:
        return None
    dtype, field = kind
    if tensor.tensor_content:
        return bytes(tensor.tensor_content)
    values = list(getattr(tensor, field)) if field else []
    if field in ("scomplex_val", "dcomplex_val"):
        values = [complex(values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)]
    if count == 0:
        return b""
    size = count * np.dtype(dtype).itemsize
    if size > EXPANDED_BYTES_LIMIT:
        raise InputFileError(
            f"{where}: Const node '{node.name}' claims {count:,} elements ({size:,} bytes), more than the "
            f"{EXPANDED_BYTES_LIMIT >> 30} GiB tfbuild expands a constant to",
            hint="no model's weight is that large: check the node's tensor_shape",
        )
    filled = np.zeros(count, dtype=dtype)
    if values:
        given = np.asarray(values[:count], dtype=dtype)
        filled[:len(given)] = given
        filled[len(given):] = given[-1]
    return bytes(filled.tobytes())
