/* Stand-in written for tfbuild's test trees: NOT TensorFlow's session_jni.cc. */

#include "tensorflow/java/src/main/native/session_jni.h"

#include <string.h>

#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

namespace {

TF_Session* requireHandle(JNIEnv* env, jlong handle) {
  static_assert(sizeof(jlong) >= sizeof(TF_Session*), "a pointer must fit in a Java long");
  if (handle == 0) {
    throwException(env, kNullPointerException, "close() has been called on the Session");
    return nullptr;
  }
  return reinterpret_cast<TF_Session*>(handle);
}

// The elements of a long[] of handles as pointers; false after throwing.
template <class T>
bool resolveHandles(JNIEnv* env, const char* type, jlongArray handles, std::vector<T*>* out) {
  if (handles == nullptr) return true;
  const jsize n = env->GetArrayLength(handles);
  std::vector<jlong> values(static_cast<size_t>(n) + 1);
  env->GetLongArrayRegion(handles, 0, n, values.data());
  for (jsize i = 0; i < n; ++i) {
    if (values[i] == 0) {
      throwException(env, kNullPointerException, "invalid %s (#%d of %d)", type, i, n);
      return false;
    }
    out->push_back(reinterpret_cast<T*>(values[i]));
  }
  return true;
}

std::vector<TF_Output> outputsOf(JNIEnv* env, const std::vector<TF_Operation*>& opers,
                                 jintArray indices) {
  std::vector<jint> values(opers.size() + 1);
  env->GetIntArrayRegion(indices, 0, static_cast<jsize>(opers.size()), values.data());
  std::vector<TF_Output> outputs;
  for (size_t i = 0; i < opers.size(); ++i) outputs.push_back(TF_Output{opers[i], values[i]});
  return outputs;
}

}  // namespace

JNIEXPORT jlong JNICALL Java_org_tensorflow_Session_allocate(JNIEnv* env, jclass clazz,
                                                             jlong graph_handle) {
  return Java_org_tensorflow_Session_allocate2(env, clazz, graph_handle, nullptr, nullptr);
}

JNIEXPORT jlong JNICALL Java_org_tensorflow_Session_allocate2(JNIEnv* env, jclass,
                                                              jlong graph_handle, jstring target,
                                                              jbyteArray config) {
  if (graph_handle == 0) {
    throwException(env, kNullPointerException, "Graph has been close()d");
    return 0;
  }
  TF_Status* status = TF_NewStatus();
  TF_SessionOptions* options = TF_NewSessionOptions();
  if (config != nullptr) {
    jbyte* bytes = env->GetByteArrayElements(config, nullptr);
    TF_SetConfig(options, bytes, static_cast<size_t>(env->GetArrayLength(config)), status);
    env->ReleaseByteArrayElements(config, bytes, JNI_ABORT);
    if (!throwExceptionIfNotOK(env, status)) {
      TF_DeleteSessionOptions(options);
      TF_DeleteStatus(status);
      return 0;
    }
  }
  if (target != nullptr) {
    const char* chars = env->GetStringUTFChars(target, nullptr);
    TF_SetTarget(options, chars);
    env->ReleaseStringUTFChars(target, chars);
  }
  TF_Session* session = TF_NewSession(reinterpret_cast<TF_Graph*>(graph_handle), options, status);
  TF_DeleteSessionOptions(options);
  const bool ok = throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
  return ok ? reinterpret_cast<jlong>(session) : 0;
}

JNIEXPORT void JNICALL Java_org_tensorflow_Session_delete(JNIEnv* env, jclass, jlong handle) {
  TF_Session* session = requireHandle(env, handle);
  if (session == nullptr) return;
  TF_Status* status = TF_NewStatus();
  TF_CloseSession(session, status);
  // Delete even if closing failed, so the session does not leak.
  throwExceptionIfNotOK(env, status);
  TF_DeleteSession(session, status);
  throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
}

JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Session_run(
    JNIEnv* env, jclass, jlong handle, jbyteArray jrun_options, jlongArray input_tensor_handles,
    jlongArray input_op_handles, jintArray input_op_indices, jlongArray output_op_handles,
    jintArray output_op_indices, jlongArray target_op_handles, jboolean want_run_metadata,
    jlongArray output_tensor_handles) {
  TF_Session* session = requireHandle(env, handle);
  if (session == nullptr) return nullptr;
  std::vector<TF_Tensor*> input_values;
  std::vector<TF_Operation*> input_opers, output_opers, targets;
  if (!resolveHandles(env, "input Tensor", input_tensor_handles, &input_values) ||
      !resolveHandles(env, "input op", input_op_handles, &input_opers) ||
      !resolveHandles(env, "output op", output_op_handles, &output_opers) ||
      !resolveHandles(env, "target op", target_op_handles, &targets)) {
    return nullptr;
  }
  const std::vector<TF_Output> inputs = outputsOf(env, input_opers, input_op_indices);
  const std::vector<TF_Output> outputs = outputsOf(env, output_opers, output_op_indices);
  std::vector<TF_Tensor*> output_values(outputs.size() + 1, nullptr);

  TF_Buffer* run_options = nullptr;
  if (jrun_options != nullptr) {
    jbyte* bytes = env->GetByteArrayElements(jrun_options, nullptr);
    run_options = TF_NewBufferFromString(bytes, static_cast<size_t>(env->GetArrayLength(jrun_options)));
    env->ReleaseByteArrayElements(jrun_options, bytes, JNI_ABORT);
  }
  TF_Buffer* run_metadata = want_run_metadata ? TF_NewBuffer() : nullptr;
  TF_Status* status = TF_NewStatus();
  const std::vector<const TF_Operation*> target_opers(targets.begin(), targets.end());
  TF_SessionRun(session, run_options, inputs.data(), input_values.data(),
                static_cast<int>(inputs.size()), outputs.data(), output_values.data(),
                static_cast<int>(outputs.size()), target_opers.data(),
                static_cast<int>(target_opers.size()), run_metadata, status);
  jbyteArray ret = nullptr;
  if (throwExceptionIfNotOK(env, status)) {
    std::vector<jlong> handles;
    for (size_t i = 0; i < outputs.size(); ++i) handles.push_back(reinterpret_cast<jlong>(output_values[i]));
    env->SetLongArrayRegion(output_tensor_handles, 0, static_cast<jsize>(handles.size()), handles.data());
    if (run_metadata != nullptr) {
      const jsize length = static_cast<jsize>(run_metadata->length);
      ret = env->NewByteArray(length);
      if (length > 0) {
        env->SetByteArrayRegion(ret, 0, length, static_cast<const jbyte*>(run_metadata->data));
      }
    }
  }
  TF_DeleteStatus(status);
  TF_DeleteBuffer(run_metadata);
  TF_DeleteBuffer(run_options);
  return ret;
}
