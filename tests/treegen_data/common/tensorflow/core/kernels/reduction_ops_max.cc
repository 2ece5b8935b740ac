/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/reduction_ops_common.h"

namespace tensorflow {

#define REGISTER_CPU_KERNELS(type)                                         \
  REGISTER_KERNEL_BUILDER(Name("Max")                                      \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<type>("T")                   \
                              .TypeConstraint<int32>("Tidx"),              \
                          ReductionOp<CPUDevice, type, int32,              \
                                      Eigen::internal::MaxReducer<type>>); \
  REGISTER_KERNEL_BUILDER(Name("Max")                                      \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint<type>("T")                   \
                              .TypeConstraint<int64>("Tidx"),              \
                          ReductionOp<CPUDevice, type, int64,              \
                                      Eigen::internal::MaxReducer<type>>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU_KERNELS);
#undef REGISTER_CPU_KERNELS

}  // namespace tensorflow
