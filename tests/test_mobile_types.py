"""Mobile type trimming (``__ANDROID_TYPES_SLIM__`` or ``_FULL__``), chosen from the kernels the
models need: the slim set only when every one of them is still registered with it. What the
scanner says a slim build registers is checked against g++'s own preprocessor on the tree."""

from __future__ import annotations

import re
import subprocess

import pytest

from tfbuild.cpp.scan import TreeReader
from tfbuild.errors import ConfigError
from tfbuild.tree.kernel_index import build_kernel_index
from tfbuild.tree.mobile_types import SLIM, MobileTypes, choose_mobile_types
from tfbuild.tree.needs import KernelNeed, squash

ADD_FLOAT = "BinaryOp<CPUDevice, functor::add<float>>"
ADD_INT32 = "BinaryOp<CPUDevice, functor::add<int32>>"
SUB_INT64 = "BinaryOp<CPUDevice, functor::sub<int64>>"
CWISE_FILES = ("cwise_op_add_1.cc", "cwise_op_add_2.cc", "cwise_op_sub.cc", "cwise_op_mul_1.cc", "cwise_op_mul_2.cc")


@pytest.fixture
def index(tf1_tree, tmp_path):
    return build_kernel_index(tf1_tree, cache_dir=tmp_path / "index-cache")


def choose(tree, index, *needs: KernelNeed, mode="auto") -> MobileTypes:
    return choose_mobile_types(tree, index, needs, mode=mode)


def test_float_and_the_int32_kernels_slim_keeps_take_the_slim_set(tf1_tree, index):
    chosen = choose(tf1_tree, index, KernelNeed("Add", (ADD_FLOAT, ADD_INT32)), KernelNeed("Const", ("ConstantOp",)))
    assert chosen.slim and chosen.flag == "-D__ANDROID_TYPES_SLIM__"
    assert "every kernel the models need (3 for 2 ops) is still registered with it" in chosen.why


def test_a_kernel_slim_drops_keeps_the_full_set_and_says_which(tf1_tree, index):
    chosen = choose(tf1_tree, index, KernelNeed("Add", (ADD_FLOAT,)), KernelNeed("Sub", (SUB_INT64,)))
    assert not chosen.slim and chosen.flag == "-D__ANDROID_TYPES_FULL__"
    assert re.search(r"Sub's kernel BinaryOp<CPUDevice, functor::sub<int64>> \(tensorflow/core/kernels/"
                     r"cwise_op_sub\.cc:\d+\) is not registered with __ANDROID_TYPES_SLIM__", chosen.why)
    assert chosen.description().startswith("__ANDROID_TYPES_FULL__: the slim set would not do: ")


def test_an_op_whose_kernel_computes_less_keeps_the_full_set(tf1_tree, index):
    """AddN registers the same under the slim set but adds only two inputs: no scan can see it."""
    chosen = choose(tf1_tree, index, KernelNeed("AddN", ("AddNOp<CPUDevice, float>",)))
    assert not chosen.slim and chosen.why.startswith("the slim set would not do: AddN: adds only two inputs")


def test_forcing_slim_is_refused_when_it_breaks_a_model_and_full_is_always_taken(tf1_tree, index):
    with pytest.raises(ConfigError, match=r"--mobile-types slim would break the models: Sub's kernel"):
        choose(tf1_tree, index, KernelNeed("Sub", (SUB_INT64,)), mode="slim")
    assert choose(tf1_tree, index, KernelNeed("Add", (ADD_FLOAT,)), mode="slim").slim
    full = choose(tf1_tree, index, KernelNeed("Add", (ADD_FLOAT,)), mode="full")
    assert not full.slim and "asked for (--mobile-types full)" in full.why


@pytest.mark.compiler
@pytest.mark.parametrize("name", CWISE_FILES)
def test_what_the_scanner_reads_as_slim_is_what_gcc_compiles(tf1_tree, name):
    """The oracle: g++'s preprocessor with -D__ANDROID_TYPES_SLIM__ on the tree's file; each
    registration leaves its class as a string after ``: nullptr,`` (the registrar's arguments)."""
    relative = f"tensorflow/core/kernels/{name}"
    scanned = {squash(r.kernel_class) for r in TreeReader(tf1_tree, defines=(SLIM,)).scan(relative).registrations
               if r.device == "CPU"}
    full = {squash(r.kernel_class) for r in TreeReader(tf1_tree).scan(relative).registrations if r.device == "CPU"}
    expanded = subprocess.run(["g++", "-E", "-P", "-std=c++11", f"-D{SLIM}", "-I.", relative], cwd=tf1_tree,
                              capture_output=True, text=True, check=True).stdout
    compiled = {squash(found) for found in re.findall(r":\s*nullptr\s*,\s*\"([^\"]+)\"", expanded)}
    assert scanned == compiled
    assert scanned < full or (name == "cwise_op_mul_1.cc" and scanned <= full)
