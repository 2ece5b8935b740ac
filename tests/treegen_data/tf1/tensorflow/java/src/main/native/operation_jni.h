/* Stand-in written for tfbuild's test trees: NOT TensorFlow's operation_jni.h.

The native methods of org.tensorflow.Operation.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jstring JNICALL Java_org_tensorflow_Operation_name(JNIEnv*, jclass, jlong);
JNIEXPORT jstring JNICALL Java_org_tensorflow_Operation_type(JNIEnv*, jclass, jlong);
JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_numOutputs(JNIEnv*, jclass, jlong);
JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_outputListLength(JNIEnv*, jclass, jlong, jstring);
JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Operation_shape(JNIEnv*, jclass, jlong, jlong, jint);
JNIEXPORT jint JNICALL Java_org_tensorflow_Operation_dtype(JNIEnv*, jclass, jlong, jlong, jint);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_JNI_H_
