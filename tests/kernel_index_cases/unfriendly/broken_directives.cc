// Directives out of balance and directives the index does not know.
#endif
#else
#elif defined(X)
#pragma once
#pragma GCC diagnostic ignored "-Wunused"
#line 12 "elsewhere.cc"
# 44 "generated.cc" 2
#include_next <stdio.h>
#include MACRO_HEADER
#include "../../../../../../outside_the_tree.h"
#include "tensorflow/core/kernels/does_not_exist.h"
#define
#define (
#define BAD_PARAMS(a, 1) a
#define UNCLOSED(a, b
#undef
#ifdef
#if (((
#if defined(
#if 1 +
#if __has_include(<x>) && X(1, 2) ? 1 : 0
REGISTER_KERNEL_BUILDER(Name("AfterBrokenDirectives").Device(DEVICE_CPU), StillReadOp);
#endif
#endif
#endif
#endif
