// TensorFlow's own 8-bit rounding, as its quantize_weights transform calls it: reads a range and
// float32 values on stdin (min and max as float32, the count as int64, then the values, all
// little-endian) and writes the quint8 code of each value on stdout, made by
// FloatTensorToQuantizedInPlace<quint8> from the wheel's quantization_utils.h.
#include <cstdint>
#include <cstdio>

#include "tensorflow/core/kernels/quantization_utils.h"

int main() {
  float low = 0, high = 0;
  int64_t count = 0;
  if (std::fread(&low, 4, 1, stdin) != 1 || std::fread(&high, 4, 1, stdin) != 1 ||
      std::fread(&count, 8, 1, stdin) != 1 || count < 0) {
    std::fprintf(stderr, "float_to_quantized: expected min, max and a count on stdin\n");
    return 2;
  }
  tensorflow::Tensor values(tensorflow::DT_FLOAT, tensorflow::TensorShape({count}));
  if (static_cast<int64_t>(std::fread(values.flat<float>().data(), 4, count, stdin)) != count) {
    std::fprintf(stderr, "float_to_quantized: fewer values than the count\n");
    return 2;
  }
  tensorflow::Tensor codes(tensorflow::DT_QUINT8, values.shape());
  tensorflow::FloatTensorToQuantizedInPlace<tensorflow::quint8>(values, low, high, &codes);
  std::fwrite(codes.tensor_data().data(), 1, codes.tensor_data().size(), stdout);
  return 0;
}
