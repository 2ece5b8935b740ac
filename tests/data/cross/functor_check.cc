// Runs the example op library's arithmetic (examples/custom_ops/example_functors.h) the way the
// example model chains it, so a cross-compiled build can be checked under qemu against what
// TensorFlow computes for the same model on the host.
//
// usage: functor_check SCALE_F LO HI THRESHOLD SCALE_I FLOATS INTS
//   FLOATS and INTS are comma-separated. Prints three lines:
//   clipped <values>      Clip(Scale(x, SCALE_F), LO, HI) on the floats (%.9g)
//   positives <count>     CountAbove(clipped, THRESHOLD)
//   n_scaled <values>     Scale(n, SCALE_I) on the ints

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "example_functors.h"

namespace {

template <typename T, typename Functor>
std::vector<T> Apply(const std::vector<T>& in, const Functor& f) {
  std::vector<T> out;
  for (const T& value : in) out.push_back(f(value));
  return out;
}

template <typename T>
std::vector<T> ParseList(const char* text) {
  std::vector<T> values;
  const char* cursor = text;
  while (*cursor != '\0') {
    char* end = nullptr;
    values.push_back(static_cast<T>(std::strtod(cursor, &end)));
    cursor = (*end == ',') ? end + 1 : end;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr, "usage: %s SCALE_F LO HI THRESHOLD SCALE_I FLOATS INTS\n", argv[0]);
    return 2;
  }
  const float scale_f = std::strtof(argv[1], nullptr);
  const float lo = std::strtof(argv[2], nullptr);
  const float hi = std::strtof(argv[3], nullptr);
  const float threshold = std::strtof(argv[4], nullptr);
  const float scale_i = std::strtof(argv[5], nullptr);
  const std::vector<float> x = ParseList<float>(argv[6]);
  const std::vector<std::int32_t> n = ParseList<std::int32_t>(argv[7]);

  const std::vector<float> clipped =
      Apply(Apply(x, tfbuild_example::Scale<float>{scale_f}), tfbuild_example::Clip<float>{lo, hi});
  const std::vector<std::int32_t> n_scaled = Apply(n, tfbuild_example::Scale<std::int32_t>{scale_i});

  std::printf("clipped");
  for (float value : clipped) std::printf(" %.9g", value);
  std::printf("\npositives %d\nn_scaled", tfbuild_example::CountAbove(clipped.data(), clipped.size(), threshold));
  for (std::int32_t value : n_scaled) std::printf(" %d", value);
  std::printf("\n");
  return 0;
}
