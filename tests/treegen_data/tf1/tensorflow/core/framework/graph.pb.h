/* Stand-in written for tfbuild's test trees: NOT protoc's graph.pb.h.

A GraphDef read from and written to TensorFlow's binary wire format, keeping of
each NodeDef its name, op, inputs and device (fields 1 to 4) and, of its attr
map (field 5), the type of "dtype" or "T" and the "shape"; everything else is
skipped on reading.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_
#define TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_

#include <string>
#include <vector>

#include "tensorflow/core/framework/types.h"

namespace tensorflow {

class NodeDef {
 public:
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;
  // The "dtype" attr, or the "T" attr (dtype_attr says which); DT_INVALID when
  // the node has neither.
  DataType dtype = DT_INVALID;
  std::string dtype_attr;
  // The "shape" attr: has_shape, then unknown_rank or the sizes (-1: unknown).
  bool has_shape = false;
  bool unknown_rank = false;
  std::vector<int64> shape;
};

class GraphDef {
 public:
  // False when `bytes` is not a well-formed GraphDef.
  bool ParseFromString(const std::string& bytes);
  bool SerializeToString(std::string* bytes) const;
  const std::vector<NodeDef>& nodes() const { return nodes_; }
  int node_size() const { return static_cast<int>(nodes_.size()); }
  NodeDef* add_node() {
    nodes_.push_back(NodeDef());
    return &nodes_.back();
  }

 private:
  std::vector<NodeDef> nodes_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_GRAPH_PB_H_
