/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensorflow_jni.cc. */

#include "tensorflow/java/src/main/native/tensorflow_jni.h"

#include "tensorflow/c/c_api.h"

JNIEXPORT jstring JNICALL Java_org_tensorflow_TensorFlow_version(JNIEnv* env, jclass clazz) {
  return env->NewStringUTF(TF_Version());
}

JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_TensorFlow_registeredOpList(JNIEnv* env,
                                                                             jclass clazz) {
  TF_Buffer* op_list = TF_GetAllOpList();
  const jsize length = static_cast<jsize>(op_list->length);
  jbyteArray bytes = env->NewByteArray(length);
  env->SetByteArrayRegion(bytes, 0, length, static_cast<const jbyte*>(op_list->data));
  TF_DeleteBuffer(op_list);
  return bytes;
}
