/* Test-tree stand-in for TensorFlow's op definitions (tfbuild tests): the
REGISTER_OP calls of the ops the test kernels implement, without shape functions.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

namespace tensorflow {
namespace boosted_trees {

REGISTER_OP("GradientTreesPrediction")
    .Attr("learner_config: string")
    .Attr("num_dense_float_features: int >= 0")
    .Input("tree_ensemble_handle: resource")
    .Input("seed: int64")
    .Output("predictions: float");

}  // namespace boosted_trees
}  // namespace tensorflow
