/* Stand-in written for tfbuild's test trees: NOT TensorFlow's errors.h.

errors::Unimplemented(args...) as TensorFlow calls it: a Status whose message
is its arguments, concatenated.
==============================================================================*/

#ifndef TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
#define TENSORFLOW_CORE_LIB_CORE_ERRORS_H_

#include <sstream>

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
Status Unimplemented(const Args&... args) {
  std::ostringstream message;
  message << "Unimplemented: ";
  AppendTo(&message, args...);
  return Status(message.str());
}

}  // namespace errors
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_LIB_CORE_ERRORS_H_
