/* Stand-in written for tfbuild's test trees: NOT TensorFlow's operation_builder_jni.h.

The native methods of org.tensorflow.OperationBuilder.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_BUILDER_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_BUILDER_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

JNIEXPORT jlong JNICALL Java_org_tensorflow_OperationBuilder_allocate(JNIEnv*, jclass, jlong, jstring, jstring);
JNIEXPORT jlong JNICALL Java_org_tensorflow_OperationBuilder_finish(JNIEnv*, jclass, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addInput(JNIEnv*, jclass, jlong, jlong, jint);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addInputList(JNIEnv*, jclass, jlong, jlongArray, jintArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addControlInput(JNIEnv*, jclass, jlong, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setDevice(JNIEnv*, jclass, jlong, jstring);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrString(JNIEnv*, jclass, jlong, jstring, jbyteArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrInt(JNIEnv*, jclass, jlong, jstring, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrIntList(JNIEnv*, jclass, jlong, jstring, jlongArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrFloat(JNIEnv*, jclass, jlong, jstring, jfloat);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrFloatList(JNIEnv*, jclass, jlong, jstring, jfloatArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrBool(JNIEnv*, jclass, jlong, jstring, jboolean);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrBoolList(JNIEnv*, jclass, jlong, jstring, jbooleanArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrType(JNIEnv*, jclass, jlong, jstring, jint);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTypeList(JNIEnv*, jclass, jlong, jstring, jintArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTensor(JNIEnv*, jclass, jlong, jstring, jlong);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTensorList(JNIEnv*, jclass, jlong, jstring, jlongArray);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrShape(JNIEnv*, jclass, jlong, jstring, jlongArray, jint);
JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrStringList(JNIEnv*, jclass, jlong, jstring, jobjectArray);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_OPERATION_BUILDER_JNI_H_
