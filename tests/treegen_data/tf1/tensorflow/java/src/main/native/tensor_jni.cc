/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensor_jni.cc.

TF_Tensors for org.tensorflow.Tensor: allocated for a dtype and shape, filled
from and copied to Java's multi-dimensional primitive arrays (or byte[]
elements for TF_STRING, one uint64 offset per element, then the elements
encoded by TF_StringEncode, as the C API lays them out), and read as scalars.
==============================================================================*/

#include "tensorflow/java/src/main/native/tensor_jni.h"

#include <stdint.h>
#include <string.h>

#include <string>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

namespace {

TF_Tensor* requireHandle(JNIEnv* env, jlong handle) {
  static_assert(sizeof(jlong) >= sizeof(TF_Tensor*), "a pointer must fit in a Java long");
  if (handle == 0) {
    throwException(env, kNullPointerException, "close() was called on the Tensor");
    return nullptr;
  }
  return reinterpret_cast<TF_Tensor*>(handle);
}

size_t elementByteSize(TF_DataType dtype) {
  // Java's boolean is one byte, as TF_BOOL is.
  return TF_DataTypeSize(dtype);
}

int64_t elementCount(TF_Tensor* tensor) {
  int64_t n = 1;
  for (int d = 0; d < TF_NumDims(tensor); ++d) n *= TF_Dim(tensor, d);
  return n;
}

// Copies between a primitive Java array of `length` elements and `bytes`.
void copyPrimitive(JNIEnv* env, TF_DataType dtype, jarray array, jsize length, char* bytes,
                   bool to_tensor) {
  switch (dtype) {
#define COPY_CASE(tf_type, jtype, Name)                                                    \
  case tf_type:                                                                            \
    if (to_tensor) {                                                                       \
      env->Get##Name##ArrayRegion(static_cast<jtype##Array>(array), 0, length,              \
                                  reinterpret_cast<jtype*>(bytes));                        \
    } else {                                                                               \
      env->Set##Name##ArrayRegion(static_cast<jtype##Array>(array), 0, length,              \
                                  reinterpret_cast<const jtype*>(bytes));                  \
    }                                                                                      \
    break;
    COPY_CASE(TF_FLOAT, jfloat, Float)
    COPY_CASE(TF_DOUBLE, jdouble, Double)
    COPY_CASE(TF_INT32, jint, Int)
    COPY_CASE(TF_INT64, jlong, Long)
    COPY_CASE(TF_BOOL, jboolean, Boolean)
    COPY_CASE(TF_UINT8, jbyte, Byte)
#undef COPY_CASE
    default:
      throwException(env, kIllegalStateException, "invalid DataType(%d)", dtype);
  }
}

// Walks the nested arrays `value` over dimensions [dim, rank) of `tensor`,
// copying its primitive arrays to (or from) the tensor's bytes at *offset.
void copyNDArray(JNIEnv* env, TF_Tensor* tensor, jobject value, int dim, size_t* offset,
                 bool to_tensor) {
  const jsize length = env->GetArrayLength(static_cast<jarray>(value));
  if (length != TF_Dim(tensor, dim)) {
    throwException(env, kIllegalArgumentException, "mismatched lengths (%d and %lld) in dimension %d",
                   length, static_cast<long long>(TF_Dim(tensor, dim)), dim);
    return;
  }
  const TF_DataType dtype = TF_TensorType(tensor);
  char* data = static_cast<char*>(TF_TensorData(tensor));
  if (dim == TF_NumDims(tensor) - 1) {
    const size_t bytes = elementByteSize(dtype) * static_cast<size_t>(length);
    if (*offset + bytes > TF_TensorByteSize(tensor)) {
      throwException(env, kIllegalStateException, "the array has more elements than the Tensor");
      return;
    }
    copyPrimitive(env, dtype, static_cast<jarray>(value), length, data + *offset, to_tensor);
    *offset += bytes;
    return;
  }
  for (jsize i = 0; i < length && !env->ExceptionCheck(); ++i) {
    jobject element = env->GetObjectArrayElement(static_cast<jobjectArray>(value), i);
    copyNDArray(env, tensor, element, dim + 1, offset, to_tensor);
    env->DeleteLocalRef(element);
  }
}

// The byte[] elements of nested arrays, in row-major order.
void flattenStrings(JNIEnv* env, jobject value, int dims_left, std::vector<std::string>* out) {
  if (dims_left == 0) {
    jbyteArray bytes = static_cast<jbyteArray>(value);
    const jsize length = env->GetArrayLength(bytes);
    std::string element(static_cast<size_t>(length), '\0');
    if (length > 0) env->GetByteArrayRegion(bytes, 0, length, reinterpret_cast<jbyte*>(&element[0]));
    out->push_back(element);
    return;
  }
  const jsize length = env->GetArrayLength(static_cast<jarray>(value));
  for (jsize i = 0; i < length; ++i) {
    jobject element = env->GetObjectArrayElement(static_cast<jobjectArray>(value), i);
    flattenStrings(env, element, dims_left - 1, out);
    env->DeleteLocalRef(element);
  }
}

// A TF_STRING tensor of `dims` holding `elements`.
TF_Tensor* stringTensor(JNIEnv* env, const std::vector<int64_t>& dims,
                        const std::vector<std::string>& elements) {
  size_t size = 8 * elements.size();
  for (const std::string& element : elements) size += TF_StringEncodedSize(element.size());
  TF_Tensor* tensor = TF_AllocateTensor(TF_STRING, dims.data(), static_cast<int>(dims.size()), size);
  char* data = static_cast<char*>(TF_TensorData(tensor));
  const size_t header = 8 * elements.size();
  size_t at = 0;
  TF_Status* status = TF_NewStatus();
  for (size_t i = 0; i < elements.size(); ++i) {
    const uint64_t offset = at;
    memcpy(data + 8 * i, &offset, sizeof(offset));
    at += TF_StringEncode(elements[i].data(), elements[i].size(), data + header + at,
                          size - header - at, status);
    if (!throwExceptionIfNotOK(env, status)) break;
  }
  TF_DeleteStatus(status);
  return tensor;
}

// Element `index` of a TF_STRING tensor, as a new byte[].
jbyteArray stringElement(JNIEnv* env, TF_Tensor* tensor, int64_t index) {
  const int64_t n = elementCount(tensor);
  const char* data = static_cast<const char*>(TF_TensorData(tensor));
  uint64_t offset = 0;
  memcpy(&offset, data + 8 * index, sizeof(offset));
  const size_t header = 8 * static_cast<size_t>(n);
  const char* element = nullptr;
  size_t length = 0;
  TF_Status* status = TF_NewStatus();
  TF_StringDecode(data + header + offset, TF_TensorByteSize(tensor) - header - offset, &element, &length,
                  status);
  jbyteArray ret = nullptr;
  if (throwExceptionIfNotOK(env, status)) {
    ret = env->NewByteArray(static_cast<jsize>(length));
    env->SetByteArrayRegion(ret, 0, static_cast<jsize>(length), reinterpret_cast<const jbyte*>(element));
  }
  TF_DeleteStatus(status);
  return ret;
}

void readStrings(JNIEnv* env, TF_Tensor* tensor, jobjectArray value, int dim, int64_t* index) {
  const jsize length = env->GetArrayLength(value);
  for (jsize i = 0; i < length && !env->ExceptionCheck(); ++i) {
    if (dim == TF_NumDims(tensor) - 1) {
      jbyteArray element = stringElement(env, tensor, (*index)++);
      env->SetObjectArrayElement(value, i, element);
      env->DeleteLocalRef(element);
    } else {
      jobject element = env->GetObjectArrayElement(value, i);
      readStrings(env, tensor, static_cast<jobjectArray>(element), dim + 1, index);
      env->DeleteLocalRef(element);
    }
  }
}

// The tensor's one element when it is a scalar of `dtype`; nullptr after throwing.
const void* requireScalar(JNIEnv* env, jlong handle, TF_DataType dtype, const char* type_name) {
  TF_Tensor* tensor = requireHandle(env, handle);
  if (tensor == nullptr) return nullptr;
  if (TF_NumDims(tensor) != 0) {
    throwException(env, kIllegalStateException, "Tensor is not a scalar");
    return nullptr;
  }
  if (TF_TensorType(tensor) != dtype) {
    throwException(env, kIllegalStateException, "Tensor is not a %s scalar", type_name);
    return nullptr;
  }
  return TF_TensorData(tensor);
}

}  // namespace

JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocate(JNIEnv* env, jclass, jint dtype,
                                                            jlongArray shape, jlong sizeInBytes) {
  const jsize num_dims = env->GetArrayLength(shape);
  std::vector<jlong> sizes(static_cast<size_t>(num_dims) + 1);
  env->GetLongArrayRegion(shape, 0, num_dims, sizes.data());
  std::vector<int64_t> dims(sizes.begin(), sizes.begin() + num_dims);
  TF_Tensor* tensor = TF_AllocateTensor(static_cast<TF_DataType>(dtype), dims.data(), num_dims,
                                        static_cast<size_t>(sizeInBytes));
  if (tensor == nullptr) {
    throwException(env, kNullPointerException, "unable to allocate memory for the Tensor");
    return 0;
  }
  return reinterpret_cast<jlong>(tensor);
}

JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocateScalarBytes(JNIEnv* env, jclass,
                                                                       jbyteArray value) {
  std::vector<std::string> elements;
  flattenStrings(env, value, 0, &elements);
  return reinterpret_cast<jlong>(stringTensor(env, std::vector<int64_t>(), elements));
}

JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocateNonScalarBytes(JNIEnv* env, jclass,
                                                                          jlongArray shape,
                                                                          jobjectArray value) {
  const jsize num_dims = env->GetArrayLength(shape);
  std::vector<jlong> sizes(static_cast<size_t>(num_dims) + 1);
  env->GetLongArrayRegion(shape, 0, num_dims, sizes.data());
  std::vector<int64_t> dims(sizes.begin(), sizes.begin() + num_dims);
  std::vector<std::string> elements;
  flattenStrings(env, value, num_dims, &elements);
  int64_t n = 1;
  for (int64_t size : dims) n *= size;
  if (static_cast<int64_t>(elements.size()) != n) {
    throwException(env, kIllegalArgumentException, "%lld byte[] elements for a shape of %lld elements",
                   static_cast<long long>(elements.size()), static_cast<long long>(n));
    return 0;
  }
  return reinterpret_cast<jlong>(stringTensor(env, dims, elements));
}

JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_delete(JNIEnv*, jclass, jlong handle) {
  if (handle == 0) return;
  TF_DeleteTensor(reinterpret_cast<TF_Tensor*>(handle));
}

JNIEXPORT jobject JNICALL Java_org_tensorflow_Tensor_buffer(JNIEnv* env, jclass, jlong handle) {
  TF_Tensor* tensor = requireHandle(env, handle);
  if (tensor == nullptr) return nullptr;
  return env->NewDirectByteBuffer(TF_TensorData(tensor), static_cast<jlong>(TF_TensorByteSize(tensor)));
}

JNIEXPORT jint JNICALL Java_org_tensorflow_Tensor_dtype(JNIEnv* env, jclass, jlong handle) {
  TF_Tensor* tensor = requireHandle(env, handle);
  return tensor == nullptr ? 0 : static_cast<jint>(TF_TensorType(tensor));
}

JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Tensor_shape(JNIEnv* env, jclass, jlong handle) {
  TF_Tensor* tensor = requireHandle(env, handle);
  if (tensor == nullptr) return nullptr;
  const jsize num_dims = TF_NumDims(tensor);
  std::vector<jlong> dims;
  for (jsize d = 0; d < num_dims; ++d) dims.push_back(TF_Dim(tensor, d));
  jlongArray ret = env->NewLongArray(num_dims);
  env->SetLongArrayRegion(ret, 0, num_dims, dims.data());
  return ret;
}

JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_setValue(JNIEnv* env, jclass, jlong handle,
                                                           jobject value) {
  TF_Tensor* tensor = requireHandle(env, handle);
  if (tensor == nullptr) return;
  if (TF_NumDims(tensor) > 0) {
    size_t offset = 0;
    copyNDArray(env, tensor, value, 0, &offset, true);
    return;
  }
  // A scalar: the boxed value's primitive.
  jclass clazz = env->GetObjectClass(value);
  void* data = TF_TensorData(tensor);
  switch (TF_TensorType(tensor)) {
#define SCALAR_CASE(tf_type, jtype, method, signature, Call)                        \
  case tf_type: {                                                                    \
    const jtype scalar = env->Call(value, env->GetMethodID(clazz, method, signature)); \
    memcpy(data, &scalar, sizeof(scalar));                                           \
    break;                                                                           \
  }
    SCALAR_CASE(TF_FLOAT, jfloat, "floatValue", "()F", CallFloatMethod)
    SCALAR_CASE(TF_DOUBLE, jdouble, "doubleValue", "()D", CallDoubleMethod)
    SCALAR_CASE(TF_INT32, jint, "intValue", "()I", CallIntMethod)
    SCALAR_CASE(TF_INT64, jlong, "longValue", "()J", CallLongMethod)
    SCALAR_CASE(TF_BOOL, jboolean, "booleanValue", "()Z", CallBooleanMethod)
    SCALAR_CASE(TF_UINT8, jbyte, "byteValue", "()B", CallByteMethod)
#undef SCALAR_CASE
    default:
      throwException(env, kIllegalStateException, "invalid DataType(%d)", TF_TensorType(tensor));
  }
}

#define SCALAR_GETTER(Name, jtype, tf_type, type_name)                                          \
  JNIEXPORT jtype JNICALL Java_org_tensorflow_Tensor_scalar##Name(JNIEnv* env, jclass,           \
                                                                  jlong handle) {               \
    const void* data = requireScalar(env, handle, tf_type, type_name);                          \
    jtype value = 0;                                                                             \
    if (data != nullptr) memcpy(&value, data, sizeof(value));                                   \
    return value;                                                                                \
  }
SCALAR_GETTER(Float, jfloat, TF_FLOAT, "float")
SCALAR_GETTER(Double, jdouble, TF_DOUBLE, "double")
SCALAR_GETTER(Int, jint, TF_INT32, "int32")
SCALAR_GETTER(Long, jlong, TF_INT64, "int64")
SCALAR_GETTER(Boolean, jboolean, TF_BOOL, "boolean")
#undef SCALAR_GETTER

JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Tensor_scalarBytes(JNIEnv* env, jclass,
                                                                    jlong handle) {
  if (requireScalar(env, handle, TF_STRING, "string") == nullptr) return nullptr;
  return stringElement(env, reinterpret_cast<TF_Tensor*>(handle), 0);
}

JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_readNDArray(JNIEnv* env, jclass, jlong handle,
                                                              jobject value) {
  TF_Tensor* tensor = requireHandle(env, handle);
  if (tensor == nullptr) return;
  if (TF_NumDims(tensor) == 0) {
    throwException(env, kIllegalArgumentException,
                   "copyTo() is not meant for scalar Tensors, use the scalar accessor "
                   "(floatValue(), intValue() etc.) instead");
    return;
  }
  if (TF_TensorType(tensor) == TF_STRING) {
    int64_t index = 0;
    readStrings(env, tensor, static_cast<jobjectArray>(value), 0, &index);
    return;
  }
  size_t offset = 0;
  copyNDArray(env, tensor, value, 0, &offset, false);
}
