// The arithmetic of the example custom ops, kept free of TensorFlow so it can be compiled and
// tested on its own (for instance by a cross-compiled test program run under qemu) and so the
// kernels in example_kernels.cc stay thin adapters between tensors and these functors (the
// element-wise ones are applied with Eigen's unaryExpr, so they only need a const operator()).

#ifndef TFBUILD_EXAMPLES_CUSTOM_OPS_EXAMPLE_FUNCTORS_H_
#define TFBUILD_EXAMPLES_CUSTOM_OPS_EXAMPLE_FUNCTORS_H_

#include <cstddef>
#include <cstdint>

namespace tfbuild_example {

// y = x * scale. Integer results are truncated toward zero, like a C++ cast.
template <typename T>
struct Scale {
  float scale;
  T operator()(T x) const { return static_cast<T>(x * scale); }
};

// y = min(max(x, lo), hi), with the bounds cast to T first.
template <typename T>
struct Clip {
  float lo;
  float hi;
  T operator()(T x) const {
    const T low = static_cast<T>(lo);
    const T high = static_cast<T>(hi);
    return x < low ? low : (x > high ? high : x);
  }
};

// y = x * x.
template <typename T>
struct Square {
  T operator()(T x) const { return x * x; }
};

// Number of values strictly greater than threshold.
inline std::int32_t CountAbove(const float* in, std::size_t n, float threshold) {
  std::int32_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += in[i] > threshold ? 1 : 0;
  return count;
}

}  // namespace tfbuild_example

#endif  // TFBUILD_EXAMPLES_CUSTOM_OPS_EXAMPLE_FUNCTORS_H_
