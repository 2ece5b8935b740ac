/* Stand-in written for tfbuild's test trees, shaped like TensorFlow 1.x's
op_kernel.h. REGISTER_KERNEL_BUILDER has the real shape: the kernel class is
stringified with #__VA_ARGS__ and the registration is kept or dropped on
SHOULD_REGISTER_OP_KERNEL(class string) at compile time; as in TF 1.x since
0.12, register_kernel::Name also asks SHOULD_REGISTER_OP, at run time, and
renames the kernel of an op the app does not use to "_no_register" (a class
shared by a used and an unused op). OpKernel, KernelDefBuilder and the
registrar are minimal stubs.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
#define TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_

#include "tensorflow/core/framework/selective_registration.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {

class OpKernelConstruction {};
class OpKernelContext {};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* context) {}
  virtual ~OpKernel() {}
  virtual void Compute(OpKernelContext* context) = 0;
};

struct KernelDef {
  const char* op;
  const char* device;
  const char* label;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(const char* op_name) : def_{op_name, "", ""} {}
  KernelDefBuilder& Device(const char* device_type) {
    def_.device = device_type;
    return *this;
  }
  template <class T>
  KernelDefBuilder& TypeConstraint(const char* attr_name) {
    return *this;
  }
  KernelDefBuilder& TypeConstraint(const char* attr_name, DataType allowed) {
    return *this;
  }
  KernelDefBuilder& HostMemory(const char* arg_name) { return *this; }
  KernelDefBuilder& Label(const char* label) {
    def_.label = label;
    return *this;
  }
  KernelDefBuilder& Priority(int32 priority) { return *this; }
  const KernelDef* Build() { return new KernelDef(def_); }

 private:
  KernelDef def_;
};

namespace register_kernel {

class Name : public KernelDefBuilder {
 public:
  explicit Name(const char* op)
      : KernelDefBuilder(SHOULD_REGISTER_OP(op) ? op : "_no_register") {}
};

}  // namespace register_kernel

namespace kernel_factory {

class OpKernelRegistrar {
 public:
  typedef OpKernel* (*Factory)(OpKernelConstruction*);

  OpKernelRegistrar(const KernelDef* kernel_def, const char* kernel_class_name,
                    Factory factory) {
    // Perform the check in the header to allow compile-time optimization
    // to a no-op, allowing the linker to remove the kernel symbols.
    if (kernel_def != nullptr) {
      InitInternal(kernel_def, kernel_class_name, factory);
    }
  }

 private:
  void InitInternal(const KernelDef* kernel_def, const char* kernel_class_name,
                    Factory factory);
};

}  // namespace kernel_factory

#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) \
  REGISTER_KERNEL_BUILDER_UNIQ_HELPER(__COUNTER__, kernel_builder, __VA_ARGS__)

#define REGISTER_KERNEL_BUILDER_UNIQ_HELPER(ctr, kernel_builder, ...) \
  REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, __VA_ARGS__)

#define REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, ...)        \
  constexpr bool should_register_##ctr##__flag =                      \
      SHOULD_REGISTER_OP_KERNEL(#__VA_ARGS__);                        \
  static ::tensorflow::kernel_factory::OpKernelRegistrar              \
      registrar__body__##ctr##__object(                               \
          should_register_##ctr##__flag                               \
              ? ::tensorflow::register_kernel::kernel_builder.Build() \
              : nullptr,                                              \
          #__VA_ARGS__,                                               \
          [](::tensorflow::OpKernelConstruction* context)             \
              -> ::tensorflow::OpKernel* {                            \
            return new __VA_ARGS__(context);                          \
          });

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_OP_KERNEL_H_
