/* Stand-in written for tfbuild's test trees: NOT TensorFlow's session_jni.h.

The native methods of org.tensorflow.Session.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_SESSION_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_SESSION_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jlong JNICALL Java_org_tensorflow_Session_allocate(JNIEnv*, jclass, jlong);
JNIEXPORT jlong JNICALL Java_org_tensorflow_Session_allocate2(JNIEnv*, jclass, jlong, jstring, jbyteArray);
JNIEXPORT void JNICALL Java_org_tensorflow_Session_delete(JNIEnv*, jclass, jlong);
JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Session_run(JNIEnv*, jclass, jlong, jbyteArray, jlongArray, jlongArray, jintArray, jlongArray, jintArray, jlongArray, jboolean, jlongArray);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_SESSION_JNI_H_
