/* Stand-in written for tfbuild's test trees: NOT TensorFlow's loader.cc. */

#include "tensorflow/cc/saved_model/loader.h"

#include <fstream>
#include <string>

#include "tensorflow/core/lib/core/errors.h"

namespace tensorflow {

Status LoadSavedModel(const SessionOptions& session_options, const std::string& export_dir,
                      const std::unordered_set<std::string>& tags, SavedModelBundle* bundle) {
  std::ifstream file(export_dir + "/saved_model.pb");
  if (!file) {
    return errors::NotFound("SavedModel not found in export directory: ", export_dir);
  }
  std::unordered_set<std::string> found;
  std::string tag, listed;
  while (std::getline(file, tag)) {
    if (tag.empty()) continue;
    found.insert(tag);
    listed += (listed.empty() ? "" : ",") + tag;
  }
  for (const std::string& wanted : tags) {
    if (found.count(wanted) == 0) {
      return errors::NotFound("Could not find meta graph def matching supplied tags: { ", wanted, " }");
    }
  }
  bundle->saved_model.set_saved_model_schema_version(1);
  bundle->saved_model.set_tags(listed);
  bundle->session.reset(NewSession(session_options));
  if (bundle->session == nullptr) return errors::Internal("the stand-in could not create a session");
  return Status::OK();
}

}  // namespace tensorflow
