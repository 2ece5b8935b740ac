"""Fuzzing the model readers: real models (a binary GraphDef, its text form, a TFLite flatbuffer,
a SavedModel's ``saved_model.pb``), mutated by hypothesis (bytes flipped, cut, inserted,
repeated, the file truncated), fed to ``tfbuild analyze`` and ``tfbuild header -o``. Whatever
the bytes, the outcome is a result or one clean error line with one of tfbuild's own exit
codes: never a traceback, never an internal error, and never a partial output file.

Each format runs :data:`EXAMPLES` cases through both commands (4 x 2,500 = 10,000 cases), with
a fixed seed (``derandomize``) so CI and a developer's machine fuzz the same inputs; set
``TFBUILD_FUZZ_EXAMPLES`` to run more.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfbuild.cli import main

EXAMPLES = int(os.environ.get("TFBUILD_FUZZ_EXAMPLES", "2500"))
CLEAN_CODES = {0, 2, 3, 4, 5, 6}
"""Exit codes of a result or of a :class:`~tfbuild.errors.TfbuildError` the user can act on."""

pytestmark = pytest.mark.tensorflow


@st.composite
def mutations(draw: st.DrawFn, size: int) -> list[tuple[str, int, bytes]]:
    """A few edits, each at a position inside a file of ``size`` bytes."""
    edit = st.tuples(
        st.sampled_from(["flip", "delete", "insert", "repeat", "truncate"]),
        st.integers(min_value=0, max_value=max(0, size - 1)),
        st.binary(min_size=1, max_size=16),
    )
    return draw(st.lists(edit, min_size=1, max_size=4))


def mutate(data: bytes, edits: list[tuple[str, int, bytes]]) -> bytes:
    out = bytearray(data)
    for kind, wanted, payload in edits:
        position = min(wanted, max(0, len(out) - 1))
        if kind == "flip" and out:
            for offset, byte in enumerate(payload):
                if position + offset < len(out):
                    out[position + offset] ^= byte or 0xFF
        elif kind == "delete":
            del out[position:position + len(payload)]
        elif kind == "insert":
            out[position:position] = payload
        elif kind == "repeat":
            out[position:position] = out[position:position + len(payload) * 4]
        elif kind == "truncate":
            del out[position:]
    return bytes(out)


class Fuzzer:
    """Writes each mutated input where the command reads it, runs the two commands, checks."""

    def __init__(self, capsys: pytest.CaptureFixture[str], target: Path, model: Path, work: Path) -> None:
        self.capsys, self.target, self.model, self.work = capsys, target, model, work
        self.outcomes: dict[int, int] = {}

    def check(self, data: bytes) -> None:
        self.target.write_bytes(data)
        header = self.work / "h.h"
        for argv in (["analyze", str(self.model), "--json"], ["header", str(self.model), "-o", str(header)]):
            header.unlink(missing_ok=True)
            code = main(argv)
            err = self.capsys.readouterr().err
            self.outcomes[code] = self.outcomes.get(code, 0) + 1
            assert code in CLEAN_CODES, (argv[0], code, err[-2000:])
            assert "Traceback" not in err and "internal error" not in err, err[-2000:]
            if code != 0:
                errors = [line for line in err.splitlines() if line.startswith("error: ")]
                assert len(errors) == 1, err
                assert not header.exists()
            elif argv[0] == "header":
                assert header.read_text().startswith("//")
            leftovers = [p.name for p in self.work.iterdir() if p.name.startswith(".")]
            assert leftovers == [], leftovers


def fuzz(fuzzer: Fuzzer, seed: bytes) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(mutations(len(seed)))
    def run(edits: list[tuple[str, int, bytes]]) -> None:
        fuzzer.check(mutate(seed, edits))

    run()
    assert sum(fuzzer.outcomes.values()) >= 2 * EXAMPLES
    assert any(code != 0 for code in fuzzer.outcomes), fuzzer.outcomes  # the mutations did break things


@pytest.mark.parametrize("kind", ["graph_def", "pbtxt", "tflite", "saved_model"])
def test_mutated_models_give_results_or_one_clean_error(models, tmp_path, capsys, kind):
    work = tmp_path / "work"
    work.mkdir()
    if kind == "saved_model":
        model = Path(shutil.copytree(models.keras_saved_model, tmp_path / "saved_model"))
        target = model / "saved_model.pb"
    else:
        source = {"graph_def": models.cnn_pb, "pbtxt": models.cnn_pbtxt, "tflite": models.tflite}[kind]
        model = target = tmp_path / source.name
        shutil.copyfile(source, target)
    seed = target.read_bytes()
    fuzz(Fuzzer(capsys, target, model, work), seed)
