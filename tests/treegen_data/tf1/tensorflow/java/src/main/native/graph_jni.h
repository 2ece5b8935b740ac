/* Stand-in written for tfbuild's test trees: NOT TensorFlow's graph_jni.h.

The native methods of org.tensorflow.Graph.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_GRAPH_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_GRAPH_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jlong JNICALL Java_org_tensorflow_Graph_allocate(JNIEnv*, jclass);
JNIEXPORT void JNICALL Java_org_tensorflow_Graph_delete(JNIEnv*, jclass, jlong);
JNIEXPORT jlong JNICALL Java_org_tensorflow_Graph_operation(JNIEnv*, jclass, jlong, jstring);
JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Graph_nextOperation(JNIEnv*, jclass, jlong, jint);
JNIEXPORT void JNICALL Java_org_tensorflow_Graph_importGraphDef(JNIEnv*, jclass, jlong, jbyteArray, jstring);
JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Graph_toGraphDef(JNIEnv*, jclass, jlong);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_GRAPH_JNI_H_
