/* Stand-in written for tfbuild's test trees: NOT TensorFlow's checkpoint_reader.h.

TensorFlow's CheckpointReader reads V1 and V2 checkpoints for the C API's
Python wrappers. The stand-in reads none: a reader's status says so, and it
holds no variables.
==============================================================================*/

#ifndef TENSORFLOW_C_CHECKPOINT_READER_H_
#define TENSORFLOW_C_CHECKPOINT_READER_H_

#include <map>
#include <string>

#include "tensorflow/c/c_api.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {
namespace checkpoint {

class CheckpointReader {
 public:
  // `out_status` is set to Unimplemented: the stand-in has no checkpoint format.
  CheckpointReader(const string& filepattern, TF_Status* out_status);

  bool HasTensor(const string& name) const;
  const string DebugString() const;
  // Variable names and their data types.
  const std::map<string, DataType>& GetVariableToDataTypeMap() const { return var_to_data_type_map_; }

 private:
  string filepattern_;
  std::map<string, DataType> var_to_data_type_map_;
};

}  // namespace checkpoint
}  // namespace tensorflow

#endif  // TENSORFLOW_C_CHECKPOINT_READER_H_
