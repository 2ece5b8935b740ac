// The same code as renamed.cc against Debian's own protobuf (libprotobuf-dev, 3.12):
// headers under google/protobuf/, namespace google::protobuf.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/json_util.h>

#include "side_by_side.h"

namespace pb = ::google::protobuf;

#include "side_checks.inc"

SideResult RunSystem() { return RunSide("Debian's protobuf (google::protobuf)"); }
