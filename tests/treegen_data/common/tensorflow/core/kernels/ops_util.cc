/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#include "tensorflow/core/kernels/ops_util.h"

namespace tensorflow {

int GetBroadcastSize(int index, int in_size, int ksize, int stride,
                     int pad_size) {
  return index * stride - pad_size;
}

}  // namespace tensorflow
