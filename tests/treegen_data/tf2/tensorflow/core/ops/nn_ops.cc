/* Test-tree stand-in for TensorFlow's op definitions (tfbuild tests): the
REGISTER_OP calls of the ops the test kernels implement, without shape functions.
TF 2.x overlay: Conv2D has explicit_paddings and EXPLICIT padding, as in TF 2.x trees.
==============================================================================*/

#include "tensorflow/core/framework/op.h"

namespace tensorflow {

REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Output("output: T");
REGISTER_OP("BiasAddV1")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T");

REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

REGISTER_OP("Relu").Input("features: T").Output("activations: T").Attr("T: realnumbertype");
REGISTER_OP("ReluGrad").Input("gradients: T").Input("features: T").Output("backprops: T").Attr("T: realnumbertype");
REGISTER_OP("Relu6").Input("features: T").Output("activations: T").Attr("T: realnumbertype");
REGISTER_OP("Relu6Grad").Input("gradients: T").Input("features: T").Output("backprops: T").Attr("T: realnumbertype");
REGISTER_OP("Elu").Input("features: T").Output("activations: T").Attr("T: {half, bfloat16, float, double}");

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {half, bfloat16, float, double}");
REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {half, bfloat16, float, double}");

}  // namespace tensorflow
