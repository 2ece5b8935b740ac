/* Stand-in written for tfbuild's test trees: NOT protoc's graph.pb.h.

A GraphDef parsed from TensorFlow's binary wire format, keeping of each NodeDef
its name, op and inputs (fields 1, 2 and 3); everything else is skipped.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_
#define TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_

#include <string>
#include <vector>

namespace tensorflow {

class NodeDef {
 public:
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
};

class GraphDef {
 public:
  // False when `bytes` is not a well-formed GraphDef.
  bool ParseFromString(const std::string& bytes);
  const std::vector<NodeDef>& nodes() const { return nodes_; }

 private:
  std::vector<NodeDef> nodes_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_
