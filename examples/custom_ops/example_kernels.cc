// CPU kernels of the example custom-op library. Each REGISTER_KERNEL_BUILDER is kept under
// SELECTIVE_REGISTRATION only if ops_to_register.h selects both the op name and the kernel
// class string (e.g. "ExampleScaleOp<CPUDevice, float>"); the math lives in example_functors.h.

#define EIGEN_USE_THREADS

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "example_functors.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/tensor.h"

namespace tensorflow {

typedef Eigen::ThreadPoolDevice CPUDevice;

namespace {

// Allocates an output shaped like input 0 and fills it with f applied to every element, on the
// kernel's Eigen device like TensorFlow's own element-wise kernels.
template <typename Device, typename T, typename Functor>
void ComputeElementwise(OpKernelContext* context, const Functor& f) {
  const Tensor& input = context->input(0);
  Tensor* output = nullptr;
  OP_REQUIRES_OK(context, context->allocate_output(0, input.shape(), &output));
  output->flat<T>().device(context->eigen_device<Device>()) = input.flat<T>().unaryExpr(f);
}

}  // namespace

template <typename Device, typename T>
class ExampleScaleOp : public OpKernel {
 public:
  explicit ExampleScaleOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("scale", &functor_.scale));
  }

  void Compute(OpKernelContext* context) override {
    ComputeElementwise<Device, T>(context, functor_);
  }

 private:
  tfbuild_example::Scale<T> functor_;
};

template <typename Device, typename T>
class ExampleClipOp : public OpKernel {
 public:
  explicit ExampleClipOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("lo", &functor_.lo));
    OP_REQUIRES_OK(context, context->GetAttr("hi", &functor_.hi));
    OP_REQUIRES(context, functor_.lo <= functor_.hi,
                absl::InvalidArgumentError(absl::StrCat(
                    "ExampleClip needs lo <= hi, got lo=", functor_.lo, " hi=", functor_.hi)));
  }

  void Compute(OpKernelContext* context) override {
    ComputeElementwise<Device, T>(context, functor_);
  }

 private:
  tfbuild_example::Clip<T> functor_;
};

template <typename Device, typename T>
class ExampleSquareOp : public OpKernel {
 public:
  explicit ExampleSquareOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    ComputeElementwise<Device, T>(context, tfbuild_example::Square<T>());
  }
};

class ExampleCountOp : public OpKernel {
 public:
  explicit ExampleCountOp(OpKernelConstruction* context) : OpKernel(context) {
    OP_REQUIRES_OK(context, context->GetAttr("threshold", &threshold_));
  }

  void Compute(OpKernelContext* context) override {
    const auto in = context->input(0).flat<float>();
    Tensor* output = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(0, TensorShape({}), &output));
    output->scalar<int32>()() = tfbuild_example::CountAbove(
        in.data(), static_cast<std::size_t>(in.size()), threshold_);
  }

 private:
  float threshold_ = 0.0f;
};

#define REGISTER_CPU(T)                                                   \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("ExampleScale").Device(DEVICE_CPU).TypeConstraint<T>("T"),     \
      ExampleScaleOp<CPUDevice, T>);                                      \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("ExampleClip").Device(DEVICE_CPU).TypeConstraint<T>("T"),      \
      ExampleClipOp<CPUDevice, T>);                                       \
  REGISTER_KERNEL_BUILDER(                                                \
      Name("ExampleSquare").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      ExampleSquareOp<CPUDevice, T>);

REGISTER_CPU(float);
REGISTER_CPU(int32);
#undef REGISTER_CPU

REGISTER_KERNEL_BUILDER(Name("ExampleCount").Device(DEVICE_CPU), ExampleCountOp);

}  // namespace tensorflow
