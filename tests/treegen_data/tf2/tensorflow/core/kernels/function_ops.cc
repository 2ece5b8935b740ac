/* Test-tree stand-in for TensorFlow's kernels of the same name (tfbuild tests):
the registrations have TF 2.x's shapes; the kernels compute nothing.
- op names held in constants (Name(kArgOp)), an alias of a class constant;
- DEVICE_DEFAULT kernels that only a macOS pluggable-device build compiles:
  the file defines PLUGGABLE_DEVICE_SUPPORTED_MACOS itself, under __APPLE__.
==============================================================================*/

#include "tensorflow/core/kernels/function_ops.h"

#if !defined(PLUGGABLE_DEVICE_SUPPORTED_MACOS) && defined(__APPLE__) && \
    !defined(ANDROID) && !defined(__ANDROID__) &&                       \
    (!defined(TARGET_OS_IOS) || !TARGET_OS_IOS)
#define PLUGGABLE_DEVICE_SUPPORTED_MACOS 1
#endif

namespace tensorflow {

REGISTER_KERNEL_BUILDER(Name(kArgOp).Device(DEVICE_CPU), ArgOp);
REGISTER_KERNEL_BUILDER(Name(kRetOp).Device(DEVICE_CPU), RetvalOp);

REGISTER_KERNEL_BUILDER(Name(kArgOp)
                            .Device(DEVICE_DEFAULT)
                            .HostMemory("output")
                            .TypeConstraint<int32>("T"),
                        ArgOp);
REGISTER_KERNEL_BUILDER(Name(kRetOp)
                            .Device(DEVICE_DEFAULT)
                            .HostMemory("input")
                            .TypeConstraint<int32>("T"),
                        RetvalOp);

#if defined(PLUGGABLE_DEVICE_SUPPORTED_MACOS)
REGISTER_KERNEL_BUILDER(
    Name(kArgOp).Device(DEVICE_DEFAULT).TypeConstraint<float>("T"), ArgOp);
#endif

}  // namespace tensorflow
