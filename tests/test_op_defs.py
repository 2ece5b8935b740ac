"""Op definitions read without TensorFlow: the golden ``ops.pbtxt`` and ``REGISTER_OP`` specs,
summarised as the runtime's ``SummarizeOpDef`` writes them. Broken golden files are kept as data
in tests/invalid_op_lists/: the index falls back to the sources and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
import treegen

from tfbuild.tree.op_def_index import build_op_defs
from tfbuild.tree.op_defs import AttrDef, format_float, op_defs_from_op_list, parse_attr_spec
from tfbuild.tree.text_proto import TextProtoError, parse

INVALID = sorted((Path(__file__).parent / "invalid_op_lists").iterdir())

CONV2D_TF14 = """
op {
  name: "Conv2D"
  input_arg { name: "input" type_attr: "T" }
  input_arg { name: "filter" type_attr: "T" }
  output_arg { name: "output" type_attr: "T" }
  attr { name: "T" type: "type" allowed_values { list { type: DT_HALF type: DT_FLOAT } } }
  attr { name: "strides" type: "list(int)" }
  attr { name: "use_cudnn_on_gpu" type: "bool" default_value { b: true } }
  attr { name: "padding" type: "string" allowed_values { list { s: "SAME" s: "VALID" } } }
  attr {
    name: "data_format"
    type: "string"
    default_value { s: "NHWC" }
    allowed_values { list { s: "NHWC" s: "NCHW" } }
  }
}
op {
  name: "ConcatV2"
  input_arg { name: "values" type_attr: "T" number_attr: "N" }
  input_arg { name: "axis" type_attr: "Tidx" }
  output_arg { name: "output" type_attr: "T" }
  attr { name: "N" type: "int" has_minimum: true minimum: 2 }
  attr { name: "T" type: "type" }
  attr { name: "Tidx" type: "type" default_value { type: DT_INT32 } allowed_values { list { type: DT_INT32 type: DT_INT64 } } }
}
op {
  name: "Assign"
  input_arg { name: "ref" type_attr: "T" is_ref: true }
  input_arg { name: "value" type_attr: "T" }
  output_arg { name: "output_ref" type_attr: "T" is_ref: true }
  attr { name: "T" type: "type" }
  attr { name: "use_locking" type: "bool" default_value { b: true } }
  allows_uninitialized_input: true
}
op {
  name: "FusedBatchNorm"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "y" type: DT_FLOAT }
  attr { name: "epsilon" type: "float" default_value { f: 0.0001 } }
  attr { name: "shape" type: "shape" default_value { shape { unknown_rank: true } } }
  is_stateful: true
}
"""


def test_summaries_read_as_the_runtimes():
    ops = {op.name: op for op in op_defs_from_op_list(CONV2D_TF14)}
    # The wording of TF 1.4's error for a Conv2D NodeDef with explicit_paddings.
    assert ops["Conv2D"].summary() == (
        "Op<name=Conv2D; signature=input:T, filter:T -> output:T; attr=T:type,allowed=[DT_HALF, DT_FLOAT]; "
        'attr=strides:list(int); attr=use_cudnn_on_gpu:bool,default=true; attr=padding:string,allowed=["SAME", "VALID"]; '
        'attr=data_format:string,default="NHWC",allowed=["NHWC", "NCHW"]>'
    )
    assert ops["ConcatV2"].summary() == (
        "Op<name=ConcatV2; signature=values:N*T, axis:Tidx -> output:T; attr=N:int,min=2; attr=T:type; "
        "attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>"
    )
    assert ops["Assign"].summary() == (
        "Op<name=Assign; signature=ref:Ref(T), value:T -> output_ref:Ref(T); attr=T:type; "
        "attr=use_locking:bool,default=true; allows_uninitialized_input=true>"
    )
    assert ops["FusedBatchNorm"].summary() == (
        "Op<name=FusedBatchNorm; signature=x:float -> y:float; attr=epsilon:float,default=0.0001; "
        "attr=shape:shape,default=<unknown>; is_stateful=true>"
    )


@pytest.mark.parametrize(("spec", "expected"), [
    ("T: {half, bfloat16, float}", AttrDef("T", "type", allowed=("DT_HALF", "DT_BFLOAT16", "DT_FLOAT"))),
    ("T: numbertype", AttrDef("T", "type")),
    ("T: {numbertype, variant}", AttrDef("T", "type")),
    ("padding: {'SAME', 'VALID'}", AttrDef("padding", "string", allowed=("SAME", "VALID"))),
    ("data_format: { 'NHWC', 'NCHW' } = 'NHWC' ", AttrDef("data_format", "string", '"NHWC"', None, ("NHWC", "NCHW"))),
    ("dilations: list(int) = [1, 1, 1, 1]", AttrDef("dilations", "list(int)", "[1, 1, 1, 1]")),
    ("explicit_paddings: list(int) = []", AttrDef("explicit_paddings", "list(int)", "[]")),
    ("N: int >= 2", AttrDef("N", "int", minimum=2)),
    ("Tidx: {int32, int64} = DT_INT32", AttrDef("Tidx", "type", "DT_INT32", None, ("DT_INT32", "DT_INT64"))),
    ("shape: shape = { unknown_rank: true }", AttrDef("shape", "shape", "<unknown>")),
    ("epsilon: float = 1e-4", AttrDef("epsilon", "float", "0.0001")),
    ("message: string = ''", AttrDef("message", "string", '""')),
    ("output_types: list(type) >= 1", AttrDef("output_types", "list(type)", minimum=1)),
    ("not a spec", None),
])
def test_attr_specs_are_read_as_opdefbuilder_reads_them(spec, expected):
    assert parse_attr_spec(spec) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("0.0001", "0.0001"), ("1e-05", "1e-05"), ("0.1", "0.1"), ("1", "1"), ("-inf", "-inf"), ("nan", "nan"),
    ("0.30000001", "0.3"), ("16777217", "16777216"),
])
def test_floats_print_as_tensorflow_prints_them(text, expected):
    assert format_float(text) == expected


def test_text_format_reads_lists_escapes_and_angle_brackets():
    message = parse('a: [1, 2] b < c: "x\\n\\"y\\101" "z" > d: \'q\' # comment\n e { }')
    assert message.scalars("a") == ["1", "2"]
    assert message.message("b").scalar("c") == 'x\n"yAz'
    assert message.scalar("d") == "q" and message.message("e") is not None
    with pytest.raises(TextProtoError, match="line 2"):
        parse("a: 1\n}")


@pytest.mark.parametrize("bad", INVALID, ids=[p.name for p in INVALID])
def test_an_unreadable_golden_file_falls_back_to_the_sources(tf1_tree, bad):
    (tf1_tree / treegen.OPS_PBTXT).write_bytes(bad.read_bytes())
    index = build_op_defs(tf1_tree)
    assert index.origin == "REGISTER_OP sources"
    assert index.skipped[0].startswith(f"{treegen.OPS_PBTXT}: not read (")
    assert [a.name for a in index.ops["MatMul"].attrs] == ["transpose_a", "transpose_b", "T"]


def test_a_tree_without_op_definitions_is_refused(tmp_path):
    from tfbuild.errors import SourceTreeError

    with pytest.raises(SourceTreeError, match="not a TensorFlow source tree"):
        build_op_defs(tmp_path)
