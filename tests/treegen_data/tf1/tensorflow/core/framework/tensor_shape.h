/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensor_shape.h. */

#ifndef TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include <string>
#include <vector>

#include "tensorflow/core/framework/types.h"

namespace tensorflow {

class TensorShape {
 public:
  void AddDim(int64 size) { dims_.push_back(size); }
  int dims() const { return static_cast<int>(dims_.size()); }
  int64 dim_size(int d) const { return dims_[d]; }
  int64 num_elements() const {
    int64 n = 1;
    for (int64 size : dims_) n *= size;
    return n;
  }
  std::string DebugString() const {
    std::string text = "[";
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      text += (i ? "," : "") + std::to_string(dims_[i]);
    }
    return text + "]";
  }

 private:
  std::vector<int64> dims_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TENSOR_SHAPE_H_
