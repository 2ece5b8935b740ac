// expect-error: expected .,. or .;. before
// An op definition whose REGISTER_OP statement lacks its closing semicolon.

#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("BrokenOp")
    .Input("x: float")
    .Output("y: float")

}  // namespace tensorflow
