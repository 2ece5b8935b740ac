/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/reduction_ops_common.h"

namespace tensorflow {

// The shared reduction helpers live here in TensorFlow; nothing is
// registered in this file.
int ReductionOpsCommonAnchor() { return 0; }

}  // namespace tensorflow
