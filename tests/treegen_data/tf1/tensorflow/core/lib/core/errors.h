/* Stand-in written for tfbuild's test trees: NOT TensorFlow's errors.h.

errors::Unimplemented(args...), errors::InvalidArgument(args...), ... as
TensorFlow calls them: a Status with that code whose message is the arguments,
concatenated (Unimplemented's message starts "Unimplemented: ").
==============================================================================*/

#ifndef TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
#define TENSORFLOW_CORE_LIB_CORE_ERRORS_H_

#include <sstream>
#include <string>

#include "tensorflow/core/lib/core/status.h"

namespace tensorflow {
namespace errors {

inline void AppendTo(std::ostringstream* /* message */) {}

template <typename First, typename... Rest>
void AppendTo(std::ostringstream* message, const First& first, const Rest&... rest) {
  *message << first;
  AppendTo(message, rest...);
}

template <typename... Args>
std::string Concat(const Args&... args) {
  std::ostringstream message;
  AppendTo(&message, args...);
  return message.str();
}

template <typename... Args>
Status Unimplemented(const Args&... args) {
  return Status(error::UNIMPLEMENTED, "Unimplemented: " + Concat(args...));
}

template <typename... Args>
Status InvalidArgument(const Args&... args) {
  return Status(error::INVALID_ARGUMENT, Concat(args...));
}

template <typename... Args>
Status NotFound(const Args&... args) {
  return Status(error::NOT_FOUND, Concat(args...));
}

template <typename... Args>
Status FailedPrecondition(const Args&... args) {
  return Status(error::FAILED_PRECONDITION, Concat(args...));
}

template <typename... Args>
Status Internal(const Args&... args) {
  return Status(error::INTERNAL, Concat(args...));
}

}  // namespace errors
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
