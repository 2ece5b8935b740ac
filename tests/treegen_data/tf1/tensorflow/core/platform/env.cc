/* Stand-in written for tfbuild's test trees: NOT TensorFlow's env.cc.

The part of TensorFlow's env.cc that depends on the protobuf runtime, with its
switch: ReadTextProto parses text with the full runtime's TextFormat, and a
build whose protos were generated for the lite runtime (TENSORFLOW_LITE_PROTOS)
has none, so there it returns Unimplemented, as TensorFlow's does.
ProtobufRuntime() says which way the library was compiled.
==============================================================================*/

#include "tensorflow/core/platform/env.h"

#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/platform/protobuf.h"

namespace tensorflow {

Status ReadTextProto(Env* /* env */, const string& fname, protobuf::Message* /* proto */) {
#if !defined(TENSORFLOW_LITE_PROTOS)
  // TensorFlow reads the file into protobuf::TextFormat::Parser; the stand-in
  // runtime has no parser.
  return errors::Unimplemented(fname, ": the stand-in protobuf runtime has no text format parser");
#else
  return errors::Unimplemented("Can't parse text protos with protolite.");
#endif
}

const char* ProtobufRuntime() {
#if defined(TENSORFLOW_LITE_PROTOS)
  return "lite";
#else
  return "full";
#endif
}

}  // namespace tensorflow
