/* Stand-in written for tfbuild's test trees: NOT TensorFlow's types.h.

Just enough type names (TensorFlow's integer typedefs, Eigen::half, the device
types) for the kernels of a generated test tree to compile with g++.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_TYPES_H_
#define TENSORFLOW_CORE_FRAMEWORK_TYPES_H_

#include <complex>
#include <cstdint>
#include <string>

namespace Eigen {
struct half {
  std::uint16_t x;
};
struct ThreadPoolDevice {};
struct GpuDevice {};
namespace internal {
template <typename T>
struct MinReducer {};
template <typename T>
struct MaxReducer {};
}  // namespace internal
}  // namespace Eigen

namespace tensorflow {

typedef std::int8_t int8;
typedef std::int16_t int16;
typedef std::int32_t int32;
typedef long long int64;
typedef std::uint8_t uint8;
typedef std::uint16_t uint16;
typedef std::uint32_t uint32;
typedef unsigned long long uint64;
typedef std::string string;
typedef std::complex<float> complex64;
typedef std::complex<double> complex128;

struct bfloat16 {
  std::uint16_t value;
};
struct quint8 {
  std::uint8_t value;
};
struct ResourceHandle {};
struct Variant {};

enum DataType {
  DT_INVALID = 0,
  DT_FLOAT = 1,
  DT_DOUBLE = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 5,
  DT_INT8 = 6,
  DT_STRING = 7,
  DT_INT64 = 9,
  DT_BOOL = 10,
  DT_HALF = 19,
};

const char* const DEVICE_DEFAULT = "DEFAULT";
const char* const DEVICE_CPU = "CPU";
const char* const DEVICE_GPU = "GPU";
const char* const DEVICE_SYCL = "SYCL";

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TYPES_H_
