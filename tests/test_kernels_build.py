"""Edits of tensorflow/core/kernels/BUILD's mobile filegroups: in place, sorted, nothing else touched."""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import pytest

from tfbuild.errors import SourceTreeError
from tfbuild.tree.build_files.filegroups import read_filegroups
from tfbuild.tree.build_files.kernels_build import (
    PackageFiles,
    add_kernel_sources,
    entry_for_path,
    mobile_sources,
    path_for_entry,
)

INVALID_DIR = Path(__file__).parent / "invalid_build_files"

# Shaped like TF 1.12's kernels/BUILD: other rules with srcs lists before the mobile filegroups,
# group1 ending in a headers label and a select(), group2's last entry without a comma.
ANDROID_BUILD = '''\
# Description:
# Op kernel implementations for TensorFlow.
package(default_visibility = ["//visibility:public"])

load("//tensorflow:tensorflow.bzl", "tf_kernel_library")

ARRAY_DEPS = [
    ":bounds_check",
]

tf_kernel_library(
    name = "reduction_ops",
    srcs = [
        "reduction_ops_common.cc",
        "reduction_ops_min.cc",
    ],
    deps = ARRAY_DEPS,
)

# Changes to the Android srcs here should be replicated in
# tensorflow/contrib/makefile/tf_op_files.txt
# LINT.IfChange
filegroup(
    name = "android_core_ops",
    srcs = [
        "aggregate_ops.cc",
        "constant_op.cc",
        "constant_op.h",
        "identity_op.cc",
    ],
)

filegroup(
    name = "android_extended_ops",
    srcs = [
        ":android_extended_ops_group1",
        ":android_extended_ops_group2",
        ":android_quantized_ops",
    ],
    visibility = ["//visibility:public"],
)

filegroup(
    name = "android_extended_ops_headers",
    srcs = [
        "argmax_op.h",
        "relu_op.h",
    ],
)

filegroup(
    name = "android_extended_ops_group1",
    srcs = [
        "argmax_op.cc",
        "cwise_op_add_1.cc",
        # Winograd needs its transform header.
        "winograd_transform.h",
        ":android_extended_ops_headers",
    ] + select({
        ":xsmm": [
            "xsmm_conv2d.cc",
        ],
        "//conditions:default": [],
    }),
)

filegroup(
    name = "android_extended_ops_group2",
    srcs = [
        "relu_op.cc",
        "xent_op.cc"
    ],
)

filegroup(
    name = "android_quantized_ops",
    srcs = [
        "dequantize_op.cc",
    ],
    visibility = ["//visibility:public"],
)

filegroup(
    name = "android_all_ops",
    srcs = glob(
        [
            "*.cc",
            "*.h",
        ],
        exclude = [
            "*test.cc",
            "*_gpu*",
        ],
    ),
)
# LINT.ThenChange(//tensorflow/contrib/makefile/tf_op_files.txt)
'''

# Shaped like TF 2.4+: portable_* names, the headers label sorted first (buildifier order).
PORTABLE_BUILD = '''\
filegroup(
    name = "portable_core_ops",
    srcs = [
        "constant_op.cc",
    ],
)

filegroup(
    name = "portable_extended_ops",
    srcs = [
        ":portable_extended_ops_group1",
        ":portable_extended_ops_group2",
        ":portable_quantized_ops",
    ],
)

filegroup(
    name = "portable_extended_ops_headers",
    srcs = [
        "relu_op.h",
    ],
)

filegroup(
    name = "portable_extended_ops_group1",
    srcs = [
        ":portable_extended_ops_headers",
        "argmax_op.cc",
        "cwise_op_add_1.cc",
        "//tensorflow/core/kernels/image:crop_and_resize_op.cc",
    ],
)

filegroup(
    name = "portable_extended_ops_group2",
    srcs = [
        ":portable_extended_ops_headers",
        "relu_op.cc",
    ],
)

filegroup(
    name = "portable_quantized_ops",
    srcs = [
        "dequantize_op.cc",
    ],
)
'''


def diff_additions(old: str, new: str) -> list[str]:
    """The lines ``new`` adds to ``old``; fails if any old line changed (other than gaining a comma)."""
    removed, added = [], []
    for line in difflib.ndiff(old.splitlines(keepends=True), new.splitlines(keepends=True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    for line in removed:  # only "a missing trailing comma was added" is allowed
        assert line.rstrip("\r\n") + "," + line[len(line.rstrip("\r\n")) :] in added, line
        added.remove(line.rstrip("\r\n") + "," + line[len(line.rstrip("\r\n")) :])
    return added


def srcs_of(text: str, name: str) -> list[str]:
    return list(read_filegroups(text, "BUILD")[name].entries)


def test_adds_sources_and_headers_in_sorted_position_with_list_indentation():
    edit = add_kernel_sources(
        ANDROID_BUILD,
        sources=["reduction_ops_min.cc", "reduction_ops_common.cc"],
        headers=["reduction_ops.h", "reduction_ops_common.h"],
        family="android",
    )
    assert edit.added["android_extended_ops_headers"] == ("reduction_ops.h", "reduction_ops_common.h")
    assert srcs_of(edit.text, "android_extended_ops_headers") == [
        "argmax_op.h",
        "reduction_ops.h",
        "reduction_ops_common.h",
        "relu_op.h",
    ]
    added = diff_additions(ANDROID_BUILD, edit.text)
    assert sorted(added) == sorted(
        f'        "{name}",\n'
        for name in ("reduction_ops_min.cc", "reduction_ops_common.cc", "reduction_ops.h", "reduction_ops_common.h")
    )
    ast.parse(edit.text)


def test_everything_outside_the_edited_lists_is_byte_identical():
    edit = add_kernel_sources(ANDROID_BUILD, sources=["pad_op.cc"], headers=["pad_op.h"], family="android")
    # The tf_kernel_library's srcs list and every comment stay as they were.
    assert srcs_of(edit.text, "android_core_ops") == srcs_of(ANDROID_BUILD, "android_core_ops")
    assert edit.text.split("filegroup(", 1)[0] == ANDROID_BUILD.split("filegroup(", 1)[0]
    assert edit.text.split("# LINT.ThenChange", 1)[1] == ANDROID_BUILD.split("# LINT.ThenChange", 1)[1]
    assert len(diff_additions(ANDROID_BUILD, edit.text)) == 2


def test_group_choice_is_the_smaller_group_taking_sources_in_sorted_order():
    # group1 has 4 entries, group2 2: the first two new sources go to group2, then they alternate.
    edit = add_kernel_sources(ANDROID_BUILD, sources=["d.cc", "c.cc", "b.cc", "a.cc"], family="android")
    assert edit.added["android_extended_ops_group2"] == ("a.cc", "b.cc", "d.cc")
    assert edit.added["android_extended_ops_group1"] == ("c.cc",)
    again = add_kernel_sources(ANDROID_BUILD, sources=["a.cc", "b.cc", "c.cc", "d.cc"], family="android")
    assert again.text == edit.text


def test_missing_trailing_comma_is_added_when_appending_after_the_last_entry():
    edit = add_kernel_sources(ANDROID_BUILD, sources=["zeta_op.cc", "a.cc"], family="android")
    group2 = edit.text.split('name = "android_extended_ops_group2"', 1)[1].split(")", 1)[0]
    assert '        "xent_op.cc",\n        "zeta_op.cc",\n    ],' in group2
    assert srcs_of(edit.text, "android_extended_ops_group2") == ["a.cc", "relu_op.cc", "xent_op.cc", "zeta_op.cc"]


def test_entry_goes_above_the_comment_block_of_its_successor_and_before_labels():
    edit = add_kernel_sources(ANDROID_BUILD, sources=["a.cc", "b.cc", "u.cc"], family="android")
    group1 = edit.text.split('name = "android_extended_ops_group1"', 1)[1]
    assert '"cwise_op_add_1.cc",\n        "u.cc",\n        # Winograd needs its transform header.\n' in group1
    assert srcs_of(edit.text, "android_extended_ops_group1")[-1] == ":android_extended_ops_headers"


def test_files_already_in_any_mobile_filegroup_are_skipped():
    edit = add_kernel_sources(
        ANDROID_BUILD,
        sources=["constant_op.cc", "relu_op.cc", "dequantize_op.cc", "argmax_op.cc"],
        headers=["constant_op.h", "relu_op.h"],
        family="android",
    )
    assert not edit.changed and edit.text == ANDROID_BUILD
    assert set(edit.skipped) == {"constant_op.cc", "relu_op.cc", "dequantize_op.cc", "argmax_op.cc", "constant_op.h", "relu_op.h"}


def test_a_file_only_behind_select_is_added_unconditionally():
    edit = add_kernel_sources(ANDROID_BUILD, sources=["xsmm_conv2d.cc"], family="android")
    assert "xsmm_conv2d.cc" in edit.added["android_extended_ops_group2"]


def test_second_run_changes_nothing():
    first = add_kernel_sources(ANDROID_BUILD, sources=["pad_op.cc"], headers=["pad_op.h"], family="android")
    second = add_kernel_sources(first.text, sources=["pad_op.cc"], headers=["pad_op.h"], family="android")
    assert first.changed and not second.changed and second.text == first.text


def test_crlf_file_gets_crlf_lines():
    text = ANDROID_BUILD.replace("\n", "\r\n")
    edit = add_kernel_sources(text, sources=["pad_op.cc"], family="android")
    assert '        "pad_op.cc",\r\n' in edit.text
    assert edit.text.count("\n") == edit.text.count("\r\n")


def test_portable_family_keeps_buildifier_order_with_labels_first():
    edit = add_kernel_sources(
        PORTABLE_BUILD,
        sources=["reduction_ops_min.cc", "//tensorflow/core/kernels/image:resize_bilinear_op.cc"],
        headers=["reduction_ops.h"],
        family="portable",
    )
    assert srcs_of(edit.text, "portable_extended_ops_group2") == [
        ":portable_extended_ops_headers",
        "reduction_ops_min.cc",
        "relu_op.cc",
        "//tensorflow/core/kernels/image:resize_bilinear_op.cc",
    ]
    assert srcs_of(edit.text, "portable_extended_ops_headers") == ["reduction_ops.h", "relu_op.h"]


def test_mobile_sources_follow_labels_and_skip_select_branches():
    compiled = mobile_sources(ANDROID_BUILD, "android")
    assert "tensorflow/core/kernels/relu_op.cc" in compiled  # group2 via android_extended_ops
    assert "tensorflow/core/kernels/dequantize_op.cc" in compiled  # quantized via the same
    assert "tensorflow/core/kernels/relu_op.h" in compiled  # headers via group1's label
    assert "tensorflow/core/kernels/xsmm_conv2d.cc" not in compiled  # behind select()
    assert "tensorflow/core/kernels/reduction_ops_min.cc" not in compiled  # only in tf_kernel_library


def test_mobile_sources_resolve_globs_against_the_package_listing():
    listing = ["reduction_ops_min.cc", "relu_op_test.cc", "cwise_op_gpu_add.cu.cc", "pad_op.h"]
    compiled = mobile_sources(ANDROID_BUILD, "android", package_files=listing, roots=["android_all_ops"])
    assert compiled == {"tensorflow/core/kernels/reduction_ops_min.cc", "tensorflow/core/kernels/pad_op.h"}


def test_portable_sources_resolve_labels_of_subpackage_files():
    compiled = mobile_sources(PORTABLE_BUILD, "portable")
    assert "tensorflow/core/kernels/image/crop_and_resize_op.cc" in compiled


def test_entries_and_paths_round_trip():
    assert entry_for_path("tensorflow/core/kernels/relu_op.cc") == "relu_op.cc"
    assert entry_for_path("tensorflow/core/kernels/image/crop.cc") == "image/crop.cc"
    label = entry_for_path("tensorflow/core/kernels/image/crop.cc", "tensorflow/core/kernels/image")
    assert label == "//tensorflow/core/kernels/image:crop.cc"
    assert path_for_entry(label) == "tensorflow/core/kernels/image/crop.cc"
    assert path_for_entry(":android_extended_ops_headers") is None


def test_wrong_family_is_a_source_tree_error():
    with pytest.raises(SourceTreeError, match="portable_"):
        add_kernel_sources(ANDROID_BUILD, sources=["a.cc"], family="portable")


@pytest.mark.parametrize("fixture", sorted(INVALID_DIR.glob("*.BUILD")), ids=lambda p: p.stem)
def test_invalid_build_files_are_refused_naming_the_file(fixture):
    text = fixture.read_text()
    expected = re.search(r"^# expect: (.+)$", text, re.M).group(1)
    with pytest.raises(SourceTreeError) as caught:
        add_kernel_sources(text, sources=["pad_op.cc"], headers=["pad_op.h"], family="android", file_name=str(fixture))
    assert str(fixture) in caught.value.message
    assert expected in caught.value.message
    assert caught.value.hint


def test_a_file_listed_by_label_counts_as_present():
    text = ANDROID_BUILD.replace('"dequantize_op.cc",', '"//tensorflow/core/kernels:dequantize_op.cc",')
    edit = add_kernel_sources(text, sources=["dequantize_op.cc"], family="android")
    assert not edit.changed and edit.skipped == ("dequantize_op.cc",)


def test_labels_into_other_packages_are_followed_when_a_loader_is_given():
    text = PORTABLE_BUILD.replace(
        '"//tensorflow/core/kernels/image:crop_and_resize_op.cc",',
        '"//tensorflow/core/kernels/image:portable_image_ops",\n        "@eigen_archive//:eigen3",',
    )
    image_build = 'filegroup(\n    name = "portable_image_ops",\n    srcs = glob(["*_op.cc"]) + [":more"],\n)\n' \
        'filegroup(\n    name = "more",\n    srcs = ["colorspace_op.h"],\n)\n'
    packages = {"tensorflow/core/kernels/image": PackageFiles(image_build, ("resize_op.cc", "resize_op_test.cc", "x.h"))}
    without = mobile_sources(text, "portable")
    assert not any("/image/" in path for path in without)
    compiled = mobile_sources(text, "portable", load_package=packages.get)
    assert {p for p in compiled if "/image/" in p} == {
        "tensorflow/core/kernels/image/resize_op.cc",
        "tensorflow/core/kernels/image/colorspace_op.h",
    }
    assert not any("eigen" in path for path in compiled)
