/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/cwise_ops_common.h"

namespace tensorflow {
REGISTER2(UnaryOp, CPU, "Rint", functor::rint, float, double);
#if GOOGLE_CUDA
REGISTER2(UnaryOp, GPU, "Rint", functor::rint, float, double);
#endif
}  // namespace tensorflow
