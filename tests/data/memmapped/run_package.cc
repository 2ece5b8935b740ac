// Loads a memmapped package with TensorFlow's own MemmappedEnv (from the wheel's
// libtensorflow_framework.so.2 and libtensorflow_cc.so.2) and runs it: what an app does.
// Usage: run_package PACKAGE INPUT OUTPUT N. Feeds INPUT a float [1, N] tensor of 0.01 * i and
// prints the graph's node and ImmutableConst counts, then OUTPUT's values, one per line.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/platform/env.h"
#include "tensorflow/core/public/session.h"
#include "tensorflow/core/util/memmapped_file_system.h"

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  tensorflow::MemmappedEnv env(tensorflow::Env::Default());
  auto status = env.InitializeFromFile(argv[1]);
  if (!status.ok()) { std::printf("init failed: %s\n", status.ToString().c_str()); return 1; }
  tensorflow::GraphDef graph;
  status = tensorflow::ReadBinaryProto(
      &env, tensorflow::MemmappedFileSystem::kMemmappedPackageDefaultGraphDef, &graph);
  if (!status.ok()) { std::printf("graph failed: %s\n", status.ToString().c_str()); return 1; }
  int immutable = 0;
  for (const auto& node : graph.node()) immutable += node.op() == "ImmutableConst";
  std::printf("nodes %d immutable %d\n", graph.node_size(), immutable);
  tensorflow::SessionOptions options;
  options.env = &env;
  std::unique_ptr<tensorflow::Session> session(tensorflow::NewSession(options));
  if (!session) { std::printf("no session\n"); return 1; }
  status = session->Create(graph);
  if (!status.ok()) { std::printf("create failed: %s\n", status.ToString().c_str()); return 1; }
  const int n = std::atoi(argv[4]);
  tensorflow::Tensor input(tensorflow::DT_FLOAT, tensorflow::TensorShape({1, n}));
  auto values = input.flat<float>();
  for (int i = 0; i < n; ++i) values(i) = 0.01f * i;
  std::vector<tensorflow::Tensor> outputs;
  status = session->Run({{argv[2], input}}, {argv[3]}, {}, &outputs);
  if (!status.ok()) { std::printf("run failed: %s\n", status.ToString().c_str()); return 1; }
  auto result = outputs[0].flat<float>();
  for (int i = 0; i < result.size(); ++i) std::printf("%.9g\n", result(i));
  return 0;
}
