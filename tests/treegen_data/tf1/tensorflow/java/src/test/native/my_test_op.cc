/* Stand-in written for tfbuild's test trees: NOT TensorFlow's my_test_op.cc.

A custom op library: tensorflow/java/BUILD's tf_custom_op_library builds it,
and TensorFlowTest.loadLibrary loads it (TensorFlow.loadLibrary). Its op
registers in the registry of the library that loads it.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

REGISTER_OP("MyTest").Doc("Custom operation for testing.");
