// Registration forms beyond the generated tree's kernels, for tests/test_kernel_index.py. The
// file compiles against the test tree's stand-in framework; g++ decides the expected strings.

#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

namespace tensorflow {

typedef Eigen::ThreadPoolDevice CPUDevice;

template <typename A, typename B>
class CasePairOp : public OpKernel {
 public:
  explicit CasePairOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

template <typename A>
class CaseOneOp : public OpKernel {
 public:
  explicit CaseOneOp(OpKernelConstruction* context) : OpKernel(context) {}
  void Compute(OpKernelContext* context) override {}
};

// Spacing, comments and nesting inside the class argument.
REGISTER_KERNEL_BUILDER(Name("CaseSpacing").Device(DEVICE_CPU),   CasePairOp <  int ,float>  );
REGISTER_KERNEL_BUILDER(Name("CaseComment").Device(DEVICE_CPU),
                        CasePairOp</* first */int, /* second */ float>);
REGISTER_KERNEL_BUILDER(Name("CaseNested").Device(::tensorflow::DEVICE_CPU),
                        CasePairOp<CaseOneOp<int>, CaseOneOp<float> >);

// An object-like macro inside the class argument.
#define CASE_TYPE double
REGISTER_KERNEL_BUILDER(Name("CaseObjectMacro").Device(DEVICE_CPU), CaseOneOp<CASE_TYPE>);

// A variadic pass-through macro.
#define CASE_REGISTER(...) REGISTER_KERNEL_BUILDER(__VA_ARGS__)
CASE_REGISTER(Name("CaseVariadic").Device(DEVICE_CPU), CasePairOp<int, bool>);

// Two levels of local macros over a local type-list macro.
#define CASE_ONE(T)                                                  \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("CaseTwoLevel").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      CaseOneOp< T >);
#define CASE_ALL(m) TF_CALL_float(m) TF_CALL_int32(m) TF_CALL_bool(m)
CASE_ALL(CASE_ONE)

// Token pasting builds the class name; # builds the op name.
#define CASE_PASTE(prefix, T)                                        \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("CasePaste").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      prefix##Op<T>);
CASE_PASTE(CaseOne, float)
#define CASE_STRINGIZED(N) \
  REGISTER_KERNEL_BUILDER(Name(#N).Device(DEVICE_CPU), CaseOneOp<int>);
CASE_STRINGIZED(CaseStringized)

// A macro redefined after #undef registers under its new meaning.
#define CASE_REDEF(T) \
  REGISTER_KERNEL_BUILDER(Name("CaseRedefA").Device(DEVICE_CPU), CaseOneOp<T>);
CASE_REDEF(int)
#undef CASE_REDEF
#define CASE_REDEF(T) \
  REGISTER_KERNEL_BUILDER(Name("CaseRedefB").Device(DEVICE_CPU), CaseOneOp<T>);
CASE_REDEF(float)

// Data type constraints given as DataType values.
REGISTER_KERNEL_BUILDER(
    Name("CaseDataType").Device(DEVICE_CPU).TypeConstraint("T", DT_FLOAT),
    CaseOneOp<float>);

// Regions: compiled out, GPU-only, and decided by a flag only the build knows.
#if 0
REGISTER_KERNEL_BUILDER(Name("CaseIfZero").Device(DEVICE_CPU), CaseOneOp<int>);
#endif
#ifdef TENSORFLOW_USE_SYCL
REGISTER_KERNEL_BUILDER(Name("CaseSycl").Device(DEVICE_CPU), CaseOneOp<int>);
#elif defined(CASE_FLAG)
REGISTER_KERNEL_BUILDER(Name("CaseElif").Device(DEVICE_CPU), CaseOneOp<int>);
#else
REGISTER_KERNEL_BUILDER(Name("CaseElse").Device(DEVICE_CPU), CaseOneOp<int>);
#endif
#if defined(CASE_FLAG)
#define CASE_GUARDED(T) \
  REGISTER_KERNEL_BUILDER(Name("CaseGuardedMacro").Device(DEVICE_CPU), CaseOneOp<T>);
#endif
#if !GOOGLE_CUDA
CASE_ONE(double)
#endif

}  // namespace tensorflow

namespace tensorflow {
#if defined(CASE_FLAG)
CASE_GUARDED(int)
#endif
}  // namespace tensorflow
