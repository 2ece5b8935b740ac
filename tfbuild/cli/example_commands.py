"""``tfbuild example``: the README's main job on the bundled custom-op example.

The compiler's output (thousands of lines, most of them warnings from TensorFlow's own headers)
goes to one log per compile under the output directory; the screen gets one line per compile
naming its log (:func:`~tfbuild.pipeline.example.compile_summary`), and a failed compile its
first error line and log. On a terminal the executor's live progress line shows meanwhile.
"""

from __future__ import annotations

from pathlib import Path

import typer

from tfbuild.cli import app
from tfbuild.cli.output import print_table, stdout_console
from tfbuild.cli.params import either


@app.command("example")
def example_command(
    out_dir: Path | None = typer.Option(
        None, "--out-dir", metavar="DIR",
        help="Directory for the libraries, the header and the compiler logs (default: tfbuild-out/example).",
    ),
    out_alias: Path | None = typer.Option(None, "--out", hidden=True),
    jobs: int | None = typer.Option(
        None, "-j", "--jobs", min=1, metavar="N", help="Parallel compiles (default: one per core)."
    ),
) -> None:
    """Build the example op library plainly and selectively for its model; compare sizes."""
    from rich.table import Table

    # Imports TensorFlow when run, so only here.
    from tfbuild.pipeline.example import DEFAULT_OUT_DIR, ExampleOptions, run_example

    out = either(out_dir, out_alias, "--out-dir", "--out") or DEFAULT_OUT_DIR
    console = stdout_console(markup=False)
    console.print("Building the example op library (plain, then selective); this takes a minute.")
    result = run_example(
        ExampleOptions(out_dir=out, jobs=jobs),
        console=console if console.is_terminal else None,
        report=console.print,
    )

    table = Table(title=f"Ops used by {result.model.name}")
    for column in ("Op", "Kernel classes", "Dtypes", "Nodes"):
        table.add_column(column, justify="right" if column == "Nodes" else "left")
    for op in result.ops:
        table.add_row(
            op.op, "\n".join(op.kernel_classes), ", ".join(op.dtypes), str(op.node_count)
        )
    print_table(console, table)
    console.print(f"header             {result.paths.header}")
    console.print(f"plain library      {result.plain.path}  {result.plain.size_bytes:,} bytes")
    console.print(
        f"selective library  {result.selective.path}  {result.selective.size_bytes:,} bytes"
    )
    console.print(f"reduction          {result.reduction:.1%}")
