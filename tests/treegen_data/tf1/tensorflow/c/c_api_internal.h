/* Stand-in written for tfbuild's test trees: NOT TensorFlow's c_api_internal.h.

The structs behind the stand-in C API's handles: a TF_Graph is a list of
NodeDefs (the stand-in graph.pb.h's), a TF_Session a stand-in C++ Session that
is given the graph again whenever it grew (as TensorFlow extends its session).
==============================================================================*/

#ifndef TENSORFLOW_C_C_API_INTERNAL_H_
#define TENSORFLOW_C_C_API_INTERNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/lib/core/status.h"
#include "tensorflow/core/public/session.h"

struct TF_Status {
  tensorflow::Status status;
};

struct TF_Tensor {
  ~TF_Tensor() {
    if (deallocator != nullptr) deallocator(data, len, deallocator_arg);
  }
  TF_DataType dtype;
  std::vector<int64_t> dims;
  void* data;
  size_t len;
  void (*deallocator)(void* data, size_t len, void* arg);
  void* deallocator_arg;
};

struct TF_SessionOptions {
  tensorflow::SessionOptions options;
  std::string target;
  std::string config;
};

struct TF_Operation {
  TF_Graph* graph;
  tensorflow::NodeDef node;
};

struct TF_OperationDescription {
  TF_Graph* graph;
  tensorflow::NodeDef node;
  std::string error;  // the first invalid input or attr, reported by TF_FinishOperation
};

struct TF_Graph {
  std::vector<std::unique_ptr<TF_Operation> > operations;
  std::map<std::string, TF_Operation*> by_name;
  int sessions = 0;             // sessions using the graph
  bool delete_requested = false;  // TF_DeleteGraph was called while sessions remained
};

struct TF_ImportGraphDefOptions {
  std::string prefix;
};

struct TF_Session {
  tensorflow::Session* session;
  TF_Graph* graph;
  int graph_nodes_given;  // operations of `graph` the session was last created with
};

#endif  // TENSORFLOW_C_C_API_INTERNAL_H_
