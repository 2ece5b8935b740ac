/* Stand-in written for tfbuild's test trees: NOT TensorFlow's env.h. */

#ifndef TENSORFLOW_CORE_PLATFORM_ENV_H_
#define TENSORFLOW_CORE_PLATFORM_ENV_H_

#include <string>

#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/lib/core/status.h"

namespace tensorflow {

class Env {
 public:
  static Env* Default();
};

// Reads the binary GraphDef in the file `path`.
Status ReadBinaryProto(Env* env, const std::string& path, GraphDef* graph);

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PLATFORM_ENV_H_
