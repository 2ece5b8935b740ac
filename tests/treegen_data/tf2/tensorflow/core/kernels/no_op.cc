/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
Since TF 1.15 NoOp is registered for DEVICE_DEFAULT only: a CPU build gets it
through the lookup's fallback to DEFAULT kernels.
==============================================================================*/

#include "tensorflow/core/kernels/no_op.h"

namespace tensorflow {

REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_DEFAULT), NoOp);

}  // namespace tensorflow
