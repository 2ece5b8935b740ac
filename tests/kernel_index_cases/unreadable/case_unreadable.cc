/* A registration the kernel index cannot read (tfbuild tests): its op name is a
constant defined nowhere the index looks (a generated header, say). It must be
reported by file and line, and never taken as "no kernel". */

#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {

class MysteryOp : public OpKernel {
 public:
  explicit MysteryOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

REGISTER_KERNEL_BUILDER(Name(kMysteryOpNameFromGeneratedHeader).Device(DEVICE_CPU), MysteryOp);

}  // namespace tensorflow
