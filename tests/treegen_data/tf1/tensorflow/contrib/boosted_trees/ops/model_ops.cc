/* Test-tree stand-in for TensorFlow's op definitions (tfbuild tests): the
REGISTER_OP calls of the ops the test kernels implement, without shape functions.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

namespace tensorflow {
namespace boosted_trees {

REGISTER_OP("CreateTreeEnsembleVariable")
    .Input("tree_ensemble_handle: resource")
    .Input("stamp_token: int64")
    .Input("tree_ensemble_config: string");

REGISTER_OP("TreeEnsembleStampToken")
    .Input("tree_ensemble_handle: resource")
    .Output("stamp_token: int64");

}  // namespace boosted_trees
}  // namespace tensorflow
