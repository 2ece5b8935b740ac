// Test program for the C++ side of tfbuild verify's tensor file (tensor_file.h, rendered from
// templates/verify/tensor_file.h.j2): reads IN, prints one line per tensor, and writes the same
// tensors plus one of its own to OUT. Exit 1 with the reader's message on a malformed file.

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "tensor_file.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " IN OUT" << std::endl;
    return 2;
  }
  std::vector<tfbuild_verify::RawTensor> tensors;
  std::string error;
  if (!tfbuild_verify::ReadTensorFile(argv[1], &tensors, &error)) {
    std::cerr << error << std::endl;
    return 1;
  }
  for (const tfbuild_verify::RawTensor& tensor : tensors) {
    std::cout << tensor.name << " dtype=" << tensor.dtype << " rank=" << tensor.dims.size()
              << " bytes=" << tensor.data.size() << std::endl;
  }
  tfbuild_verify::RawTensor made;
  made.name = "made_in_cpp:0";
  made.dtype = 3;  // DT_INT32
  made.dims = {2, 2};
  const std::int32_t values[4] = {1, -2, 3, -4};
  made.data.assign(reinterpret_cast<const char*>(values), sizeof(values));
  tensors.push_back(made);
  if (!tfbuild_verify::WriteTensorFile(argv[2], tensors, &error)) {
    std::cerr << error << std::endl;
    return 1;
  }
  return 0;
}
