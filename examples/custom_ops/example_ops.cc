// Op definitions of the example custom-op library. Under SELECTIVE_REGISTRATION each
// REGISTER_OP below is kept only if ops_to_register.h selects the op by name.

#include "tensorflow/core/framework/common_shape_fns.h"
#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("ExampleScale")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("scale: float = 1.0")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("y = x * scale; int32 results are truncated toward zero.");

REGISTER_OP("ExampleClip")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .Attr("lo: float")
    .Attr("hi: float")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("y = min(max(x, lo), hi).");

REGISTER_OP("ExampleSquare")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32}")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("y = x * x.");

REGISTER_OP("ExampleCount")
    .Input("x: float")
    .Output("count: int32")
    .Attr("threshold: float = 0.0")
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("Number of elements of x greater than threshold.");

}  // namespace tensorflow
