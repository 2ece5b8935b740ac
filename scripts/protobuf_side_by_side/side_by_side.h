// What each half of the program reports. No protobuf types here: main.cc sees neither protobuf.
#ifndef PROTOBUF_SIDE_BY_SIDE_H_
#define PROTOBUF_SIDE_BY_SIDE_H_

#include <cstddef>
#include <string>

struct SideResult {
  bool ok = false;
  std::string library;    // which protobuf this half was compiled against
  std::string version;    // internal::VersionString(GOOGLE_PROTOBUF_VERSION) of its headers
  std::size_t wire_bytes = 0;        // serialized Timestamp
  std::size_t descriptor_bytes = 0;  // Timestamp's DescriptorProto, via reflection
  std::string type_name;  // Timestamp's full name from its descriptor
  std::string json;       // util::MessageToJsonString of the Timestamp
  std::string error;
};

// renamed.cc: TensorFlow's protobuf after `tfbuild protobuf rename` (google::protobuf3).
SideResult RunRenamed();
// system.cc: Debian's protobuf (google::protobuf).
SideResult RunSystem();

#endif  // PROTOBUF_SIDE_BY_SIDE_H_
