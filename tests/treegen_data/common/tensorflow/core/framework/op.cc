/* Stand-in written for tfbuild's test trees: the op registry behind
REGISTER_OP, listed by TfStandinRegisteredOps() one name per line.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

#include <string>
#include <vector>

namespace tensorflow {
namespace {

std::vector<std::string>& RegisteredOps() {
  static std::vector<std::string>* registered = new std::vector<std::string>;
  return *registered;
}

}  // namespace

namespace register_op {

void RecordOp(const char* name) { RegisteredOps().push_back(name); }

}  // namespace register_op
}  // namespace tensorflow

extern "C" const char* TfStandinRegisteredOps() {
  static std::string listing;
  listing.clear();
  for (const std::string& name : tensorflow::RegisteredOps()) {
    listing += name;
    listing += "\n";
  }
  return listing.c_str();
}
