/* Test-tree stand-in for TensorFlow's op definitions (tfbuild tests): the
REGISTER_OP calls of the ops the test kernels implement, without shape functions.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

namespace tensorflow {

#define BINARY_MORE()                                                          \
  Input("x: T").Input("y: T").Output("z: T").Attr(                             \
      "T: {bfloat16, half, float, double, uint8, int8, uint16, int16, int32, " \
      "int64, complex64, complex128}")

REGISTER_OP("Add").BINARY_MORE().SetIsCommutative();
REGISTER_OP("AddV2").BINARY_MORE().SetIsCommutative();
REGISTER_OP("Sub").BINARY_MORE();
REGISTER_OP("Mul").BINARY_MORE().SetIsCommutative();
REGISTER_OP("Minimum").BINARY_MORE().SetIsCommutative();
REGISTER_OP("SquaredDifference").BINARY_MORE().SetIsCommutative();

#undef BINARY_MORE

REGISTER_OP("Greater")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .Attr("T: realnumbertype");
REGISTER_OP("Equal")
    .Input("x: T")
    .Input("y: T")
    .Output("z: bool")
    .SetIsCommutative()
    .Attr("T: type");

REGISTER_OP("Sqrt").Input("x: T").Output("y: T").Attr("T: {half, float, double}");
REGISTER_OP("Rint").Input("x: T").Output("y: T").Attr("T: {float, double}");
REGISTER_OP("IsFinite").Input("x: T").Output("y: bool").Attr("T: {half, float, double}");

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {half, bfloat16, float, double, int32, complex64, complex128}");

#define REDUCTION_OP(name)                 \
  REGISTER_OP(name)                        \
      .Input("input: T")                   \
      .Input("reduction_indices: Tidx")    \
      .Output("output: T")                 \
      .Attr("keep_dims: bool = false")     \
      .Attr("T: numbertype")               \
      .Attr("Tidx: {int32, int64} = DT_INT32")

REDUCTION_OP("Min");
REDUCTION_OP("Max");

}  // namespace tensorflow
