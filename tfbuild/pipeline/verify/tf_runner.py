"""Running a GraphDef in the installed TensorFlow: the reference, and the op-library runner.

``python -m tfbuild.pipeline.verify.tf_runner --graph G --inputs I --output O [--library L]...
[--fetch T]... [--probe T]...`` loads the op libraries, imports the graph, feeds the tensors of
I, fetches every ``--fetch`` tensor (each must exist) and every ``--probe`` tensor it can
(others are skipped with a line on stdout), and writes them to O in the tensor file format. A
quantized tensor comes with its range, the float scalars its node outputs beside it
(:func:`~tfbuild.pipeline.verify.tensor_file.range_tensors`), so the comparison can tell what
its codes stand for.

It is a process of its own, started by :mod:`tfbuild.pipeline.verify.run` through the build
executor, because TensorFlow's op registry is per process: the reference loads a stock build of
an app's op library and the target its selective build, and both register the same ops.
A failure is one line on stderr, ``tfbuild verify runner: <step>: <why>``, and exit code 1, the
same as the C++ runner's.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tfbuild.errors import TfbuildError
from tfbuild.pipeline.verify.tensor_file import (
    DTYPES,
    Array,
    dtype_number,
    is_quantized,
    range_tensors,
    read_tensor_file,
    write_tensor_file,
)

MODULE = "tfbuild.pipeline.verify.tf_runner"


def runner_argv(
    python: str,
    *,
    graph: Path,
    inputs: Path,
    output: Path,
    libraries: Sequence[Path] = (),
    fetch: Sequence[str] = (),
    probe: Sequence[str] = (),
) -> tuple[str, ...]:
    """The command line that runs this module with ``python``."""
    argv = [python, "-m", MODULE, "--graph", str(graph), "--inputs", str(inputs), "--output", str(output)]
    for library in libraries:
        argv += ["--library", str(library)]
    for tensor in fetch:
        argv += ["--fetch", tensor]
    for tensor in probe:
        argv += ["--probe", tensor]
    return tuple(argv)


class _Failed(Exception):
    def __init__(self, step: str, why: object) -> None:
        super().__init__(f"{step}: {str(why).strip().splitlines()[0] if str(why).strip() else type(why).__name__}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__)
    parser.add_argument("--graph", type=Path, required=True)
    parser.add_argument("--inputs", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--library", type=Path, action="append", default=[])
    parser.add_argument("--fetch", action="append", default=[])
    parser.add_argument("--probe", action="append", default=[])
    args = parser.parse_args(argv)
    try:
        tensors = _run(args.graph, args.inputs, args.library, args.fetch, args.probe)
        write_tensor_file(args.output, tensors)
    except _Failed as failed:
        print(f"tfbuild verify runner: {failed}", file=sys.stderr)
        return 1
    except TfbuildError as error:  # an unreadable inputs file
        print(f"tfbuild verify runner: {error.one_line()}", file=sys.stderr)
        return 1
    print(f"wrote {len(tensors)} tensor(s) to {args.output}")
    return 0


def _run(
    graph_path: Path, inputs_path: Path, libraries: Sequence[Path], fetch: Sequence[str], probe: Sequence[str]
) -> dict[str, Array]:
    import tensorflow as tf  # only in this process

    for library in libraries:
        try:
            tf.load_op_library(str(library))
        except Exception as error:
            raise _Failed(f"loading {library}", error) from error
    graph_def = tf.compat.v1.GraphDef()
    try:
        graph_def.ParseFromString(graph_path.read_bytes())
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(graph_def, name="")
    except Exception as error:
        raise _Failed(f"loading {graph_path}", error) from error
    names = list(fetch)
    for name in fetch:
        _tensor(graph, name, required=True)
    for name in probe:
        if name not in names and _tensor(graph, name, required=False) is not None:
            names.append(name)
    for name in list(names):
        names += [bound for bound in _range_of(graph, name) if bound not in names]
    feeds = read_tensor_file(inputs_path)
    try:
        config = tf.compat.v1.ConfigProto(device_count={"GPU": 0})  # the CPU kernels, as on the target
        with tf.compat.v1.Session(graph=graph, config=config) as session:
            results = session.run(names, feed_dict=feeds)
    except Exception as error:
        raise _Failed("running the graph", getattr(error, "message", error)) from error
    return {name: _as_written(graph, name, result) for name, result in zip(names, results, strict=True)}


def _quantized_dtype(graph: Any, name: str) -> np.dtype[Any] | None:
    """The tensor file's dtype for the graph's tensor ``name`` when it is a quantized one."""
    number = dtype_number(graph.get_tensor_by_name(name).dtype.as_numpy_dtype)
    return DTYPES[number] if number is not None and is_quantized(DTYPES[number]) else None


def _as_written(graph: Any, name: str, result: Any) -> Array:
    """A fetched value as the tensor file holds it: a quantized tensor, which a session returns
    as plain integers, as the records of its quantized dtype."""
    array = np.asarray(result)
    quantized = _quantized_dtype(graph, name)
    return array if quantized is None else np.ascontiguousarray(array).view(quantized)


def _range_of(graph: Any, name: str) -> tuple[str, ...]:
    """The range tensors of the quantized tensor ``name`` when its node outputs two float scalars
    beside it (TensorFlow's quantized ops do), else none."""
    if _quantized_dtype(graph, name) is None:
        return ()
    bounds = range_tensors(name)
    try:
        tensors = [graph.get_tensor_by_name(bound) for bound in bounds]
    except (KeyError, ValueError):
        return ()
    return bounds if all(tensor.dtype.name == "float32" for tensor in tensors) else ()


def _tensor(graph: Any, name: str, *, required: bool) -> Any:
    """The graph's tensor ``name``; a probe that does not exist or cannot be written is skipped."""
    try:
        tensor = graph.get_tensor_by_name(name)
    except (KeyError, ValueError) as error:
        if required:
            raise _Failed(f"fetching {name}", error) from error
        print(f"skipped {name}: not a tensor of the graph")
        return None
    numpy_dtype = getattr(tensor.dtype, "as_numpy_dtype", None)
    if numpy_dtype is None or dtype_number(numpy_dtype) is None:
        if required:
            raise _Failed(f"fetching {name}", f"its dtype {tensor.dtype.name} cannot be compared")
        print(f"skipped {name}: dtype {tensor.dtype.name}")
        return None
    return tensor


if __name__ == "__main__":
    sys.exit(main())
