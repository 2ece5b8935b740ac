/* Stand-in written for tfbuild's test trees: NOT TensorFlow's test_op.cc.

An op that only the C API's tests use; the Android recipe compiles it into
libtensorflow_inference.so all the same.
==============================================================================*/

#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {

REGISTER_OP("TestCApi").Doc(R"doc(An op for the C API's tests.)doc");

}  // namespace tensorflow
