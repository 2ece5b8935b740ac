/* Stand-in written for tfbuild's test trees: NOT TensorFlow's loader.h.

TensorFlow's SavedModel loader, in tensorflow/cc (which the contrib Makefile's
library does not compile): LoadSavedModel reads an export directory into a
session. The stand-in's saved_model.pb holds the tags of the model's one meta
graph, one a line, and the session is a new stand-in session.
==============================================================================*/

#ifndef TENSORFLOW_CC_SAVED_MODEL_LOADER_H_
#define TENSORFLOW_CC_SAVED_MODEL_LOADER_H_

#include <memory>
#include <string>
#include <unordered_set>

#include "tensorflow/core/lib/core/status.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "tensorflow/core/public/session.h"

namespace tensorflow {

struct SavedModelBundle {
  std::unique_ptr<Session> session;
  SavedModel saved_model;
};

Status LoadSavedModel(const SessionOptions& session_options, const std::string& export_dir,
                      const std::unordered_set<std::string>& tags, SavedModelBundle* bundle);

}  // namespace tensorflow

#endif  // TENSORFLOW_CC_SAVED_MODEL_LOADER_H_
