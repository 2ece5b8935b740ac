/* Stand-in written for tfbuild's test trees, at the path of TensorFlow's
benchmark_model.cc, which the contrib Makefile links into its benchmark beside
benchmark_model_main.cc.

TensorFlow's reads the graph with ReadBinaryProto and falls back to
ReadTextProto: the one call of the benchmark that a build for the lite protobuf
runtime must give an overload for, since env.h's takes the full runtime's
Message. This one prints, after the main program's lines, which runtime the
library was built for and what that fallback answers:
  protobuf runtime: full|lite
  text protos: <status>
==============================================================================*/

#include <cstdio>

#include "tensorflow/core/framework/standin.pb.h"
#include "tensorflow/core/platform/env.h"

extern "C" void TfStandinBenchmarkModelInfo() {
  tensorflow::StandinInfo info;
  const tensorflow::Status text = tensorflow::ReadTextProto(tensorflow::Env::Default(), "graph.pbtxt", &info);
  std::printf("protobuf runtime: %s\n", tensorflow::ProtobufRuntime());
  std::printf("text protos: %s\n", text.ToString().c_str());
}
