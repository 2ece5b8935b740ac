/* Stand-in written for tfbuild's test trees: NOT TensorFlow's grappler_item.h. */

#ifndef TENSORFLOW_CORE_GRAPPLER_GRAPPLER_ITEM_H_
#define TENSORFLOW_CORE_GRAPPLER_GRAPPLER_ITEM_H_

#include <string>

#include "tensorflow/core/framework/standin.pb.h"

namespace tensorflow {
namespace grappler {

// A description of the item to optimize, with the message in text format.
std::string DescribeItem(const StandinInfo& info);

}  // namespace grappler
}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_GRAPPLER_GRAPPLER_ITEM_H_
