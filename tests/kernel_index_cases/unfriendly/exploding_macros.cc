// Macros whose expansion quadruples at every level (4^10 tokens): a runaway for a naive
// expander. REG_NOTHING makes every level look like it could register a kernel.
#include "tensorflow/core/framework/op_kernel.h"
#define REG_NOTHING REGISTER_KERNEL_BUILDER
#define TWICE(x) x x
#define D1(x) TWICE(TWICE(x)) REG_NOTHING
#define D2(x) D1(D1(x))
#define D3(x) D2(D2(x))
#define D4(x) D3(D3(x))
#define D5(x) D4(D4(x))
#define D6(x) D5(D5(x))
#define D7(x) D6(D6(x))
#define D8(x) D7(D7(x))
#define D9(x) D8(D8(x))
#define D10(x) D9(D9(x))
D10(boom)
#define SELF(x) SELF(x) REGISTER_KERNEL_BUILDER(Name("SelfRef").Device(DEVICE_CPU), x)
SELF(SelfOp);
#define PING(x) PONG(x)
#define PONG(x) PING(x)
PING(REGISTER_KERNEL_BUILDER)
