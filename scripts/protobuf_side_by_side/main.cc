// Calls both halves and compares them. Exits 1 if either half fails or if they disagree.
#include <cstdio>

#include "side_by_side.h"

namespace {

void Print(const SideResult& r) {
  std::printf("%s\n", r.library.c_str());
  std::printf("  version          %s\n", r.version.c_str());
  if (!r.ok) {
    std::printf("  FAILED           %s\n", r.error.c_str());
    return;
  }
  std::printf("  Timestamp wire   %zu bytes\n", r.wire_bytes);
  std::printf("  descriptor       %s, DescriptorProto %zu bytes\n", r.type_name.c_str(), r.descriptor_bytes);
  std::printf("  JSON             %s\n", r.json.c_str());
}

}  // namespace

int main() {
  const SideResult renamed = RunRenamed();
  const SideResult system = RunSystem();
  Print(renamed);
  Print(system);

  int status = 0;
  if (!renamed.ok || !system.ok) status = 1;
  if (renamed.version == system.version) {
    std::printf("MISMATCH: both halves report version %s: this is one protobuf, not two\n", renamed.version.c_str());
    status = 1;
  }
  if (renamed.ok && system.ok &&
      (renamed.wire_bytes != system.wire_bytes || renamed.json != system.json ||
       renamed.type_name != system.type_name)) {
    std::printf("MISMATCH: the two protobufs disagree about the same Timestamp\n");
    status = 1;
  }
  std::printf(status == 0 ? "OK: both protobufs in one process\n" : "FAILED\n");
  return status;
}
