/* Stand-in written for tfbuild's test trees: NOT TensorFlow's protobuf.h.

The protobuf headers TensorFlow's sources use, and its alias for protobuf's
namespace. Built with TENSORFLOW_LITE_PROTOS (protos generated for the lite
runtime), only the lite runtime's: no DescriptorPool, and protobuf::Message is
then declared but never defined, as the generated classes derive from
protobuf::MessageLite.
==============================================================================*/

#ifndef TENSORFLOW_CORE_PLATFORM_PROTOBUF_H_
#define TENSORFLOW_CORE_PLATFORM_PROTOBUF_H_

#ifdef TENSORFLOW_LITE_PROTOS
#include "google/protobuf/message_lite.h"
#else
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#endif

namespace tensorflow {
namespace protobuf = ::google::protobuf;
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PLATFORM_PROTOBUF_H_
