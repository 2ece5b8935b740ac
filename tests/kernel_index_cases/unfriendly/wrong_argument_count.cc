// Macros used with the wrong number of arguments, and registrations missing parts.
#include "tensorflow/core/framework/op_kernel.h"
#define TWO(a, b) REGISTER_KERNEL_BUILDER(Name(a).Device(DEVICE_CPU), b)
TWO("OnlyOne");
TWO("Too", Many, Arguments);
REGISTER_KERNEL_BUILDER(Name("NoClass").Device(DEVICE_CPU));
REGISTER_KERNEL_BUILDER();
REGISTER_KERNEL_BUILDER(Name(kOpNameFromAVariable).Device(DEVICE_CPU), VariableNameOp);
REGISTER_KERNEL_BUILDER(Builder().Device(DEVICE_CPU), NoNameCallOp);
TF_CALL_float(UNDEFINED_MACRO);
TF_CALL_float();
