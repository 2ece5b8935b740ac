/* Stand-in written for tfbuild's test trees: NOT TensorFlow's
local_descriptor_pool_registration.cc.

The descriptor source of the DecodeProtoV2 and EncodeProto kernels ("local://"):
protobuf's DescriptorPool::generated_pool(), which only the full runtime has. The
contrib Makefile compiles tensorflow/core/util/proto into the library; a model
with those ops needs the full runtime.
==============================================================================*/

#include "tensorflow/core/platform/protobuf.h"

namespace tensorflow {

const protobuf::DescriptorPool* LocalDescriptorPool() {
  return protobuf::DescriptorPool::generated_pool();
}

}  // namespace tensorflow
