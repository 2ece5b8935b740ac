/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#ifndef TENSORFLOW_CORE_KERNELS_OPS_UTIL_H_
#define TENSORFLOW_CORE_KERNELS_OPS_UTIL_H_

// This file contains utilities for various operations.

namespace tensorflow {

int GetBroadcastSize(int index, int in_size, int ksize, int stride,
                     int pad_size);

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_KERNELS_OPS_UTIL_H_
