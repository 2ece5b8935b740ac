/* Stand-in written for tfbuild's test trees: NOT TensorFlow's checkpoint_reader.cc. */

#include "tensorflow/c/checkpoint_reader.h"

#include "tensorflow/c/tf_status_helper.h"
#include "tensorflow/core/lib/core/errors.h"

namespace tensorflow {
namespace checkpoint {

CheckpointReader::CheckpointReader(const string& filepattern, TF_Status* out_status)
    : filepattern_(filepattern) {
  Set_TF_Status_from_Status(
      out_status, errors::Unimplemented(filepattern, ": the stand-in reads no checkpoints"));
}

bool CheckpointReader::HasTensor(const string& name) const {
  return var_to_data_type_map_.count(name) != 0;
}

const string CheckpointReader::DebugString() const { return filepattern_ + ": no variables\n"; }

}  // namespace checkpoint
}  // namespace tensorflow
