/* Test-tree stand-in for TensorFlow's header of the same name (tfbuild tests), in
its TF 2.x shape: MatMul is served by BatchMatMulOp (is_legacy_matmul), and the
registration macro lives in this header, as TF 2.x keeps it in matmul_op_impl.h.
The kernels compute nothing.
==============================================================================*/

#ifndef TENSORFLOW_CORE_KERNELS_MATMUL_OP_H_
#define TENSORFLOW_CORE_KERNELS_MATMUL_OP_H_

#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {

template <typename Device, typename Ta, typename Tb, typename Tout,
          bool is_legacy_matmul = false>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
};

#define REGISTER_BATCH_MATMUL_CPU(TYPE)                            \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<TYPE>("T"), \
      BatchMatMulOp<CPUDevice, TYPE, TYPE, TYPE, /* is_legacy_matmul=*/true>)

}  // end namespace tensorflow

#endif  // TENSORFLOW_CORE_KERNELS_MATMUL_OP_H_
