/* Stand-in written for tfbuild's test trees: NOT TensorFlow's eager_operation_builder_jni.cc.
 *
 * TensorFlow 2.0.0's Java API builds eager operations through the eager C API (TFE_*), which
 * neither the Android recipe nor the contrib Makefile compiles; the calls are here by name. */

#include <jni.h>

#include "tensorflow/c/c_api.h"

struct TFE_Op;
struct TFE_Context;
extern "C" TFE_Op* TFE_NewOp(TFE_Context* ctx, const char* op_or_function_name, TF_Status* status);
extern "C" void TFE_DeleteOp(TFE_Op* op);

extern "C" JNIEXPORT jlong JNICALL Java_org_tensorflow_EagerOperationBuilder_allocate(
    JNIEnv* env, jclass clazz, jlong context_handle, jstring name) {
  (void)env; (void)clazz; (void)name;
  TF_Status* status = TF_NewStatus();
  TFE_Op* op = TFE_NewOp(reinterpret_cast<TFE_Context*>(context_handle), "NoOp", status);
  TF_DeleteStatus(status);
  return reinterpret_cast<jlong>(op);
}

extern "C" JNIEXPORT void JNICALL Java_org_tensorflow_EagerOperationBuilder_delete(
    JNIEnv* env, jclass clazz, jlong op_handle) {
  (void)env; (void)clazz;
  TFE_DeleteOp(reinterpret_cast<TFE_Op*>(op_handle));
}
