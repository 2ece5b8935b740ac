/* Test-tree stand-in for TensorFlow's header of the same name (tfbuild tests):
the op names of function calls, held in constants as TF 2.x holds them.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_FUNCTION_H_
#define TENSORFLOW_CORE_FRAMEWORK_FUNCTION_H_

namespace tensorflow {

class FunctionLibraryDefinition {
 public:
  // Ops created for function arguments and return values bear these names.
  static constexpr const char* const kArgOp = "_Arg";
  static constexpr const char* const kRetOp = "_Retval";
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_FUNCTION_H_
