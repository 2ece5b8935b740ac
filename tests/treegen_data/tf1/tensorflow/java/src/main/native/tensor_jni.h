/* Stand-in written for tfbuild's test trees: NOT TensorFlow's tensor_jni.h.

The native methods of org.tensorflow.Tensor.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSOR_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSOR_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocate(JNIEnv*, jclass, jint, jlongArray, jlong);
JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocateScalarBytes(JNIEnv*, jclass, jbyteArray);
JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_allocateNonScalarBytes(JNIEnv*, jclass, jlongArray, jobjectArray);
JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_delete(JNIEnv*, jclass, jlong);
JNIEXPORT jobject JNICALL Java_org_tensorflow_Tensor_buffer(JNIEnv*, jclass, jlong);
JNIEXPORT jint JNICALL Java_org_tensorflow_Tensor_dtype(JNIEnv*, jclass, jlong);
JNIEXPORT jlongArray JNICALL Java_org_tensorflow_Tensor_shape(JNIEnv*, jclass, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_setValue(JNIEnv*, jclass, jlong, jobject);
JNIEXPORT jfloat JNICALL Java_org_tensorflow_Tensor_scalarFloat(JNIEnv*, jclass, jlong);
JNIEXPORT jdouble JNICALL Java_org_tensorflow_Tensor_scalarDouble(JNIEnv*, jclass, jlong);
JNIEXPORT jint JNICALL Java_org_tensorflow_Tensor_scalarInt(JNIEnv*, jclass, jlong);
JNIEXPORT jlong JNICALL Java_org_tensorflow_Tensor_scalarLong(JNIEnv*, jclass, jlong);
JNIEXPORT jboolean JNICALL Java_org_tensorflow_Tensor_scalarBoolean(JNIEnv*, jclass, jlong);
JNIEXPORT jbyteArray JNICALL Java_org_tensorflow_Tensor_scalarBytes(JNIEnv*, jclass, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_Tensor_readNDArray(JNIEnv*, jclass, jlong, jobject);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_TENSOR_JNI_H_
