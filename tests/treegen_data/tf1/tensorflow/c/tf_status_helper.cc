/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tf_status_helper.cc. */

#include "tensorflow/c/tf_status_helper.h"

namespace tensorflow {

void Set_TF_Status_from_Status(TF_Status* tf_status, const Status& status) {
  TF_SetStatus(tf_status, static_cast<TF_Code>(status.code()), status.error_message().c_str());
}

Status StatusFromTF_Status(const TF_Status* tf_status) {
  const TF_Code code = TF_GetCode(tf_status);
  if (code == TF_OK) return Status::OK();
  return Status(static_cast<error::Code>(code), TF_Message(tf_status));
}

}  // namespace tensorflow
