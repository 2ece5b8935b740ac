/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

// This file contains a set of different implementations of the two-dimensional
// convolution operation. The standard TensorFlow Conv2d kernel uses EigenTensor
// to implement the computation, but here there are a variety of different ways
// of doing the same thing, using GEMM (GEneral Matrix Multiply) operations.

#define EIGEN_USE_THREADS

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/kernels/conv_ops.h"

namespace tensorflow {

namespace {
template <class T1, class T2, class T3>
class FastGemmFunctor {};

template <class T1, class T2, class T3, class TGemmFunctor>
class Im2ColConvFunctor {};

template <class T, class TConvFunctor>
class Conv2DUsingGemmOp : public OpKernel {
 public:
  explicit Conv2DUsingGemmOp(OpKernelConstruction* context)
      : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

}  // namespace

// Only register this GEMM-based implementation of Conv2d if the compiler flags
// request the implementation explicitly, since otherwise it will clash with the
// default EigenTensor-based kernel.
#if defined(USE_GEMM_FOR_CONV)
REGISTER_KERNEL_BUILDER(Name("Conv2D")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        Conv2DUsingGemmOp<
                            float, Im2ColConvFunctor<
                                       float, float, float,
                                       FastGemmFunctor<float, float, float>>>);
#endif  // USE_GEMM_FOR_CONV

}  // namespace tensorflow
