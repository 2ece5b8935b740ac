// A registration whose argument list never closes (the rest of the file is fine).
#include "tensorflow/core/framework/op_kernel.h"
namespace tensorflow {
REGISTER_KERNEL_BUILDER(Name("Broken").Device(DEVICE_CPU), BrokenOp
}  // namespace tensorflow
