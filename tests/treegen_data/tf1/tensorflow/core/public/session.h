/* Stand-in written for tfbuild's test trees: NOT TensorFlow's session.h.

TensorFlow 1.x's Session interface (Create, Run with feeds and fetches, Close)
over the stand-in framework: it runs graphs of Placeholder (fed) and Identity
nodes, and refuses an op whose CPU kernel the library did not register (as
TensorFlow does: "No OpKernel was registered to support Op ..."). The stand-in
kernels compute nothing, so the session forwards Identity's input itself.
==============================================================================*/

#ifndef TENSORFLOW_CORE_PUBLIC_SESSION_H_
#define TENSORFLOW_CORE_PUBLIC_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/lib/core/status.h"

namespace tensorflow {

struct SessionOptions {};

class Session {
 public:
  virtual ~Session() {}
  virtual Status Create(const GraphDef& graph) = 0;
  virtual Status Run(const std::vector<std::pair<std::string, Tensor> >& inputs,
                     const std::vector<std::string>& output_tensor_names,
                     const std::vector<std::string>& target_node_names,
                     std::vector<Tensor>* outputs) = 0;
  virtual Status Close() = 0;
};

Session* NewSession(const SessionOptions& options);

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_PUBLIC_SESSION_H_
