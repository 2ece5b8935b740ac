"""``tfbuild quantize-weights``: a frozen graph with 8-bit weights, as TensorFlow's mobile guides
prepare models (``transform_graph --transforms=quantize_weights``, which no TensorFlow 2.x wheel
ships)."""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.output import plain, print_json, stdout_console
from tfbuild.model.quantize_weights import MIN_ELEMENTS


@app.command("quantize-weights")
def quantize_weights(
    model: Path = typer.Argument(..., metavar="MODEL", help="A frozen GraphDef (.pb binary or .pbtxt text)."),
    output: Path = typer.Option(..., "-o", "--output", metavar="PATH", help="Where to write the quantized GraphDef."),
    min_elements: int = typer.Option(
        MIN_ELEMENTS, "--min-elements", metavar="N", min=0,
        help="Float constants of at least N elements are quantized (TensorFlow's minimum_size: 1024).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write MODEL with its large float constants as 8-bit codes, each turned back into floats by
    a Dequantize node, as TensorFlow's quantize_weights transform does: the file is about a
    quarter of the size, and the build must register Dequantize."""
    from tfbuild.model.quantize_weights import quantize_model_file

    result = quantize_model_file(model, output, min_elements=min_elements)
    if as_json:
        print_json({
            "model": model, "output": result.output, "nodes": result.nodes, "float_constants": result.constants,
            "quantized": [{"name": weight.name, "elements": weight.elements, "min": weight.low, "max": weight.high}
                          for weight in result.weights],
            "size": result.size, "input_size": result.input_size,
        })
        return
    stdout_console().print(plain(
        f"wrote {result.output}: {len(result.weights)} of {result.constants} float constants as 8-bit codes "
        f"+ Dequantize ({result.float_bytes:,} bytes of weights as {result.float_bytes // 4:,}), "
        f"{result.size:,} bytes (the input: {result.input_size:,})"
    ))
