/* Test-tree stand-in for TensorFlow's op definitions (tfbuild tests): the
REGISTER_OP calls of the ops the test kernels implement, without shape functions.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("NoOp");

}  // namespace tensorflow
