// Registration forms over the installed TensorFlow's own headers (register_types.h and
// cwise_ops_common.h are copied from the wheel next to this file by the test), so the
// index's reading of TF's real, current macros is checked against g++ -E.

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/kernels/cwise_ops_common.h"

namespace tensorflow {

REGISTER6(BinaryOp, CPU, "Add", functor::add, float, Eigen::half, double, int32,
          int64, bfloat16);
REGISTER3(UnaryOp, CPU, "Sqrt", functor::sqrt, float, Eigen::half, double);
REGISTER2(BinaryOp, CPU, "Mul", functor::mul, int8, uint16);

template <typename Device, typename T>
class RealFormsOp : public OpKernel {
 public:
  explicit RealFormsOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

#define REGISTER_REAL_FORMS(type)                                        \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("RealForms").Device(DEVICE_CPU).TypeConstraint<type>("T"),    \
      RealFormsOp<CPUDevice, type>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_REAL_FORMS);
TF_CALL_ALL_TYPES(REGISTER_REAL_FORMS);
TF_CALL_QUANTIZED_TYPES(REGISTER_REAL_FORMS);
TF_CALL_GPU_NUMBER_TYPES(REGISTER_REAL_FORMS);
#undef REGISTER_REAL_FORMS

REGISTER_KERNEL_BUILDER(Name("RealFormsMultiLine")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        RealFormsOp<CPUDevice, float /* comment */>);

}  // namespace tensorflow
