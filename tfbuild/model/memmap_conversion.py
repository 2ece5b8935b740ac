"""``tfbuild memmap``: a frozen GraphDef file converted to a memmapped package file.

The package format itself (reading, writing, unpacking) is :mod:`tfbuild.model.memmapped`, which
the model loader (:mod:`tfbuild.model.formats`) uses to recognise packages; this module sits above
both, because converting a file means loading it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ConfigError
from tfbuild.fileio import atomic_write_bytes, refuse_input_as_output
from tfbuild.model.formats import load_frozen_graph_def
from tfbuild.model.memmapped import MIN_CONVERSION_BYTES, write_package


@dataclass(frozen=True)
class ConvertedModel:
    output: Path
    nodes: int
    converted: int
    tensor_bytes: int
    size: int


def convert_to_package(model: Path, output: Path, *, min_bytes: int = MIN_CONVERSION_BYTES) -> ConvertedModel:
    """Write the memmapped package of the frozen GraphDef ``model`` (binary or text) to
    ``output``, atomically; anything but a GraphDef, or ``output`` naming ``model`` itself, is
    refused before anything is written."""
    if min_bytes < 1:
        raise ConfigError(f"--min-bytes {min_bytes}: must be at least 1", hint="TensorFlow's tool takes > 0")
    graph_def = load_frozen_graph_def(model, package=" already", product="a memmapped package")
    refuse_input_as_output(output, (model,), why="the package goes elsewhere", hint="give another -o path")
    written = write_package(graph_def, min_bytes=min_bytes, where=str(model))
    atomic_write_bytes(output, written.data)
    return ConvertedModel(output, len(graph_def.node), written.converted, written.tensor_bytes, len(written.data))
