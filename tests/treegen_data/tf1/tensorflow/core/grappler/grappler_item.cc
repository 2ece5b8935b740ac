/* Stand-in written for tfbuild's test trees: NOT TensorFlow's grappler_item.cc.

What grappler's sources do throughout, and why they need the full protobuf
runtime: print TensorFlow's messages with DebugString(), the text format that
messages generated for the lite runtime do not have. The contrib Makefile
compiles grappler into the library; a mobile build never calls it
(common_runtime/graph_execution_state.cc, #ifndef IS_MOBILE_PLATFORM).
==============================================================================*/

#include "tensorflow/core/grappler/grappler_item.h"

namespace tensorflow {
namespace grappler {

std::string DescribeItem(const StandinInfo& info) {
  return "item {\n" + info.DebugString() + "}\n";
}

}  // namespace grappler
}  // namespace tensorflow
