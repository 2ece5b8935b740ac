"""tf_op_files.txt edits: only the new lines change, in the file's own order and line endings."""

from __future__ import annotations

import difflib

import pytest

from tfbuild.errors import SourceTreeError
from tfbuild.tree.build_files.op_files_list import add_op_files, listed_paths

# Shaped like TF 1.12's list: mostly reverse-sorted kernels, later additions appended, then ops.
UNSORTED = """\
tensorflow/contrib/boosted_trees/ops/model_ops.cc
tensorflow/core/kernels/xent_op.cc
tensorflow/core/kernels/relu_op.cc
tensorflow/core/kernels/reduction_ops_sum.cc
tensorflow/core/kernels/reduction_ops_common.cc
tensorflow/core/kernels/cwise_op_add_1.cc
tensorflow/core/ops/math_ops.cc
tensorflow/core/ops/array_ops.cc
tensorflow/core/kernels/batch_util.cc
"""

SORTED = """\
tensorflow/core/kernels/constant_op.cc
tensorflow/core/kernels/cwise_op_add_1.cc
tensorflow/core/kernels/relu_op.cc
tensorflow/core/ops/math_ops.cc
"""


def added_lines(old: str, new: str) -> list[str]:
    """Lines the diff adds; fails if it removes or changes any."""
    diff = list(difflib.ndiff(old.splitlines(keepends=True), new.splitlines(keepends=True)))
    assert not [line for line in diff if line.startswith("- ")], "an existing line changed"
    return [line[2:] for line in diff if line.startswith("+ ")]


def test_sorted_list_gets_each_path_where_it_sorts():
    edit = add_op_files(
        SORTED,
        ["tensorflow/core/kernels/reduction_ops_min.cc", "tensorflow/core/kernels/argmax_op.cc"],
    )
    assert edit.placement == "sorted"
    assert edit.added == ("tensorflow/core/kernels/argmax_op.cc", "tensorflow/core/kernels/reduction_ops_min.cc")
    assert listed_paths(edit.text) == tuple(sorted(listed_paths(SORTED) + edit.added))
    assert added_lines(SORTED, edit.text) == [p + "\n" for p in edit.added]


def test_unsorted_list_gets_new_paths_appended_in_order():
    edit = add_op_files(
        UNSORTED,
        ["tensorflow/core/kernels/reduction_ops_min.cc", "tensorflow/core/kernels/argmax_op.cc"],
    )
    assert edit.placement == "appended"
    assert edit.text == UNSORTED + (
        "tensorflow/core/kernels/argmax_op.cc\ntensorflow/core/kernels/reduction_ops_min.cc\n"
    )


def test_already_listed_paths_change_nothing():
    edit = add_op_files(UNSORTED, ["tensorflow/core/kernels/relu_op.cc", "tensorflow/core/kernels/relu_op.cc"])
    assert not edit.changed and edit.text == UNSORTED


def test_second_run_is_a_no_op():
    first = add_op_files(UNSORTED, ["tensorflow/core/kernels/reduction_ops_min.cc"])
    second = add_op_files(first.text, ["tensorflow/core/kernels/reduction_ops_min.cc"])
    assert first.changed and not second.changed and second.text == first.text


@pytest.mark.parametrize("original", [SORTED, UNSORTED])
def test_missing_final_newline_stays_missing(original):
    text = original.rstrip("\n")
    edit = add_op_files(text, ["tensorflow/zz/zeta_op.cc"])  # sorts last in both lists
    assert not edit.text.endswith("\n")
    assert edit.text.endswith("\ntensorflow/zz/zeta_op.cc")
    assert listed_paths(edit.text)[:-1] == listed_paths(text)


def test_crlf_line_endings_are_kept():
    text = SORTED.replace("\n", "\r\n")
    edit = add_op_files(text, ["tensorflow/core/kernels/pad_op.cc"])
    assert "\r\ntensorflow/core/kernels/pad_op.cc\r\n" in edit.text
    assert edit.text.count("\n") == edit.text.count("\r\n") == 5


def test_trailing_blank_lines_stay_at_the_end():
    edit = add_op_files(UNSORTED + "\n\n", ["tensorflow/core/kernels/zeta_op.cc"])
    assert edit.text.endswith("tensorflow/core/kernels/batch_util.cc\ntensorflow/core/kernels/zeta_op.cc\n\n\n")


def test_empty_list_gets_a_newline_terminated_file():
    assert add_op_files("", ["b.cc", "a.cc"]).text == "a.cc\nb.cc\n"


@pytest.mark.parametrize(
    "bad", ["/abs/kernel.cc", "tensorflow/../etc/x.cc", "with space.cc", "quote'd.cc", "$(shell rm).cc", ""]
)
def test_paths_make_cannot_carry_are_refused_naming_the_file(bad):
    with pytest.raises(SourceTreeError, match="tf_op_files.txt"):
        add_op_files(SORTED, [bad])
