/* Stand-in written for tfbuild's test trees: NOT TensorFlow's status.h.

A Status that is OK or holds one message, as the C++ session API of the stand-in
(public/session.h) returns it.
==============================================================================*/

#ifndef TENSORFLOW_CORE_LIB_CORE_STATUS_H_
#define TENSORFLOW_CORE_LIB_CORE_STATUS_H_

#include <string>

namespace tensorflow {

class Status {
 public:
  Status() : ok_(true) {}
  explicit Status(const std::string& message) : ok_(false), message_(message) {}
  static Status OK() { return Status(); }
  bool ok() const { return ok_; }
  std::string ToString() const { return ok_ ? "OK" : message_; }

 private:
  bool ok_;
  std::string message_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_LIB_CORE_STATUS_H_
