/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensor.h.

A Tensor of one of the stand-in's DataTypes: its dtype, its shape and a byte
buffer shared between copies (as TensorFlow's is), enough for tfbuild verify's
C++ runner to feed and fetch tensors through the stand-in session.
==============================================================================*/

#ifndef TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_
#define TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_

#include <cstddef>
#include <memory>
#include <string>

#include "tensorflow/core/framework/tensor_shape.h"
#include "tensorflow/core/framework/types.h"

namespace tensorflow {

// The size of one element; 0 for a dtype without a plain byte form.
std::size_t DataTypeSize(DataType dtype);
std::string DataTypeString(DataType dtype);
inline bool DataTypeCanUseMemcpy(DataType dtype) { return DataTypeSize(dtype) != 0; }

// A view of a tensor's bytes (TensorFlow's StringPiece).
class TensorData {
 public:
  TensorData(const char* data, std::size_t size) : data_(data), size_(size) {}
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const char* data_;
  std::size_t size_;
};

class Tensor {
 public:
  Tensor() : dtype_(DT_INVALID), buffer_(std::make_shared<std::string>()) {}
  Tensor(DataType dtype, const TensorShape& shape)
      : dtype_(dtype),
        shape_(shape),
        buffer_(std::make_shared<std::string>(
            DataTypeSize(dtype) * static_cast<std::size_t>(shape.num_elements()), '\0')) {}
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64 dim_size(int d) const { return shape_.dim_size(d); }
  std::size_t TotalBytes() const { return buffer_->size(); }
  TensorData tensor_data() const { return TensorData(&(*buffer_)[0], buffer_->size()); }

 private:
  DataType dtype_;
  TensorShape shape_;
  std::shared_ptr<std::string> buffer_;
};

}  // namespace tensorflow

#endif  // TENSORFLOW_CORE_FRAMEWORK_TENSOR_H_
