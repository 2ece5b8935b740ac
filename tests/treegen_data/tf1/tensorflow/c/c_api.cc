/* Stand-in written for tfbuild's test trees: NOT TensorFlow's c_api.cc.

The C API of c_api.h over the tree's stand-in C++ session. Guarded as r1.9's
c_api.cc: off Android (#ifndef __ANDROID__) it includes the C++ API's
gradients and distributed runtime (tensorflow/cc and distributed_runtime, which
neither a real Makefile tree nor this one has), so it compiles only with an
Android compiler, whatever the defines (-DIS_SLIM_BUILD does not help; later
TensorFlow guards with !defined(IS_MOBILE_PLATFORM) && !defined(IS_SLIM_BUILD)),
and the SavedModel loader (tensorflow/cc/saved_model, which the tree has but
the Makefile's library does not compile; it includes saved_model.pb.h, whose
proto tf_proto_files.txt does not list). On Android loading a SavedModel is
Unimplemented; elsewhere TF_LoadSessionFromSavedModel calls LoadSavedModel.
TF_LoadLibrary dlopens a custom-op library, whose REGISTER_OPs record in this
library's registry, and TF_FinishOperation refuses an op type that is neither
registered nor one of TensorFlow's own that the stand-in's tests build. Like TensorFlow's r1.9, its
MessageToBuffer takes the full protobuf runtime's Message, and TF_SessionRun
writes its RunMetadata (here a generated StandinInfo) through it: with protos
generated for the lite runtime this compiles only where the parameter is the
MessageLite that TensorFlow 1.15's own takes.
==============================================================================*/

#include "tensorflow/c/c_api.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#ifndef __ANDROID__
#include "tensorflow/cc/framework/gradients.h"
#include "tensorflow/cc/saved_model/loader.h"
#include "tensorflow/core/distributed_runtime/server_lib.h"
#endif
#include "tensorflow/c/c_api_internal.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/standin.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/lib/core/errors.h"
#include "tensorflow/core/platform/env.h"
#include "tensorflow/core/public/session.h"
#include "tensorflow/core/public/version.h"

extern "C" const char* TfStandinRegisteredOps();

namespace tensorflow {
// Serializes a proto into a TF_Buffer, as TensorFlow's c_api.cc does for GraphDefs, OpLists
// and RunMetadata; it takes the full runtime's Message.
Status MessageToBuffer(const tensorflow::protobuf::Message& in, TF_Buffer* out);
}  // namespace tensorflow

using tensorflow::DataType;
using tensorflow::NodeDef;
using tensorflow::Status;

namespace {

std::string OutputName(const TF_Output& output) {
  std::string name = output.oper->node.name;
  if (output.index != 0) name += ":" + std::to_string(output.index);
  return name;
}

// "name" or "name:2" -> ("name", 2); a control input "^name" -> ("name", -1).
std::pair<std::string, int> ParseInput(const std::string& input) {
  if (!input.empty() && input[0] == '^') return std::make_pair(input.substr(1), -1);
  const std::size_t colon = input.rfind(':');
  if (colon == std::string::npos || colon + 1 == input.size()) return std::make_pair(input, 0);
  const std::string index = input.substr(colon + 1);
  if (index.find_first_not_of("0123456789") != std::string::npos) return std::make_pair(input, 0);
  return std::make_pair(input.substr(0, colon), std::atoi(index.c_str()));
}

TF_Operation* InputOperation(const TF_Operation* oper) {
  for (const std::string& input : oper->node.inputs) {
    const std::pair<std::string, int> parsed = ParseInput(input);
    if (parsed.second < 0) continue;
    const auto found = oper->graph->by_name.find(parsed.first);
    if (found != oper->graph->by_name.end()) return found->second;
  }
  return nullptr;
}

// An operation's type and shape: its attrs, or (for ops like Identity that
// have none) its first input's.
const NodeDef* Described(TF_Operation* oper, bool want_shape) {
  for (int depth = 0; oper != nullptr && depth < 1000; ++depth) {
    const NodeDef& node = oper->node;
    if (want_shape ? node.has_shape : node.dtype != tensorflow::DT_INVALID) return &node;
    if (node.op != "Identity") return nullptr;
    oper = InputOperation(oper);
  }
  return nullptr;
}

void DeleteGraphNow(TF_Graph* graph) { delete graph; }

TF_Tensor* TensorFromStandin(const tensorflow::Tensor& tensor) {
  std::vector<int64_t> dims;
  for (int d = 0; d < tensor.dims(); ++d) dims.push_back(tensor.dim_size(d));
  TF_Tensor* out = TF_AllocateTensor(static_cast<TF_DataType>(tensor.dtype()), dims.data(),
                                     static_cast<int>(dims.size()), tensor.TotalBytes());
  if (tensor.TotalBytes() > 0) {
    std::memcpy(TF_TensorData(out), tensor.tensor_data().data(), tensor.TotalBytes());
  }
  return out;
}

Status TensorToStandin(const TF_Tensor* src, tensorflow::Tensor* dst) {
  const DataType dtype = static_cast<DataType>(src->dtype);
  if (tensorflow::DataTypeSize(dtype) == 0) {
    return Status(tensorflow::error::UNIMPLEMENTED,
                  "the stand-in session takes no tensors of type " + tensorflow::DataTypeString(dtype));
  }
  tensorflow::TensorShape shape;
  for (int64_t size : src->dims) shape.AddDim(size);
  tensorflow::Tensor tensor(dtype, shape);
  if (tensor.TotalBytes() != src->len) {
    return tensorflow::errors::InvalidArgument("a ", tensorflow::DataTypeString(dtype), " tensor of shape ",
                                               shape.DebugString(), " needs ", tensor.TotalBytes(),
                                               " bytes, not ", src->len);
  }
  if (src->len > 0) std::memcpy(const_cast<char*>(tensor.tensor_data().data()), src->data, src->len);
  *dst = tensor;
  return Status::OK();
}

// The GraphDef of every operation of the graph, as TensorFlow extends a session with it.
tensorflow::GraphDef GraphDefOf(const TF_Graph* graph) {
  tensorflow::GraphDef def;
  for (const auto& oper : graph->operations) *def.add_node() = oper->node;
  return def;
}

void PutVarint(std::uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void CopyToBuffer(const std::string& bytes, TF_Buffer* buffer) {
  if (buffer->data_deallocator != nullptr) buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  void* copy = std::malloc(bytes.size() + 1);
  if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
  buffer->data = copy;
  buffer->length = bytes.size();
  buffer->data_deallocator = [](void* data, size_t) { std::free(data); };
}

}  // namespace

namespace tensorflow {
// The stand-in's messages have no wire format: the one it writes (an empty RunMetadata) is
// empty bytes, as an empty message's serialization is.
Status MessageToBuffer(const tensorflow::protobuf::Message& in, TF_Buffer* out) {
  if (in.GetTypeName().empty()) return errors::InvalidArgument("a message without a type name");
  CopyToBuffer(std::string(), out);
  return Status::OK();
}
}  // namespace tensorflow

extern "C" {

const char* TF_Version() { return TF_VERSION_STRING; }

size_t TF_DataTypeSize(TF_DataType dt) {
  switch (dt) {
    case TF_COMPLEX64: case TF_UINT64: return 8;
    case TF_COMPLEX128: return 16;
    case TF_QINT8: case TF_QUINT8: return 1;
    case TF_QINT16: case TF_QUINT16: case TF_UINT16: case TF_BFLOAT16: return 2;
    case TF_QINT32: case TF_UINT32: return 4;
    default: return tensorflow::DataTypeSize(static_cast<DataType>(dt));
  }
}

// ---------------------------------------------------------------------------
TF_Status* TF_NewStatus() { return new TF_Status; }
void TF_DeleteStatus(TF_Status* s) { delete s; }
void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg) {
  s->status = Status(static_cast<tensorflow::error::Code>(code), msg);
}
TF_Code TF_GetCode(const TF_Status* s) { return static_cast<TF_Code>(s->status.code()); }
const char* TF_Message(const TF_Status* s) { return s->status.error_message().c_str(); }

// ---------------------------------------------------------------------------
TF_Buffer* TF_NewBuffer() { return new TF_Buffer{nullptr, 0, nullptr}; }

TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len) {
  TF_Buffer* buffer = TF_NewBuffer();
  CopyToBuffer(std::string(static_cast<const char*>(proto), proto_len), buffer);
  return buffer;
}

void TF_DeleteBuffer(TF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  delete buffer;
}

TF_Buffer TF_GetBuffer(TF_Buffer* buffer) { return *buffer; }

// ---------------------------------------------------------------------------
TF_Tensor* TF_NewTensor(TF_DataType dtype, const int64_t* dims, int num_dims, void* data,
                        size_t len, void (*deallocator)(void* data, size_t len, void* arg),
                        void* deallocator_arg) {
  TF_Tensor* tensor = new TF_Tensor;
  tensor->dtype = dtype;
  tensor->dims.assign(dims, dims + num_dims);
  tensor->data = data;
  tensor->len = len;
  tensor->deallocator = deallocator;
  tensor->deallocator_arg = deallocator_arg;
  return tensor;
}

TF_Tensor* TF_AllocateTensor(TF_DataType dtype, const int64_t* dims, int num_dims, size_t len) {
  // 64-byte aligned, as TensorFlow's allocator (EIGEN_MAX_ALIGN_BYTES) aligns it.
  void* data = nullptr;
  if (posix_memalign(&data, 64, len > 0 ? len : 1) != 0) return nullptr;
  return TF_NewTensor(dtype, dims, num_dims, data, len,
                      [](void* bytes, size_t, void*) { std::free(bytes); }, nullptr);
}

void TF_DeleteTensor(TF_Tensor* tensor) { delete tensor; }
TF_DataType TF_TensorType(const TF_Tensor* tensor) { return tensor->dtype; }
int TF_NumDims(const TF_Tensor* tensor) { return static_cast<int>(tensor->dims.size()); }
int64_t TF_Dim(const TF_Tensor* tensor, int dim_index) { return tensor->dims[dim_index]; }
size_t TF_TensorByteSize(const TF_Tensor* tensor) { return tensor->len; }
void* TF_TensorData(const TF_Tensor* tensor) { return tensor->data; }

size_t TF_StringEncodedSize(size_t len) {
  std::string varint;
  PutVarint(len, &varint);
  return varint.size() + len;
}

size_t TF_StringEncode(const char* src, size_t src_len, char* dst, size_t dst_len,
                       TF_Status* status) {
  std::string varint;
  PutVarint(src_len, &varint);
  if (varint.size() + src_len > dst_len) {
    status->status = tensorflow::errors::InvalidArgument(
        "dst_len (", dst_len, ") too small to encode a ", src_len, "-byte string");
    return 0;
  }
  std::memcpy(dst, varint.data(), varint.size());
  if (src_len > 0) std::memcpy(dst + varint.size(), src, src_len);
  status->status = Status::OK();
  return varint.size() + src_len;
}

size_t TF_StringDecode(const char* src, size_t src_len, const char** dst, size_t* dst_len,
                       TF_Status* status) {
  std::uint64_t len = 0;
  size_t at = 0;
  for (int shift = 0; at < src_len && shift < 64; shift += 7) {
    const unsigned char byte = static_cast<unsigned char>(src[at++]);
    len |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      if (len > src_len - at) break;
      *dst = src + at;
      *dst_len = static_cast<size_t>(len);
      status->status = Status::OK();
      return at + static_cast<size_t>(len);
    }
  }
  status->status = tensorflow::errors::InvalidArgument("invalid string encoding or truncated src buffer");
  return 0;
}

// ---------------------------------------------------------------------------
TF_SessionOptions* TF_NewSessionOptions() { return new TF_SessionOptions; }
void TF_SetTarget(TF_SessionOptions* options, const char* target) { options->target = target; }
void TF_SetConfig(TF_SessionOptions* options, const void* proto, size_t proto_len,
                  TF_Status* status) {
  options->config.assign(static_cast<const char*>(proto), proto_len);
  status->status = Status::OK();
}
void TF_DeleteSessionOptions(TF_SessionOptions* options) { delete options; }

// ---------------------------------------------------------------------------
TF_Graph* TF_NewGraph() { return new TF_Graph; }

void TF_DeleteGraph(TF_Graph* graph) {
  if (graph->sessions > 0) {
    graph->delete_requested = true;
    return;
  }
  DeleteGraphNow(graph);
}

int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output, TF_Status* status) {
  status->status = Status::OK();
  const NodeDef* node = Described(output.oper, true);
  if (node == nullptr || node->unknown_rank) return -1;
  return static_cast<int>(node->shape.size());
}

void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output, int64_t* dims, int num_dims,
                            TF_Status* status) {
  const NodeDef* node = Described(output.oper, true);
  const int rank = (node == nullptr || node->unknown_rank) ? -1 : static_cast<int>(node->shape.size());
  if (rank != num_dims) {
    status->status = tensorflow::errors::InvalidArgument("Expected rank is ", rank, " but actual rank is ", num_dims);
    return;
  }
  for (int d = 0; d < num_dims; ++d) dims[d] = node->shape[d];
  status->status = Status::OK();
}

TF_OperationDescription* TF_NewOperation(TF_Graph* graph, const char* op_type,
                                         const char* oper_name) {
  TF_OperationDescription* desc = new TF_OperationDescription;
  desc->graph = graph;
  desc->node.op = op_type;
  desc->node.name = oper_name;
  return desc;
}

void TF_SetDevice(TF_OperationDescription* desc, const char* device) { desc->node.device = device; }

void TF_AddInput(TF_OperationDescription* desc, TF_Output input) {
  if (input.oper == nullptr || input.oper->graph != desc->graph) {
    if (desc->error.empty()) desc->error = "an input of " + desc->node.name + " is not in its graph";
    return;
  }
  desc->node.inputs.push_back(OutputName(input));
}

void TF_AddInputList(TF_OperationDescription* desc, const TF_Output* inputs, int num_inputs) {
  for (int i = 0; i < num_inputs; ++i) TF_AddInput(desc, inputs[i]);
}

void TF_AddControlInput(TF_OperationDescription* desc, TF_Operation* input) {
  desc->node.inputs.push_back("^" + input->node.name);
}

// Attrs the stand-in does not keep (the session computes no op that reads them).
void TF_SetAttrString(TF_OperationDescription*, const char*, const void*, size_t) {}
void TF_SetAttrStringList(TF_OperationDescription*, const char*, const void* const*,
                          const size_t*, int) {}
void TF_SetAttrInt(TF_OperationDescription*, const char*, int64_t) {}
void TF_SetAttrIntList(TF_OperationDescription*, const char*, const int64_t*, int) {}
void TF_SetAttrFloat(TF_OperationDescription*, const char*, float) {}
void TF_SetAttrFloatList(TF_OperationDescription*, const char*, const float*, int) {}
void TF_SetAttrBool(TF_OperationDescription*, const char*, unsigned char) {}
void TF_SetAttrBoolList(TF_OperationDescription*, const char*, const unsigned char*, int) {}
void TF_SetAttrTypeList(TF_OperationDescription*, const char*, const TF_DataType*, int) {}
void TF_SetAttrTensorList(TF_OperationDescription*, const char*, TF_Tensor* const*, int,
                          TF_Status* status) {
  status->status = Status::OK();
}

void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name, TF_DataType value) {
  const std::string name = attr_name;
  if (name == "dtype" || (name == "T" && desc->node.dtype == tensorflow::DT_INVALID)) {
    desc->node.dtype = static_cast<DataType>(value);
    desc->node.dtype_attr = name;
  }
}

void TF_SetAttrShape(TF_OperationDescription* desc, const char* attr_name, const int64_t* dims,
                     int num_dims) {
  if (std::string(attr_name) != "shape") return;
  desc->node.has_shape = true;
  desc->node.unknown_rank = num_dims < 0;
  desc->node.shape.clear();
  for (int d = 0; d < num_dims; ++d) desc->node.shape.push_back(dims[d]);
}

// A Const's value: its type and shape are kept (the stand-in computes no Const).
void TF_SetAttrTensor(TF_OperationDescription* desc, const char* attr_name, TF_Tensor* value,
                      TF_Status* status) {
  status->status = Status::OK();
  if (std::string(attr_name) != "value") return;
  if (desc->node.dtype == tensorflow::DT_INVALID) TF_SetAttrType(desc, "dtype", value->dtype);
  TF_SetAttrShape(desc, "shape", value->dims.data(), static_cast<int>(value->dims.size()));
}

// Whether graphs may hold `op`: one of TensorFlow's own ops that the stand-in's
// tests build (whether or not the selection has their kernels), or one
// registered (REGISTER_OP, here or in an op library TF_LoadLibrary loaded).
static bool OpRegistered(const std::string& op) {
  static const char* const kEveryBuild[] = {"Const", "NoOp", "Placeholder", "Identity", "Sqrt"};
  for (const char* name : kEveryBuild) {
    if (op == name) return true;
  }
  const std::string names = "\n" + std::string(TfStandinRegisteredOps());
  return names.find("\n" + op + "\n") != std::string::npos;
}

TF_Operation* TF_FinishOperation(TF_OperationDescription* desc, TF_Status* status) {
  std::unique_ptr<TF_OperationDescription> owned(desc);
  TF_Graph* graph = desc->graph;
  if (!desc->error.empty()) {
    status->status = tensorflow::errors::InvalidArgument(desc->error);
    return nullptr;
  }
  if (!OpRegistered(desc->node.op)) {
    status->status = tensorflow::errors::InvalidArgument("Op type not registered '", desc->node.op, "'");
    return nullptr;
  }
  if (desc->node.name.empty() || desc->node.op.empty()) {
    status->status = tensorflow::errors::InvalidArgument("an operation needs a type and a name");
    return nullptr;
  }
  if (graph->by_name.count(desc->node.name) != 0) {
    status->status = tensorflow::errors::InvalidArgument("Duplicate node name in graph: '", desc->node.name, "'");
    return nullptr;
  }
  std::unique_ptr<TF_Operation> oper(new TF_Operation);
  oper->graph = graph;
  oper->node = desc->node;
  TF_Operation* added = oper.get();
  graph->by_name[added->node.name] = added;
  graph->operations.push_back(std::move(oper));
  status->status = Status::OK();
  return added;
}

const char* TF_OperationName(TF_Operation* oper) { return oper->node.name.c_str(); }
const char* TF_OperationOpType(TF_Operation* oper) { return oper->node.op.c_str(); }
const char* TF_OperationDevice(TF_Operation* oper) { return oper->node.device.c_str(); }

// The stand-in's ops have one output, except NoOp, which has none.
int TF_OperationNumOutputs(TF_Operation* oper) { return oper->node.op == "NoOp" ? 0 : 1; }

TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  const NodeDef* node = Described(oper_out.oper, false);
  return static_cast<TF_DataType>(node == nullptr ? tensorflow::DT_INVALID : node->dtype);
}

int TF_OperationOutputListLength(TF_Operation* oper, const char* arg_name, TF_Status* status) {
  if (std::string(arg_name) != "output" || TF_OperationNumOutputs(oper) == 0) {
    status->status = tensorflow::errors::InvalidArgument("Output arg '", arg_name, "' not found in op ",
                                                         oper->node.op);
    return -1;
  }
  status->status = Status::OK();
  return TF_OperationNumOutputs(oper);
}

int TF_OperationNumInputs(TF_Operation* oper) {
  int count = 0;
  for (const std::string& input : oper->node.inputs) count += input[0] == '^' ? 0 : 1;
  return count;
}

TF_Output TF_OperationInput(TF_Input oper_in) {
  int seen = 0;
  for (const std::string& input : oper_in.oper->node.inputs) {
    const std::pair<std::string, int> parsed = ParseInput(input);
    if (parsed.second < 0 || seen++ != oper_in.index) continue;
    const auto found = oper_in.oper->graph->by_name.find(parsed.first);
    if (found != oper_in.oper->graph->by_name.end()) return TF_Output{found->second, parsed.second};
  }
  return TF_Output{nullptr, -1};
}

TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name) {
  const auto found = graph->by_name.find(oper_name);
  return found == graph->by_name.end() ? nullptr : found->second;
}

TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos) {
  if (*pos >= graph->operations.size()) return nullptr;
  return graph->operations[(*pos)++].get();
}

void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def, TF_Status* status) {
  std::string bytes;
  GraphDefOf(graph).SerializeToString(&bytes);
  CopyToBuffer(bytes, output_graph_def);
  status->status = Status::OK();
}

TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions() { return new TF_ImportGraphDefOptions; }
void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts) { delete opts; }
void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts, const char* prefix) {
  opts->prefix = prefix;
}

void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                            const TF_ImportGraphDefOptions* options, TF_Status* status) {
  tensorflow::GraphDef def;
  if (!def.ParseFromString(std::string(static_cast<const char*>(graph_def->data), graph_def->length))) {
    status->status = tensorflow::errors::InvalidArgument("Invalid GraphDef");
    return;
  }
  const std::string prefix = options->prefix.empty() ? "" : options->prefix + "/";
  std::map<std::string, bool> imported;
  for (const NodeDef& node : def.nodes()) imported[node.name] = true;
  std::vector<NodeDef> nodes;
  for (NodeDef node : def.nodes()) {
    if (graph->by_name.count(prefix + node.name) != 0) {
      status->status = tensorflow::errors::InvalidArgument("Node name '", prefix + node.name,
                                                           "' already exists in the Graph");
      return;
    }
    for (std::string& input : node.inputs) {
      const bool control = !input.empty() && input[0] == '^';
      const std::pair<std::string, int> parsed = ParseInput(input);
      if (imported.count(parsed.first) == 0) {
        status->status = tensorflow::errors::InvalidArgument("Node '", node.name, "': Unknown input node '",
                                                             input, "'");
        return;
      }
      input = (control ? "^" : "") + prefix + input.substr(control ? 1 : 0);
    }
    node.name = prefix + node.name;
    nodes.push_back(node);
  }
  for (const NodeDef& node : nodes) {
    std::unique_ptr<TF_Operation> oper(new TF_Operation);
    oper->graph = graph;
    oper->node = node;
    graph->by_name[node.name] = oper.get();
    graph->operations.push_back(std::move(oper));
  }
  status->status = Status::OK();
}

// ---------------------------------------------------------------------------
TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts, TF_Status* status) {
  tensorflow::Session* session = tensorflow::NewSession(opts->options);
  if (session == nullptr) {
    status->status = tensorflow::errors::Internal("the stand-in could not create a session");
    return nullptr;
  }
  graph->sessions++;
  status->status = Status::OK();
  return new TF_Session{session, graph, -1};
}

TF_Session* TF_LoadSessionFromSavedModel(const TF_SessionOptions* session_options,
                                         const TF_Buffer* run_options, const char* export_dir,
                                         const char* const* tags, int tags_len, TF_Graph* graph,
                                         TF_Buffer* meta_graph_def, TF_Status* status) {
#ifdef __ANDROID__
  status->status = tensorflow::errors::Unimplemented(
      "Loading a SavedModel is not supported in Android (", export_dir, ")");
  return nullptr;
#else
  std::unordered_set<std::string> tag_set;
  for (int i = 0; i < tags_len; ++i) tag_set.insert(tags[i]);
  tensorflow::SavedModelBundle bundle;
  status->status = tensorflow::LoadSavedModel(session_options->options, export_dir, tag_set, &bundle);
  if (!status->status.ok()) return nullptr;
  if (meta_graph_def != nullptr) {
    status->status = tensorflow::MessageToBuffer(bundle.saved_model, meta_graph_def);
    if (!status->status.ok()) return nullptr;
  }
  graph->sessions++;
  return new TF_Session{bundle.session.release(), graph, -1};
#endif
}

void TF_CloseSession(TF_Session* session, TF_Status* status) {
  status->status = session->session->Close();
}

void TF_DeleteSession(TF_Session* session, TF_Status* status) {
  status->status = Status::OK();
  if (session == nullptr) return;
  TF_Graph* graph = session->graph;
  delete session->session;
  delete session;
  if (--graph->sessions == 0 && graph->delete_requested) DeleteGraphNow(graph);
}

void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
                   TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets,
                   TF_Buffer* run_metadata, TF_Status* status) {
  for (int i = 0; i < noutputs; ++i) output_values[i] = nullptr;
  const int nodes = static_cast<int>(session->graph->operations.size());
  if (session->graph_nodes_given != nodes) {
    status->status = session->session->Create(GraphDefOf(session->graph));
    if (!status->status.ok()) return;
    session->graph_nodes_given = nodes;
  }
  std::vector<std::pair<std::string, tensorflow::Tensor> > feeds(ninputs);
  for (int i = 0; i < ninputs; ++i) {
    feeds[i].first = OutputName(inputs[i]);
    status->status = TensorToStandin(input_values[i], &feeds[i].second);
    if (!status->status.ok()) return;
  }
  std::vector<std::string> fetches, targets;
  for (int i = 0; i < noutputs; ++i) fetches.push_back(OutputName(outputs[i]));
  for (int i = 0; i < ntargets; ++i) targets.push_back(target_opers[i]->node.name);
  std::vector<tensorflow::Tensor> values;
  status->status = session->session->Run(feeds, fetches, targets, &values);
  if (!status->status.ok()) return;
  for (int i = 0; i < noutputs; ++i) output_values[i] = TensorFromStandin(values[i]);
  // The stand-in records no step stats: an empty RunMetadata.
  if (run_metadata != nullptr) status->status = tensorflow::MessageToBuffer(tensorflow::StandinInfo(), run_metadata);
}

// ---------------------------------------------------------------------------
// A serialized OpList of the ops in `names` (one a line):
// OpList { repeated OpDef op = 1; }, OpDef { string name = 1; }
static std::string OpList(const std::string& names) {
  std::string op_list;
  std::size_t start = 0;
  while (start < names.size()) {
    std::size_t end = names.find('\n', start);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    std::string op_def;
    PutVarint(1 << 3 | 2, &op_def);
    PutVarint(name.size(), &op_def);
    op_def += name;
    PutVarint(1 << 3 | 2, &op_list);
    PutVarint(op_def.size(), &op_list);
    op_list += op_def;
  }
  return op_list;
}

TF_Buffer* TF_GetAllOpList() {
  const std::string op_list = OpList(TfStandinRegisteredOps());
  return TF_NewBufferFromString(op_list.data(), op_list.size());
}

struct TF_Library {
  void* handle;
  std::string op_list;
};

TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status) {
  // The registry only grows: what the library registered is what follows the old listing.
  const std::string before = TfStandinRegisteredOps();
  void* handle = dlopen(library_filename, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    status->status = tensorflow::errors::NotFound(dlerror());
    return nullptr;
  }
  const std::string after = TfStandinRegisteredOps();
  status->status = Status::OK();
  return new TF_Library{handle, OpList(after.substr(before.size()))};
}

TF_Buffer TF_GetOpList(TF_Library* lib_handle) {
  return TF_Buffer{lib_handle->op_list.data(), lib_handle->op_list.size(), nullptr};
}

void TF_DeleteLibraryHandle(TF_Library* lib_handle) { delete lib_handle; }

}  // end extern "C"
