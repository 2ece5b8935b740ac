/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#ifndef TENSORFLOW_CORE_KERNELS_NO_OP_H_
#define TENSORFLOW_CORE_KERNELS_NO_OP_H_

#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {

class NoOp : public OpKernel {
 public:
  explicit NoOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_KERNELS_NO_OP_H_
