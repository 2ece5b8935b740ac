/* Stand-in written for tfbuild's test trees, shaped like TensorFlow's op.h:
REGISTER_OP(name) builds an op definition that is only recorded when
SHOULD_REGISTER_OP(name) holds (a compile-time constant, as in TensorFlow).
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_OP_H_
#define TENSORFLOW_CORE_FRAMEWORK_OP_H_

#include "tensorflow/core/framework/selective_registration.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {
namespace register_op {

void RecordOp(const char* name);

template <bool should_register>
class OpDefBuilderWrapper;

template <>
class OpDefBuilderWrapper<true> {
 public:
  explicit OpDefBuilderWrapper(const char name[]) : name_(name) {}
  OpDefBuilderWrapper<true>& Attr(const char* spec) { return *this; }
  OpDefBuilderWrapper<true>& Input(const char* spec) { return *this; }
  OpDefBuilderWrapper<true>& Output(const char* spec) { return *this; }
  OpDefBuilderWrapper<true>& SetIsCommutative() { return *this; }
  OpDefBuilderWrapper<true>& SetIsStateful() { return *this; }
  OpDefBuilderWrapper<true>& SetAllowsUninitializedInput() { return *this; }
  OpDefBuilderWrapper<true>& Doc(const char* text) { return *this; }
  const char* name() const { return name_; }

 private:
  const char* name_;
};

template <>
class OpDefBuilderWrapper<false> {
 public:
  explicit OpDefBuilderWrapper(const char name[]) {}
  OpDefBuilderWrapper<false>& Attr(const char* spec) { return *this; }
  OpDefBuilderWrapper<false>& Input(const char* spec) { return *this; }
  OpDefBuilderWrapper<false>& Output(const char* spec) { return *this; }
  OpDefBuilderWrapper<false>& SetIsCommutative() { return *this; }
  OpDefBuilderWrapper<false>& SetIsStateful() { return *this; }
  OpDefBuilderWrapper<false>& SetAllowsUninitializedInput() { return *this; }
  OpDefBuilderWrapper<false>& Doc(const char* text) { return *this; }
};

struct OpDefBuilderReceiver {
  OpDefBuilderReceiver(const OpDefBuilderWrapper<true>& wrapper) {
    RecordOp(wrapper.name());
  }
  constexpr OpDefBuilderReceiver(const OpDefBuilderWrapper<false>&) {}
};

}  // namespace register_op

#define REGISTER_OP(name) REGISTER_OP_UNIQ_HELPER(__COUNTER__, name)
#define REGISTER_OP_UNIQ_HELPER(ctr, name) REGISTER_OP_UNIQ(ctr, name)
#define REGISTER_OP_UNIQ(ctr, name)                                          \
  static ::tensorflow::register_op::OpDefBuilderReceiver register_op##ctr   \
      __attribute__((unused)) =                                             \
          ::tensorflow::register_op::OpDefBuilderWrapper<SHOULD_REGISTER_OP( \
              name)>(name)

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_OP_H_
