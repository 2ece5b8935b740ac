/* Stand-in written for tfbuild's test trees, at the path of TensorFlow's
benchmark tool: instead of benchmarking a graph it prints the kernels and ops
that the linked library registered, one per line:
  kernel<TAB>op<TAB>device<TAB>class
  op<TAB>name
then, where the program links benchmark_model.cc too (the contrib Makefile's
benchmark of a TF 1.x tree), that file's lines.
==============================================================================*/

#include <cstdio>
#include <cstring>

extern "C" const char* TfStandinRegisteredKernels();
extern "C" const char* TfStandinRegisteredOps();
// Weak: Bazel's benchmark_model and programs compiled from the framework alone
// have no benchmark_model.cc.
extern "C" void TfStandinBenchmarkModelInfo() __attribute__((weak));

static void PrintPrefixed(const char* prefix, const char* lines) {
  const char* start = lines;
  while (*start != '\0') {
    const char* end = std::strchr(start, '\n');
    if (end == nullptr) end = start + std::strlen(start);
    std::printf("%s\t%.*s\n", prefix, static_cast<int>(end - start), start);
    start = (*end == '\n') ? end + 1 : end;
  }
}

int main(int argc, char** argv) {
  PrintPrefixed("kernel", TfStandinRegisteredKernels());
  PrintPrefixed("op", TfStandinRegisteredOps());
  if (TfStandinBenchmarkModelInfo != nullptr) TfStandinBenchmarkModelInfo();
  return 0;
}
