/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/cwise_ops_common.h"

namespace tensorflow {
REGISTER8(BinaryOp, CPU, "Greater", functor::greater, float, Eigen::half,
          double, int32, int64, uint8, int8, int16);
#if GOOGLE_CUDA
REGISTER7(BinaryOp, GPU, "Greater", functor::greater, float, Eigen::half,
          double, int64, uint8, int8, int16);
#endif  // GOOGLE_CUDA

}  // namespace tensorflow
