/* Stand-in written for tfbuild's test trees: NOT TensorFlow's env.h. */

#ifndef TENSORFLOW_CORE_PLATFORM_ENV_H_
#define TENSORFLOW_CORE_PLATFORM_ENV_H_

#include <string>

#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/types.h"
#include "tensorflow/core/lib/core/status.h"

// What of platform/protobuf.h this header needs (the Message type, declared),
// so the code that includes it does not need protobuf's headers.
namespace google {
namespace protobuf {
class Message;
}  // namespace protobuf
}  // namespace google

namespace tensorflow {

namespace protobuf = ::google::protobuf;

class Env {
 public:
  static Env* Default();
};

// Reads the binary GraphDef in the file `path`.
Status ReadBinaryProto(Env* env, const std::string& path, GraphDef* graph);

// Reads the text-format proto in `fname` (env.cc): Unimplemented in a build
// with TENSORFLOW_LITE_PROTOS, which has no text format. Its one overload takes
// the full runtime's Message; later TensorFlow trees add one for MessageLite.
Status ReadTextProto(Env* env, const string& fname, protobuf::Message* proto);

// Stand-in only (env.cc): "lite" when the library was built with
// TENSORFLOW_LITE_PROTOS, "full" otherwise.
const char* ProtobufRuntime();

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PLATFORM_ENV_H_
