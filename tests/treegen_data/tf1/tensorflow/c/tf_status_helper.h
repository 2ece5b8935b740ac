/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tf_status_helper.h. */

#ifndef TENSORFLOW_C_TF_STATUS_HELPER_H_
#define TENSORFLOW_C_TF_STATUS_HELPER_H_

#include "tensorflow/c/c_api.h"
#include "tensorflow/core/lib/core/status.h"

namespace tensorflow {

// Copies `status` (code and message) into `tf_status`.
void Set_TF_Status_from_Status(TF_Status* tf_status, const Status& status);

// The Status a TF_Status holds.
Status StatusFromTF_Status(const TF_Status* tf_status);

}  // namespace tensorflow

#endif  // TENSORFLOW_C_TF_STATUS_HELPER_H_
