"""``tfbuild verify``: run a finished build's models on what it made and compare with TensorFlow.

The command turns its options into a :class:`~tfbuild.pipeline.verify.run.VerifyOptions`, runs
:func:`~tfbuild.pipeline.verify.run.run_verify`, prints every tensor compared, and exits 8 through
:func:`~tfbuild.pipeline.verify.run.require_pass` when one differs (naming it, the element and
both values). Tensor names come from model files: printed as plain text, never as markup.
An Android build is verified with the NDK its manifest records (``android_ndk``); ``--ndk``
names another copy of it (the recorded path moved), which must be the same revision. Unlike
``tfbuild build``, verify reads no NDK from ``tfbuild.toml`` or the environment: those say which
NDK to build with next, the manifest which one built these archives.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from tfbuild.cli import app, params
from tfbuild.cli.output import plain, print_json, stdout_console
from tfbuild.cli.params import either

if TYPE_CHECKING:
    from rich.console import Console

    from tfbuild.pipeline.verify.run import VerifyOptions, VerifyResult  # imported when the command runs

RUNNERS = ("cpp", "jvm")
"""The sides verify can run the build on (``--runner``)."""
_RUNNER = ("cpp: the C++ runner linked against the build's archives; jvm: TensorFlowInferenceInterface on this "
           "machine's Java VM (a linux build with --java-api tensorflow).")


_REFERENCE = "Op library to run the reference with (default: the build's stock compile of the same sources)."
_NDK = "Android NDK to compile the runner with (default: the one the build's manifest records)."
_JSON = "Print the verification (as the manifest records it) as JSON; exit 8 all the same."
_TIMEOUT = "Seconds the reference's runs, and the target's, may each take."


@app.command("verify")
def verify_command(
    models: list[Path] | None = typer.Argument(
        None, metavar="MODEL", help="GraphDefs to run (default: the build's models).", show_default=False
    ),
    out_dir: Path | None = typer.Option(
        None, "--out-dir", metavar="DIR", help="The build's output directory (with its manifest.json). Required."
    ),
    out_alias: Path | None = typer.Option(None, "--out", hidden=True),
    model: list[Path] | None = typer.Option(None, "--model", "-m", hidden=True, help="Same as a MODEL argument."),
    tolerance: float | None = typer.Option(
        None, "--tolerance", min=0.0, metavar="T",
        help="Floating-point bound: |got - expected| <= T * the tensor's largest |expected| (default 1e-4); "
        "integers must be equal; 8-bit tensors may also be 2 steps of their grid off.",
    ),
    seed: int = typer.Option(0, "--seed", min=0, metavar="N", help="Seed of the generated inputs."),
    input_shape: list[str] = typer.Option(
        [], "--input-shape", metavar="NAME=D0,D1,...",
        help="NAME=D0,D1,... for a placeholder whose shape is open (repeat; default: its shape in the graph, open "
        "dimensions made 1 for a batch or 16).",
    ),
    output_tensor: list[str] = typer.Option(
        [], "--output-tensor", metavar="NAME",
        help="Tensor to compare as an output (repeat; default: the graph's likely outputs, as summarize_graph "
        "finds them).",
    ),
    output_alias: list[str] = typer.Option([], "--output", hidden=True),
    intermediates: int | None = typer.Option(
        None, "--intermediates", min=0, metavar="N",
        help="How many intermediate tensors to compare at most (default 12).",
    ),
    reference_op_library: Path | None = typer.Option(None, "--reference-op-library", metavar="PATH", help=_REFERENCE),
    local: bool | None = typer.Option(
        None, "--local/--no-local", help="Compile and run the C++ runner here (default: where the build ran)."
    ),
    timeout: float | None = typer.Option(None, "--timeout", min=0.0, metavar="SECONDS", help=_TIMEOUT),
    ndk: Path | None = typer.Option(None, "--ndk", metavar="DIR", help=_NDK),
    runner: str = typer.Option("cpp", "--runner", metavar="|".join(RUNNERS), help=_RUNNER),
    as_json: bool = typer.Option(False, "--json", help=_JSON),
) -> None:
    """Run the build's models on the built binary and on TensorFlow, and compare the tensors."""
    from tfbuild.pipeline.verify.run import require_pass, run_verify

    out = either(out_dir, out_alias, "--out-dir", "--out", required=True)
    assert out is not None
    options = _verify_options(
        out, params.models(models, model), tolerance=tolerance, seed=seed, input_shape=input_shape,
        outputs=(*output_tensor, *output_alias), intermediates=intermediates, local=local,
        reference_op_library=reference_op_library, timeout=timeout, ndk=ndk, runner=runner,
    )
    console = stdout_console(stderr=as_json)
    result = run_verify(options, console=console)
    if as_json:
        from tfbuild.pipeline.outputs.manifest import Manifest

        print_json(Manifest.read(out).verify)
    _print_verdicts(console, result)
    require_pass(result)
    console.print(plain(f"verify: passed, {sum(len(v.diffs) for v in result.models)} tensor(s) compared"))


def _verify_options(
    out: Path, models: tuple[Path, ...], *, tolerance: float | None, seed: int, input_shape: list[str],
    outputs: tuple[str, ...], intermediates: int | None, local: bool | None, reference_op_library: Path | None,
    timeout: float | None, ndk: Path | None, runner: str = "cpp",
) -> VerifyOptions:
    """The command's options as the library takes them, its defaults where a flag was not given."""
    from tfbuild.pipeline.verify.probe import parse_input_shape
    from tfbuild.pipeline.verify.run import VerifyOptions, check_finite

    defaults = VerifyOptions(out_dir=out)
    check_finite("--tolerance", tolerance)
    check_finite("--timeout", timeout)
    return VerifyOptions(
        out_dir=out,
        models=models,
        tolerance=defaults.tolerance if tolerance is None else tolerance,
        seed=seed,
        input_shapes=dict(parse_input_shape(text) for text in input_shape),
        outputs=outputs,
        max_intermediates=defaults.max_intermediates if intermediates is None else intermediates,
        local=local,
        reference_op_library=reference_op_library,
        timeout=timeout,
        ndk=ndk.absolute() if ndk is not None else None,
        runner=_runner(runner),
    )


def _runner(text: str) -> Literal["cpp", "jvm"]:
    from tfbuild.config import check_choice

    check_choice(text, RUNNERS, noun="runner")
    return "jvm" if text == "jvm" else "cpp"


def _print_verdicts(console: Console, result: VerifyResult) -> None:
    """Each model's tensors as a table (one row per tensor compared), where its outputs and its
    inputs' shapes came from (the user's flags, or what summarize_graph finds), then what ran on
    each side."""
    from tfbuild.pipeline.verify.tensor_file import DTYPES

    row = "{:<8} {:<12} {:<8} {:<14} {:>10} {:>9}  {}"
    for verdict in result.models:
        console.print(plain(f"{verdict.model}  ({result.target}, {result.flavour.value})", style="bold"))
        console.print(plain(row.format("result", "role", "dtype", "shape", "max |diff|", "max rel", "tensor")))
        for diff in verdict.diffs:
            shape = "x".join(str(dim) for dim in diff.shape) or "scalar"
            outcome = "ok" if diff.passed else (f"{diff.mismatched} off" if diff.problem is None else "differs")
            figures = (f"{diff.max_abs_diff:.3g}", f"{diff.max_rel_diff:.3g}")
            line = row.format(outcome, diff.role, diff.dtype, shape, *figures, diff.tensor)
            eight_bit = f"  (8-bit: within 2 steps of {diff.step:.3g})" if diff.bound == "8-bit" and diff.step else ""
            console.print(plain(line + (f"  ({diff.problem})" if diff.problem else "") + eight_bit))
        console.print(plain(f"outputs: {', '.join(verdict.outputs) or 'none'} ({verdict.outputs_from})"))
        if verdict.weights_fed:
            console.print(plain(
                f"weights: {len(verdict.weights_fed)} dequantized, each compared on its 8-bit grid; the reference "
                "was then fed the target's, and what they feed is compared as floating point"
            ))
        for feed in verdict.feeds:
            shape = "x".join(str(dim) for dim in feed.shape) or "scalar"
            console.print(plain(f"input {feed.tensor}: {DTYPES[feed.dtype]} {shape} ({feed.shape_from})"))
    console.print(plain(f"reference: {result.reference}"))
    console.print(plain(f"target:    {result.runner}"))
    console.print(plain(f"tolerance: {result.tolerance:g}; recorded in {result.manifest} (verify)"))
