/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/cwise_ops_common.h"

namespace tensorflow {

// The shared helpers of the element-wise kernels live here in TensorFlow;
// nothing is registered in this file.
int CwiseOpsCommonAnchor() { return 0; }

}  // namespace tensorflow
