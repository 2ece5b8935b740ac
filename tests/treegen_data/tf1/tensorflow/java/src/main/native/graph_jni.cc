/* Stand-in written for tfbuild's test trees: NOT TensorFlow's graph_jni.cc. */

#include "tensorflow/java/src/main/native/graph_jni.h"

#include <limits>
#include <memory>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

namespace {

TF_Graph* requireHandle(JNIEnv* env, jlong handle) {
  static_assert(sizeof(jlong) >= sizeof(TF_Graph*), "a pointer must fit in a Java long");
  if (handle == 0) {
    throwException(env, kIllegalStateException, "close() has been called on the Graph");
    return nullptr;
  }
  return reinterpret_cast<TF_Graph*>(handle);
}

}  // namespace

JNIEXPORT jlong JNICALL Java_org_tensorflow_Graph_allocate(JNIEnv*, jclass) {
  return reinterpret_cast<jlong>(TF_NewGraph());
}

JNIEXPORT void JNICALL Java_org_tensorflow_Graph_delete(JNIEnv*, jclass, jlong handle) {
  if (handle == 0) return;
  TF_DeleteGraph(reinterpret_cast<TF_Graph*>(handle));
}

JNIEXPORT jlong JNICALL Java_org_tensorflow_Graph_operation(JNIEnv* env, jclass, jlong handle,
                                                            jstring name) {
  TF_Graph* graph = requireHandle(env, handle);
  if (graph == nullptr) return 0;
  const char* chars = env->GetStringUTFChars(name, nullptr);
  TF_Operation* oper = TF_GraphOperationByName(graph, chars);
  env->ReleaseStringUTFChars(name, chars);
  return reinterpret_cast<jlong>(oper);
}

JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Graph_nextOperation(JNIEnv* env, jclass,
                                                                     jlong handle,
                                                                     jint position) {
  TF_Graph* graph = requireHandle(env, handle);
  if (graph == nullptr) return nullptr;
  size_t pos = static_cast<size_t>(position);
  TF_Operation* oper = TF_GraphNextOperation(graph, &pos);
  if (oper == nullptr) return nullptr;
  jlongArray pair = env->NewLongArray(2);
  const jlong values[2] = {reinterpret_cast<jlong>(oper), static_cast<jlong>(pos)};
  env->SetLongArrayRegion(pair, 0, 2, values);
  return pair;
}

JNIEXPORT void JNICALL Java_org_tensorflow_Graph_importGraphDef(JNIEnv* env, jclass, jlong handle,
                                                                jbyteArray graph_def,
                                                                jstring prefix) {
  TF_Graph* graph = requireHandle(env, handle);
  if (graph == nullptr) return;
  TF_ImportGraphDefOptions* options = TF_NewImportGraphDefOptions();
  const char* chars = env->GetStringUTFChars(prefix, nullptr);
  TF_ImportGraphDefOptionsSetPrefix(options, chars);
  env->ReleaseStringUTFChars(prefix, chars);

  jbyte* bytes = env->GetByteArrayElements(graph_def, nullptr);
  TF_Buffer* buffer = TF_NewBufferFromString(bytes, static_cast<size_t>(env->GetArrayLength(graph_def)));
  TF_Status* status = TF_NewStatus();
  TF_GraphImportGraphDef(graph, buffer, options, status);
  throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
  TF_DeleteBuffer(buffer);
  env->ReleaseByteArrayElements(graph_def, bytes, JNI_ABORT);
  TF_DeleteImportGraphDefOptions(options);
}

JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Graph_toGraphDef(JNIEnv* env, jclass,
                                                                  jlong handle) {
  TF_Graph* graph = requireHandle(env, handle);
  if (graph == nullptr) return nullptr;
  jbyteArray ret = nullptr;
  TF_Buffer* buffer = TF_NewBuffer();
  TF_Status* status = TF_NewStatus();
  TF_GraphToGraphDef(graph, buffer, status);
  if (throwExceptionIfNotOK(env, status)) {
    if (buffer->length > static_cast<size_t>(std::numeric_limits<jint>::max())) {
      throwException(env, kIndexOutOfBoundsException, "GraphDef is too large to serialize into a byte[] array");
    } else {
      const jint length = static_cast<jint>(buffer->length);
      ret = env->NewByteArray(length);
      env->SetByteArrayRegion(ret, 0, length, static_cast<const jbyte*>(buffer->data));
    }
  }
  TF_DeleteStatus(status);
  TF_DeleteBuffer(buffer);
  return ret;
}
