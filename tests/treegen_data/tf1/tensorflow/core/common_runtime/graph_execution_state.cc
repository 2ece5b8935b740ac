/* Stand-in written for tfbuild's test trees: NOT TensorFlow's
graph_execution_state.cc.

Grappler's one caller among TensorFlow 1.x's runtime sources, which includes and
calls it only off mobile platforms (IS_MOBILE_PLATFORM, defined by TensorFlow's
platform.h for Android and iOS), as TensorFlow's does. The generated tree's
Makefile does not compile it; tfbuild reads it.
==============================================================================*/

#include <string>

#include "tensorflow/core/framework/standin.pb.h"

#ifndef IS_MOBILE_PLATFORM
#include "tensorflow/core/grappler/grappler_item.h"
#endif  // IS_MOBILE_PLATFORM

namespace tensorflow {

std::string OptimizeGraph(const StandinInfo& info) {
#ifndef IS_MOBILE_PLATFORM
  return grappler::DescribeItem(info);
#else
  return info.name();
#endif  // IS_MOBILE_PLATFORM
}

}  // namespace tensorflow
