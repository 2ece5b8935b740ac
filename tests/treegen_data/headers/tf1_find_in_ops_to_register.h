// An ops_to_register.h in the form TensorFlow 1.12's print_selective_registration_header
// writes (find_in over an array of class names, constexpr ShouldRegisterOp), selecting
// Const, NoOp, _Send/_Recv, float Add and float MatMul. Used by tests/test_treegen.py.
#ifndef OPS_TO_REGISTER
#define OPS_TO_REGISTER

  namespace {
    constexpr const char* skip(const char* x) {
      return (*x) ? (*x == ' ' ? skip(x + 1) : x) : x;
    }

    constexpr bool isequal(const char* x, const char* y) {
      return (*skip(x) && *skip(y))
                 ? (*skip(x) == *skip(y) && isequal(skip(x) + 1, skip(y) + 1))
                 : (!*skip(x) && !*skip(y));
    }

    template<int N>
    struct find_in {
      static constexpr bool f(const char* x, const char* const y[N]) {
        return isequal(x, y[0]) || find_in<N - 1>::f(x, y + 1);
      }
    };

    template<>
    struct find_in<0> {
      static constexpr bool f(const char* x, const char* const y[]) {
        return false;
      }
    };
  }  // end namespace
  constexpr const char* kNecessaryOpKernelClasses[] = {
"BinaryOp< CPUDevice, functor::add<float>>",
"ConstantOp",
"MatMulOp<CPUDevice, float, false >",
"NoOp",
"RecvOp",
"SendOp",
};
#define SHOULD_REGISTER_OP_KERNEL(clz) (find_in<sizeof(kNecessaryOpKernelClasses) / sizeof(*kNecessaryOpKernelClasses)>::f(clz, kNecessaryOpKernelClasses))

constexpr inline bool ShouldRegisterOp(const char op[]) {
  return false
     || isequal(op, "Add")
     || isequal(op, "Const")
     || isequal(op, "MatMul")
     || isequal(op, "NoOp")
     || isequal(op, "_Recv")
     || isequal(op, "_Send")
  ;
}
#define SHOULD_REGISTER_OP(op) ShouldRegisterOp(op)

#define SHOULD_REGISTER_OP_GRADIENT false
#endif
