/* Stand-in written for tfbuild's test trees: the session of public/session.h.

GraphDef's wire format read and written by hand (the stand-in has no protobuf
runtime), ReadBinaryProto, DataType names and sizes, and a Session that evaluates
Placeholder (from the feeds) and Identity (its input, once the library has an
Identity kernel for the CPU), fetching "node" or "node:0".
==============================================================================*/

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/platform/env.h"
#include "tensorflow/core/public/session.h"

extern "C" const char* TfStandinRegisteredKernels();

namespace tensorflow {
namespace {

// A reader of protobuf's wire format over [at, end).
class Wire {
 public:
  Wire(const char* at, const char* end) : at_(at), end_(end) {}
  bool done() const { return at_ == end_; }
  bool Varint(std::uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64 && at_ < end_; shift += 7) {
      const unsigned char byte = static_cast<unsigned char>(*at_++);
      *value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  // The next field: its number, for a length-delimited one its bytes, and for
  // a varint its value.
  bool Field(int* number, std::string* bytes, std::uint64_t* varint = nullptr) {
    std::uint64_t key = 0, value = 0;
    if (!Varint(&key)) return false;
    *number = static_cast<int>(key >> 3);
    bytes->clear();
    switch (key & 7) {
      case 0:
        if (!Varint(&value)) return false;
        if (varint != nullptr) *varint = value;
        return true;
      case 1: return Skip(8);
      case 5: return Skip(4);
      case 2:
        if (!Varint(&value) || value > static_cast<std::uint64_t>(end_ - at_)) return false;
        bytes->assign(at_, static_cast<std::size_t>(value));
        at_ += value;
        return true;
      default: return false;
    }
  }

 private:
  bool Skip(std::ptrdiff_t n) {
    if (end_ - at_ < n) return false;
    at_ += n;
    return true;
  }
  const char* at_;
  const char* end_;
};

bool HasCpuKernel(const std::string& op) {
  std::istringstream lines(TfStandinRegisteredKernels());
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, op.size() + 5, op + "\tCPU\t") == 0) return true;
  }
  return false;
}

std::string NodeName(const std::string& tensor) {
  const std::size_t colon = tensor.rfind(':');
  return colon == std::string::npos ? tensor : tensor.substr(0, colon);
}

class StandinSession : public Session {
 public:
  Status Create(const GraphDef& graph) override {
    for (const NodeDef& node : graph.nodes()) nodes_[node.name] = node;
    return Status::OK();
  }

  Status Run(const std::vector<std::pair<std::string, Tensor> >& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs) override {
    std::map<std::string, Tensor> fed;
    for (const auto& input : inputs) fed[NodeName(input.first)] = input.second;
    outputs->clear();
    for (const std::string& name : output_tensor_names) {
      Tensor value;
      Status status = Evaluate(NodeName(name), fed, 0, &value);
      if (!status.ok()) return status;
      outputs->push_back(value);
    }
    return Status::OK();
  }

  Status Close() override { return Status::OK(); }

 private:
  Status Evaluate(const std::string& name, const std::map<std::string, Tensor>& fed, int depth,
                  Tensor* value) {
    const auto feed = fed.find(name);
    if (feed != fed.end()) {
      *value = feed->second;
      return Status::OK();
    }
    const auto found = nodes_.find(name);
    if (found == nodes_.end()) {
      return errors::InvalidArgument("Tensor ", name, ":0, specified in either feed_devices or fetch_devices was not found in the Graph");
    }
    const NodeDef& node = found->second;
    if (node.op == "Placeholder") {
      return errors::InvalidArgument("You must feed a value for placeholder tensor '", name, "'");
    }
    if (!HasCpuKernel(node.op)) {
      return errors::InvalidArgument("No OpKernel was registered to support Op '", node.op, "' used by node ", name);
    }
    if (node.op != "Identity" || node.inputs.empty() || depth > 1000) {
      return Status(error::UNIMPLEMENTED,
                    "the stand-in session computes only Identity, not " + node.op + " (node " + name + ")");
    }
    return Evaluate(NodeName(node.inputs[0]), fed, depth + 1, value);
  }

  std::map<std::string, NodeDef> nodes_;
};

// TensorShapeProto: dim (2) { size (1) }, unknown_rank (3).
bool ParseShape(const std::string& bytes, NodeDef* node) {
  Wire shape(bytes.data(), bytes.data() + bytes.size());
  int number = 0;
  std::string field;
  std::uint64_t value = 0;
  node->has_shape = true;
  while (!shape.done()) {
    if (!shape.Field(&number, &field, &value)) return false;
    if (number == 3) node->unknown_rank = value != 0;
    if (number != 2) continue;
    Wire dim(field.data(), field.data() + field.size());
    std::string unused;
    std::int64_t size = -1;
    while (!dim.done()) {
      if (!dim.Field(&number, &unused, &value)) return false;
      if (number == 1) size = static_cast<std::int64_t>(value);
    }
    node->shape.push_back(size);
  }
  return true;
}

// One entry of NodeDef's attr map: key (1), AttrValue (2) whose type is field 6
// and shape field 7.
bool ParseAttr(const std::string& bytes, NodeDef* node) {
  Wire entry(bytes.data(), bytes.data() + bytes.size());
  int number = 0;
  std::string field, key, value_bytes;
  while (!entry.done()) {
    if (!entry.Field(&number, &field)) return false;
    if (number == 1) key = field;
    if (number == 2) value_bytes = field;
  }
  Wire value(value_bytes.data(), value_bytes.data() + value_bytes.size());
  std::uint64_t varint = 0;
  while (!value.done()) {
    if (!value.Field(&number, &field, &varint)) return false;
    if (number == 6 && (key == "dtype" || (key == "T" && node->dtype == DT_INVALID))) {
      node->dtype = static_cast<DataType>(varint);
      node->dtype_attr = key;
    }
    if (number == 7 && key == "shape" && !ParseShape(field, node)) return false;
  }
  return true;
}

void PutVarint(std::uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void PutBytes(int number, const std::string& bytes, std::string* out) {
  PutVarint(static_cast<std::uint64_t>(number) << 3 | 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

void PutInt(int number, std::uint64_t value, std::string* out) {
  PutVarint(static_cast<std::uint64_t>(number) << 3, out);
  PutVarint(value, out);
}

std::string AttrEntry(const std::string& key, const std::string& value) {
  std::string entry;
  PutBytes(1, key, &entry);
  PutBytes(2, value, &entry);
  return entry;
}

}  // namespace

bool GraphDef::ParseFromString(const std::string& bytes) {
  nodes_.clear();
  Wire graph(bytes.data(), bytes.data() + bytes.size());
  int number = 0;
  std::string field;
  while (!graph.done()) {
    if (!graph.Field(&number, &field)) return false;
    if (number != 1) continue;
    NodeDef node;
    Wire reader(field.data(), field.data() + field.size());
    std::string value;
    while (!reader.done()) {
      if (!reader.Field(&number, &value)) return false;
      if (number == 1) node.name = value;
      if (number == 2) node.op = value;
      if (number == 3) node.inputs.push_back(value);
      if (number == 4) node.device = value;
      if (number == 5 && !ParseAttr(value, &node)) return false;
    }
    nodes_.push_back(node);
  }
  return true;
}

bool GraphDef::SerializeToString(std::string* bytes) const {
  bytes->clear();
  for (const NodeDef& node : nodes_) {
    std::string out;
    PutBytes(1, node.name, &out);
    PutBytes(2, node.op, &out);
    for (const std::string& input : node.inputs) PutBytes(3, input, &out);
    if (!node.device.empty()) PutBytes(4, node.device, &out);
    if (node.dtype != DT_INVALID) {
      std::string type;
      PutInt(6, static_cast<std::uint64_t>(node.dtype), &type);
      PutBytes(5, AttrEntry(node.dtype_attr.empty() ? "dtype" : node.dtype_attr, type), &out);
    }
    if (node.has_shape) {
      std::string shape, value;
      if (node.unknown_rank) PutInt(3, 1, &shape);
      for (int64 size : node.shape) {
        std::string dim;
        PutInt(1, static_cast<std::uint64_t>(size), &dim);
        PutBytes(2, dim, &shape);
      }
      PutBytes(7, shape, &value);
      PutBytes(5, AttrEntry("shape", value), &out);
    }
    PutBytes(1, out, bytes);
  }
  return true;
}

Env* Env::Default() {
  static Env env;
  return &env;
}

Status ReadBinaryProto(Env* env, const std::string& path, GraphDef* graph) {
  std::ifstream file(path.c_str(), std::ios::binary);
  if (!file) return Status(path + ": cannot be opened");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (!graph->ParseFromString(bytes.str())) return Status(path + ": not a binary GraphDef");
  return Status::OK();
}

std::size_t DataTypeSize(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: case DT_INT32: return 4;
    case DT_DOUBLE: case DT_INT64: return 8;
    case DT_UINT8: case DT_INT8: case DT_BOOL: return 1;
    case DT_INT16: case DT_HALF: return 2;
    default: return 0;
  }
}

std::string DataTypeString(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_INT32: return "int32";
    case DT_UINT8: return "uint8";
    case DT_INT16: return "int16";
    case DT_INT8: return "int8";
    case DT_STRING: return "string";
    case DT_INT64: return "int64";
    case DT_BOOL: return "bool";
    case DT_HALF: return "half";
    default: return "unknown dtype " + std::to_string(static_cast<int>(dtype));
  }
}

Session* NewSession(const SessionOptions& options) { return new StandinSession; }

}  // namespace tensorflow
