/* Stand-in written for tfbuild's test trees: NOT TensorFlow's operation_jni.cc. */

#include "tensorflow/java/src/main/native/operation_jni.h"

#include <memory>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

namespace {

TF_Operation* requireHandle(JNIEnv* env, jlong handle) {
  static_assert(sizeof(jlong) >= sizeof(TF_Operation*), "a pointer must fit in a Java long");
  if (handle == 0) {
    throwException(env, kNullPointerException, "close() has been called on the Graph this Operation was a part of");
    return nullptr;
  }
  return reinterpret_cast<TF_Operation*>(handle);
}

TF_Graph* requireGraphHandle(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    throwException(env, kNullPointerException, "close() has been called on the Graph");
    return nullptr;
  }
  return reinterpret_cast<TF_Graph*>(handle);
}

// The operation's output `index`, or a null oper after throwing.
TF_Output requireOutput(JNIEnv* env, jlong op_handle, jint index) {
  TF_Operation* oper = requireHandle(env, op_handle);
  if (oper == nullptr) return TF_Output{nullptr, 0};
  const int num_outputs = TF_OperationNumOutputs(oper);
  if (index < 0 || index >= num_outputs) {
    throwException(env, kIndexOutOfBoundsException,
                   "invalid output index (%d) for an operation that has %d outputs", index, num_outputs);
    return TF_Output{nullptr, 0};
  }
  return TF_Output{oper, index};
}

}  // namespace

JNIEXPORT jstring JNICALL Java_org_tensorflow_Operation_name(JNIEnv* env, jclass, jlong handle) {
  TF_Operation* oper = requireHandle(env, handle);
  return oper == nullptr ? nullptr : env->NewStringUTF(TF_OperationName(oper));
}

JNIEXPORT jstring JNICALL Java_org_tensorflow_Operation_type(JNIEnv* env, jclass, jlong handle) {
  TF_Operation* oper = requireHandle(env, handle);
  return oper == nullptr ? nullptr : env->NewStringUTF(TF_OperationOpType(oper));
}

JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_numOutputs(JNIEnv* env, jclass, jlong handle) {
  TF_Operation* oper = requireHandle(env, handle);
  return oper == nullptr ? 0 : TF_OperationNumOutputs(oper);
}

JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_outputListLength(JNIEnv* env, jclass,
                                                                      jlong handle, jstring name) {
  TF_Operation* oper = requireHandle(env, handle);
  if (oper == nullptr) return 0;
  TF_Status* status = TF_NewStatus();
  const char* chars = env->GetStringUTFChars(name, nullptr);
  const int length = TF_OperationOutputListLength(oper, chars, status);
  env->ReleaseStringUTFChars(name, chars);
  throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
  return length;
}

JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Operation_shape(JNIEnv* env, jclass,
                                                                 jlong graph_handle,
                                                                 jlong op_handle,
                                                                 jint output_index) {
  TF_Graph* graph = requireGraphHandle(env, graph_handle);
  if (graph == nullptr) return nullptr;
  const TF_Output output = requireOutput(env, op_handle, output_index);
  if (output.oper == nullptr) return nullptr;
  TF_Status* status = TF_NewStatus();
  const int num_dims = TF_GraphGetTensorNumDims(graph, output, status);
  if (!throwExceptionIfNotOK(env, status)) {
    TF_DeleteStatus(status);
    return nullptr;
  }
  if (num_dims < 0) {  // unknown rank: Shape.unknown()
    TF_DeleteStatus(status);
    return nullptr;
  }
  std::vector<int64_t> dims(static_cast<size_t>(num_dims) + 1);
  TF_GraphGetTensorShape(graph, output, dims.data(), num_dims, status);
  jlongArray ret = nullptr;
  if (throwExceptionIfNotOK(env, status)) {
    ret = env->NewLongArray(num_dims);
    std::vector<jlong> values(dims.begin(), dims.begin() + num_dims);
    env->SetLongArrayRegion(ret, 0, num_dims, values.data());
  }
  TF_DeleteStatus(status);
  return ret;
}

JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_dtype(JNIEnv* env, jclass, jlong graph_handle,
                                                           jlong op_handle, jint output_index) {
  if (requireGraphHandle(env, graph_handle) == nullptr) return 0;
  const TF_Output output = requireOutput(env, op_handle, output_index);
  if (output.oper == nullptr) return 0;
  return static_cast<jint>(TF_OperationOutputType(output));
}
