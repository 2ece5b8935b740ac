"""Bounds on recursion, memory and time: input nested deeper than a parser follows, a
constant or an input whose shape claims more than memory holds, a kernel file that would make
the scanner quadratic. Each is one line naming the file, its documented exit code, never exit 70.

Real CLI runs (:func:`tfbuild.cli.main` in-process), real trees (tests/treegen.py), real git.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfbuild.cli import main

DEEP = 5_000
"""Levels of nesting: far past Python's recursion limit for every parser tfbuild uses."""


def assert_one_line(capsys: pytest.CaptureFixture[str], code: int, expected: int, *names: str) -> str:
    err = capsys.readouterr().err
    assert code == expected, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for name in names:
        assert name in lines[0], lines[0]
    assert "internal error" not in lines[0]
    return lines[0]


# --- recursion ---------------------------------------------------------------------------------


def test_deeply_nested_text_graphdef_is_an_input_error(tmp_path: Path, capsys) -> None:
    model = tmp_path / "deep.pbtxt"
    model.write_text('node { name: "a" op: "Const" attr { key: "value" value { list { '
                     + 'func { attr { key: "x" value { ' * DEEP + "} } } " * DEEP + "} } } }\n")
    code = main(["analyze", str(model)])
    assert_one_line(capsys, code, 3, str(model), "nested too deeply")


def test_deeply_nested_json_ops_list_is_an_input_error(tmp_path: Path, capsys) -> None:
    ops = tmp_path / "ops.json"
    ops.write_text("[" * DEEP + "]" * DEEP)
    code = main(["analyze", str(ops)])
    assert_one_line(capsys, code, 3, str(ops), "nested too deeply")


def test_deeply_nested_config_is_a_config_error(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tfbuild.toml").write_text("[build]\nx = " + "[" * DEEP + "]" * DEEP + "\n")
    code = main(["config", "show"])
    assert_one_line(capsys, code, 2, "tfbuild.toml", "nested too deeply")


def test_deeply_nested_manifest_is_a_manifest_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "manifest.json").write_text('{"target": ' + "[" * DEEP + "]" * DEEP + "}")
    for command in (["report", "--out", str(tmp_path)],
                    ["linkflags", "--target", "linux-x86_64", "--artifacts", str(tmp_path)]):
        code = main(command)
        assert_one_line(capsys, code, 9, str(tmp_path / "manifest.json"), "nested too deeply")


def test_text_proto_reader_bounds_nesting() -> None:
    from tfbuild.tree.text_proto import MAX_DEPTH, TextProtoError, parse

    assert parse("a { " * MAX_DEPTH + "}" * MAX_DEPTH).message("a") is not None
    with pytest.raises(TextProtoError, match=f"nested more than {MAX_DEPTH} deep"):
        parse("a { " * (MAX_DEPTH + 1) + "}" * (MAX_DEPTH + 1))
    with pytest.raises(TextProtoError, match="nested more than"):
        parse("a: [" + "{ b " * DEEP + "}" * DEEP + "]")


def test_tree_ops_pbtxt_with_a_deeply_nested_attr_is_skipped_with_a_note(tf1_tree: Path, tmp_path: Path,
                                                                         capsys) -> None:
    """The golden ops.pbtxt is one of two sources of op definitions: one that cannot be read is
    named, and the tree's REGISTER_OP sources are used, as for any unreadable ops.pbtxt."""
    ops = tf1_tree / "tensorflow/core/ops/ops.pbtxt"
    deep = 'attr { name: "deep" type: "func" default_value { ' + "list { func { attr { key: \"x\" value { " * DEEP
    ops.write_text(ops.read_text().replace("op {", "op {\n  " + deep + "} } } } " * DEEP + "} }", 1))
    subprocess.run(["git", "-C", str(tf1_tree), "commit", "-qam", "deep attr"], check=True)
    model = tmp_path / "model.pbtxt"
    model.write_text('node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
                     'node { name: "b" op: "Add" input: "a" input: "a" attr { key: "T" value { type: DT_FLOAT } } }\n')
    code = main(["compat", str(model), "-o", str(tmp_path / "compat.pbtxt"), "--source", str(tf1_tree)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "ops.pbtxt: not read" in captured.out and "nested more than 100 deep" in captured.out, captured.out


# --- memory ------------------------------------------------------------------------------------

HUGE_CONST = """\
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor {
  dtype: DT_FLOAT tensor_shape { dim { size: 1000000 } dim { size: 1000000000 } } float_val: 1.0 } } } }
node { name: "b" op: "Mul" input: "a" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
"""


@pytest.mark.parametrize("command", [["memmap", "--min-bytes", "1"], ["quantize-weights"]])
def test_const_claiming_1e15_elements_is_refused_unallocated(tmp_path: Path, capsys, command: list[str]) -> None:
    model = tmp_path / "huge.pbtxt"
    model.write_text(HUGE_CONST)
    out = tmp_path / "out.pb"
    code = main([command[0], str(model), "-o", str(out), *command[1:]])
    assert_one_line(capsys, code, 3, str(model), "'w'", "1,000,000,000,000,000 elements", "2 GiB")
    assert not out.exists()


def test_const_filled_from_its_last_value_is_still_expanded(tmp_path: Path) -> None:
    """The bound leaves TensorFlow's fill rule as it was: the last value repeated."""
    import numpy as np

    from tfbuild.model.protos import message_class
    from tfbuild.model.tensor_values import const_bytes

    node = message_class("tensorflow.NodeDef")(name="w", op="Const")
    tensor = node.attr["value"].tensor
    tensor.dtype = 1
    tensor.tensor_shape.dim.add(size=5)
    tensor.float_val.extend([1.0, 2.0])
    raw = const_bytes(node)
    assert raw is not None
    assert np.frombuffer(raw, dtype="<f4").tolist() == [1.0, 2.0, 2.0, 2.0, 2.0]


def test_memmap_min_bytes_zero_is_a_usage_error(tmp_path: Path, capsys) -> None:
    model = tmp_path / "model.pbtxt"
    model.write_text(HUGE_CONST)
    code = main(["memmap", str(model), "-o", str(tmp_path / "out.mm"), "--min-bytes", "0"])
    assert_one_line(capsys, code, 2, "--min-bytes 0")


def test_verify_input_shape_too_large_is_refused_with_its_bound(tmp_path: Path, capsys) -> None:
    code = main(["verify", "--out-dir", str(tmp_path), "--input-shape", "x=100000,100000"])
    assert_one_line(capsys, code, 2, "x=100000,100000", "10,000,000,000 elements", "67,108,864")


def test_verify_placeholder_shape_too_large_is_refused() -> None:
    from tfbuild.errors import ConfigError
    from tfbuild.model.protos import message_class
    from tfbuild.pipeline.verify.probe import plan_probe

    graph = message_class("tensorflow.GraphDef")()
    node = graph.node.add(name="x", op="Placeholder")
    node.attr["dtype"].type = 1
    for size in (100000, 100000):
        node.attr["shape"].shape.dim.add(size=size)
    graph.node.add(name="y", op="Neg", input=["x"])
    with pytest.raises(ConfigError, match="placeholder 'x': 10,000,000,000 elements, more than the 67,108,864"):
        plan_probe(graph, where="model.pb")


def test_verify_negative_seed_is_a_usage_error(tmp_path: Path, capsys) -> None:
    code = main(["verify", "--out-dir", str(tmp_path), "--seed", "-1"])
    assert_one_line(capsys, code, 2, "--seed")


# --- time --------------------------------------------------------------------------------------


def _scanner_steps(tree: Path, original: str, copies: int) -> tuple[int, int]:
    """Tokens the kernel scanner lexes reading conv_ops.cc ending in ``copies`` unclosed
    ``REGISTER_KERNEL_BUILDER(`` (each resumption of the token generator, counted by a profile
    hook: the real scanner, nothing replaced), and how many registrations it reports unread."""
    from tfbuild.cpp import macros
    from tfbuild.cpp.scan import TreeReader

    relative = "tensorflow/core/kernels/conv_ops.cc"
    (tree / relative).write_text(original + "REGISTER_KERNEL_BUILDER(\n" * copies)
    reader = TreeReader(tree)
    code = macros._scan_tokens.__code__
    steps = 0

    def count(frame, event, arg):  # a profile hook
        nonlocal steps
        if event == "call" and frame.f_code is code:
            steps += 1

    sys.setprofile(count)
    try:
        scan = reader.scan(relative)
    finally:
        sys.setprofile(None)
    return steps, len(scan.unread)


def test_kernel_scanner_is_linear_in_unclosed_macro_calls(tf1_tree: Path) -> None:
    """20,000 unclosed calls used to take minutes (each lexed to the end of the file). The
    scanner's work for 20,000 is now about ten times its work for 2,000 (quadratic: a hundred)."""
    original = (tf1_tree / "tensorflow/core/kernels/conv_ops.cc").read_text()
    small, small_unread = _scanner_steps(tf1_tree, original, 2_000)
    large, large_unread = _scanner_steps(tf1_tree, original, 20_000)
    assert (small_unread, large_unread) == (2_000, 20_000)
    assert large < 20 * small, (small, large)


def test_kernels_command_names_unclosed_calls_and_goes_on(tf1_tree: Path, capsys) -> None:
    kernel = tf1_tree / "tensorflow/core/kernels/conv_ops.cc"
    kernel.write_text(kernel.read_text() + "REGISTER_KERNEL_BUILDER(\n" * 20_000)
    subprocess.run(["git", "-C", str(tf1_tree), "commit", "-qam", "unclosed"], check=True)
    code = main(["kernels", "Conv2D", "--source", str(tf1_tree), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)
    assert "unterminated macro call" in captured.err and "19995 more" in captured.err
