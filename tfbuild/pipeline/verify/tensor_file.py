"""The tensor file: how feeds and fetched tensors travel between tfbuild and its runners.

Both runners (Python in the wheel's TensorFlow; C++ linked against a built
``libtensorflow-core.a``, perhaps under qemu-user) read their inputs from and write their results
to this one format, so one reader compares them all. It is kept small enough for a C++ header
without dependencies (``templates/verify/tensor_file.h.j2``, rendered with the constants below)
to read and write it:

.. code-block:: text

    magic    8 bytes   "TFBTNS01" (the last two characters are the version)
    count    u32       number of tensors, then for each:
      name_len u32, name   UTF-8 bytes: the tensor's name in the graph, "node:0"
      dtype    u32         TensorFlow's DataType number (DT_FLOAT = 1, DT_INT32 = 3, ...)
      rank     u32, dims   rank x i64, each >= 0
      nbytes   u64, data   the elements, row-major, as Tensor::tensor_data() holds them

Every number is little-endian, as every target tfbuild runs is (x86_64, aarch64, armv7 Linux);
the C++ side refuses to run on a big-endian machine rather than misread. Only plain numeric and
bool dtypes travel (their bytes are the values), and TensorFlow's quantized ones (``quint8``,
``qint32``, ...: their bytes are the codes, numpy holds them as the one-field records TensorFlow's
Python gives); a string tensor has no such form.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tfbuild.errors import InputFileError
from tfbuild.fileio import atomic_write_bytes

Array = npt.NDArray[Any]

MAGIC = b"TFBTNS01"
MAX_NAME_BYTES = 1 << 16
MAX_RANK = 32

DTYPES: Mapping[int, np.dtype[Any]] = {
    1: np.dtype(np.float32),  # DT_FLOAT
    2: np.dtype(np.float64),  # DT_DOUBLE
    3: np.dtype(np.int32),  # DT_INT32
    4: np.dtype(np.uint8),  # DT_UINT8
    5: np.dtype(np.int16),  # DT_INT16
    6: np.dtype(np.int8),  # DT_INT8
    9: np.dtype(np.int64),  # DT_INT64
    10: np.dtype(np.bool_),  # DT_BOOL: one byte per element, 0 or 1, in both
    17: np.dtype(np.uint16),  # DT_UINT16
    19: np.dtype(np.float16),  # DT_HALF
    22: np.dtype(np.uint32),  # DT_UINT32
    23: np.dtype(np.uint64),  # DT_UINT64
    11: np.dtype([("qint8", np.int8)]),  # DT_QINT8
    12: np.dtype([("quint8", np.uint8)]),  # DT_QUINT8
    13: np.dtype([("qint32", np.int32)]),  # DT_QINT32
    15: np.dtype([("qint16", np.int16)]),  # DT_QINT16
    16: np.dtype([("quint16", np.uint16)]),  # DT_QUINT16
}
"""TensorFlow DataType numbers (``types.proto``) the format carries, and their numpy dtypes (for
the quantized ones, the records ``tf.quint8.as_numpy_dtype`` and its kind are)."""

_NUMBERS = {dtype: number for number, dtype in DTYPES.items()}
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


def dtype_number(dtype: npt.DTypeLike) -> int | None:
    """TensorFlow's DataType number for a numpy dtype, or None when the format cannot carry it."""
    return _NUMBERS.get(np.dtype(dtype).newbyteorder("="))


def is_quantized(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is one of TensorFlow's quantized types (its elements are codes that stand
    for values over a range their node outputs beside them)."""
    return dtype.names is not None


def range_tensors(name: str) -> tuple[str, str]:
    """Where a quantized tensor's range is: outputs 1 and 2 of its node, the minimum and the
    maximum, as TensorFlow's quantized ops (``QuantizeV2``, ``QuantizedConv2D``, ``Requantize``,
    ...) write them."""
    node = name.rsplit(":", 1)[0]
    return f"{node}:1", f"{node}:2"


def dtype_name(dtype: np.dtype[Any]) -> str:
    """The dtype as messages and records name it: ``float32``, ``quint8``."""
    return dtype.names[0] if dtype.names is not None else str(dtype)


def codes(array: Array) -> Array:
    """A quantized array's codes as plain integers (any other array as it is)."""
    return array[array.dtype.names[0]] if array.dtype.names is not None else array


def encode_tensors(tensors: Mapping[str, Array]) -> bytes:
    """The tensor file holding ``tensors`` (name -> array), in their order."""
    parts = [MAGIC, _U32.pack(len(tensors))]
    for name, array in tensors.items():
        number = dtype_number(array.dtype)
        if number is None:
            raise ValueError(f"{name}: dtype {array.dtype} cannot be written to a tensor file")
        data = np.ascontiguousarray(array, dtype=DTYPES[number].newbyteorder("<")).tobytes()
        encoded = name.encode("utf-8")
        parts += [_U32.pack(len(encoded)), encoded, _U32.pack(number), _U32.pack(array.ndim)]
        parts += [struct.pack(f"<{array.ndim}q", *array.shape), _U64.pack(len(data)), data]
    return b"".join(parts)


def write_tensor_file(path: Path, tensors: Mapping[str, Array]) -> Path:
    """Write ``tensors`` to ``path`` atomically."""
    return atomic_write_bytes(path, encode_tensors(tensors))


def read_tensor_file(path: Path) -> dict[str, Array]:
    """The tensors in ``path``, by name, in file order. A file that is not a complete tensor file
    is an :class:`InputFileError` naming it and what is wrong."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise InputFileError(f"{path}: cannot read tensor file: {error.strerror}") from None
    try:
        return decode_tensors(data)
    except ValueError as error:
        raise InputFileError(
            f"{path}: not a valid tensor file: {error}", hint="the runner that wrote it failed"
        ) from None


def decode_tensors(data: bytes) -> dict[str, Array]:
    """The tensors of a tensor file's bytes; :class:`ValueError` says what is malformed."""
    reader = _Reader(data)
    if reader.take(len(MAGIC)) != MAGIC:
        raise ValueError(f"does not start with {MAGIC.decode()}")
    tensors: dict[str, Array] = {}
    for _ in range(reader.u32()):
        name_len = reader.u32()
        if name_len > MAX_NAME_BYTES:
            raise ValueError(f"a tensor name of {name_len} bytes")
        name = reader.take(name_len).decode("utf-8", "replace")
        number, rank = reader.u32(), reader.u32()
        if number not in DTYPES:
            raise ValueError(f"{name}: unknown dtype number {number}")
        if rank > MAX_RANK:
            raise ValueError(f"{name}: rank {rank}")
        dims = struct.unpack(f"<{rank}q", reader.take(8 * rank))
        if any(dim < 0 for dim in dims):
            raise ValueError(f"{name}: negative dimension in {list(dims)}")
        nbytes = reader.u64()
        dtype = DTYPES[number]
        if nbytes != int(np.prod(dims, dtype=np.int64)) * dtype.itemsize:
            raise ValueError(f"{name}: {nbytes} bytes for shape {list(dims)} of {dtype}")
        raw = reader.take(nbytes)
        tensors[name] = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(dims)
    if reader.left:
        raise ValueError(f"{reader.left} bytes after the last tensor")
    return tensors


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    @property
    def left(self) -> int:
        return len(self._data) - self._at

    def take(self, count: int) -> bytes:
        if count > self.left:
            raise ValueError(f"truncated: {count} bytes wanted at offset {self._at}, {self.left} left")
        chunk = self._data[self._at : self._at + count]
        self._at += count
        return chunk

    def u32(self) -> int:
        value: int = _U32.unpack(self.take(4))[0]
        return value

    def u64(self) -> int:
        value: int = _U64.unpack(self.take(8))[0]
        return value
