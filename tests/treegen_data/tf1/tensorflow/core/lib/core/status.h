/* Stand-in written for tfbuild's test trees: NOT TensorFlow's status.h.

A Status that is OK or holds an error code and one message, as the C++ session
API of the stand-in (public/session.h) returns it. The codes are TensorFlow's
(error_codes.proto), which the stand-in C API (tensorflow/c) hands on as TF_Code.
==============================================================================*/

#ifndef TENSORFLOW_CORE_LIB_CORE_STATUS_H_
#define TENSORFLOW_CORE_LIB_CORE_STATUS_H_

#include <string>

namespace tensorflow {
namespace error {

enum Code {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
};

}  // namespace error

class Status {
 public:
  Status() : code_(error::OK) {}
  // An error without a more precise code (UNKNOWN).
  explicit Status(const std::string& message) : code_(error::UNKNOWN), message_(message) {}
  Status(error::Code code, const std::string& message)
      : code_(code), message_(code == error::OK ? std::string() : message) {}
  static Status OK() { return Status(); }
  bool ok() const { return code_ == error::OK; }
  error::Code code() const { return code_; }
  const std::string& error_message() const { return message_; }
  std::string ToString() const { return ok() ? "OK" : message_; }

 private:
  error::Code code_;
  std::string message_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_LIB_CORE_STATUS_H_
