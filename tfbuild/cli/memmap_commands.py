"""``tfbuild memmap``: a frozen graph as a memmapped package, as TensorFlow's mobile guides
prepare models (``convert_graphdef_memmapped_format``, which no TensorFlow 2.x wheel ships)."""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.output import plain, print_json, stdout_console
from tfbuild.model.memmapped import MIN_CONVERSION_BYTES


@app.command("memmap")
def memmap(
    model: Path = typer.Argument(..., metavar="MODEL", help="A frozen GraphDef (.pb binary or .pbtxt text)."),
    output: Path = typer.Option(..., "-o", "--output", metavar="PATH", help="Where to write the package."),
    min_bytes: int = typer.Option(
        MIN_CONVERSION_BYTES, "--min-bytes", metavar="N",
        help="Constants of at least N bytes become memory-mapped regions (TensorFlow's tool: 10000).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print what was written as JSON."),
) -> None:
    """Write MODEL as a memmapped package: its large constants become ImmutableConst nodes read
    from the package's memory regions, which an app loads through MemmappedEnv."""
    from tfbuild.model.memmap_conversion import convert_to_package

    result = convert_to_package(model, output, min_bytes=min_bytes)
    if as_json:
        print_json({"model": model, "output": result.output, "nodes": result.nodes, "converted": result.converted,
                    "tensor_bytes": result.tensor_bytes, "size": result.size})
        return
    stdout_console().print(plain(
        f"wrote {result.output}: {result.converted} of {result.nodes} nodes as ImmutableConst "
        f"({result.tensor_bytes:,} bytes of constants in memory regions), {result.size:,} bytes"
    ))
