"""``tfbuild example``: the README's main job on the bundled custom-op example."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from tfbuild.cli import app


@app.command("example")
def example_command(
    out: Path = typer.Option(
        Path("tfbuild-out/example"), "--out", help="Directory for the libraries and the header."
    ),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Parallel compiles (0: one per core)."),
) -> None:
    """Build the example op library plainly and selectively for its model; compare sizes."""
    # Imports TensorFlow when run, so only here.
    from tfbuild.pipeline.example import ExampleOptions, run_example

    console = Console(highlight=False, markup=False, soft_wrap=True)
    console.print("Building the example op library (plain, then selective); this takes a minute.")
    result = run_example(ExampleOptions(out_dir=out, jobs=jobs or None), console=console)

    table = Table(title=f"Ops used by {result.model.name}")
    for column in ("Op", "Kernel classes", "Dtypes", "Nodes"):
        table.add_column(column, justify="right" if column == "Nodes" else "left")
    for op in result.ops:
        table.add_row(
            op.op, "\n".join(op.kernel_classes), ", ".join(op.dtypes), str(op.node_count)
        )
    console.print(table)
    console.print(f"header             {result.paths.header}")
    console.print(f"plain library      {result.plain.path}  {result.plain.size_bytes:,} bytes")
    console.print(
        f"selective library  {result.selective.path}  {result.selective.size_bytes:,} bytes"
    )
    console.print(f"reduction          {result.reduction:.1%}")
