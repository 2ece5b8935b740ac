// Uses only TensorFlow's renamed protobuf: headers under google/protobuf3/, namespace
// google::protobuf3. build_and_run.sh checks that no <google/protobuf/...> header is reached.
#include <google/protobuf3/descriptor.h>
#include <google/protobuf3/descriptor.pb.h>
#include <google/protobuf3/stubs/common.h>
#include <google/protobuf3/timestamp.pb.h>
#include <google/protobuf3/util/json_util.h>

#include "side_by_side.h"

namespace pb = ::google::protobuf3;

#include "side_checks.inc"

SideResult RunRenamed() { return RunSide("TensorFlow's protobuf, renamed (google::protobuf3)"); }
