/* Test-tree stand-in for TensorFlow's kernel of the same name (tfbuild tests):
the registrations have TensorFlow's shape; the kernels compute nothing.
==============================================================================*/

#ifndef TENSORFLOW_CORE_KERNELS_CWISE_OPS_H_
#define TENSORFLOW_CORE_KERNELS_CWISE_OPS_H_

#include "tensorflow/core/framework/types.h"

namespace tensorflow {
namespace functor {

// Functors of the element-wise kernels, named as in TensorFlow. The real
// ones wrap Eigen's scalar functors; these are empty tags.
template <typename T>
struct add {};
template <typename T>
struct sub {};
template <typename T>
struct mul {};
template <typename T>
struct minimum {};
template <typename T>
struct greater {};
template <typename T>
struct equal_to {};
template <typename T>
struct squared_difference {};
template <typename T>
struct sqrt {};
template <typename T>
struct rint {};
template <typename T>
struct isfinite {};

}  // end namespace functor
}  // end namespace tensorflow

#endif  // TENSORFLOW_CORE_KERNELS_CWISE_OPS_H_
