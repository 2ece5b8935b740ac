/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensorflow_jni.h.

The native methods of org.tensorflow.TensorFlow.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSORFLOW_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSORFLOW_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jstring JNICALL Java_org_tensorflow_TensorFlow_version(JNIEnv*, jclass);
JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_TensorFlow_registeredOpList(JNIEnv*, jclass);
JNIEXPORT jlong JNICALL Java_org_tensorflow_TensorFlow_libraryLoad(JNIEnv*, jclass, jstring);
JNIEXPORT void JNICALL Java_org_tensorflow_TensorFlow_libraryDelete(JNIEnv*, jclass, jlong);
JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_TensorFlow_libraryOpList(JNIEnv*, jclass, jlong);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSORFLOW_JNI_H_
