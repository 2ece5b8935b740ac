/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensorflow_jni.cc. */

#include "tensorflow/java/src/main/native/tensorflow_jni.h"

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

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

JNIEXPORT jlong JNICALL Java_org_tensorflow_TensorFlow_libraryLoad(JNIEnv* env, jclass clazz,
                                                                   jstring filename) {
  TF_Status* status = TF_NewStatus();
  const char* cname = env->GetStringUTFChars(filename, nullptr);
  TF_Library* handle = TF_LoadLibrary(cname, status);
  throwExceptionIfNotOK(env, status);
  env->ReleaseStringUTFChars(filename, cname);
  TF_DeleteStatus(status);
  return reinterpret_cast<jlong>(handle);
}

JNIEXPORT void JNICALL Java_org_tensorflow_TensorFlow_libraryDelete(JNIEnv* env, jclass clazz,
                                                                    jlong handle) {
  if (handle != 0) TF_DeleteLibraryHandle(reinterpret_cast<TF_Library*>(handle));
}

JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_TensorFlow_libraryOpList(JNIEnv* env, jclass clazz,
                                                                          jlong handle) {
  TF_Buffer buffer = TF_GetOpList(reinterpret_cast<TF_Library*>(handle));
  const jsize length = static_cast<jsize>(buffer.length);
  jbyteArray bytes = env->NewByteArray(length);
  env->SetByteArrayRegion(bytes, 0, length, static_cast<const jbyte*>(buffer.data));
  return bytes;
}
