/* Stand-in written for tfbuild's test trees: a tiny kernel registry.

Registered kernels are kept as "op<TAB>device<TAB>class" lines so a test can
link the tree's library and ask which (op, kernel class) pairs survived
selective registration: TfStandinRegisteredKernels().
==============================================================================*/

#include "tensorflow/core/framework/op_kernel.h"

#include <string>
#include <vector>

namespace tensorflow {
namespace {

std::vector<std::string>& RegisteredKernels() {
  static std::vector<std::string>* registered = new std::vector<std::string>;
  return *registered;
}

}  // namespace

namespace kernel_factory {

void OpKernelRegistrar::InitInternal(const KernelDef* kernel_def,
                                     const char* kernel_class_name,
                                     Factory factory) {
  // "_no_register" is the name register_kernel::Name gives a kernel whose op
  // selective registration left out; the real registrar ignores it too.
  if (std::string(kernel_def->op) != "_no_register") {
    RegisteredKernels().push_back(std::string(kernel_def->op) + "\t" +
                                  kernel_def->device + "\t" +
                                  kernel_class_name);
  }
  delete kernel_def;
}

}  // namespace kernel_factory
}  // namespace tensorflow

extern "C" const char* TfStandinRegisteredKernels() {
  static std::string listing;
  listing.clear();
  for (const std::string& line : tensorflow::RegisteredKernels()) {
    listing += line;
    listing += "\n";
  }
  return listing.c_str();
}
