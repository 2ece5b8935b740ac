/* Stand-in written for tfbuild's test trees: NOT TensorFlow's run_stats_jni.h.

The native methods of org.tensorflow.contrib.android.RunStats.
==============================================================================*/

#ifndef ORG_TENSORFLOW_JNI_RUN_STATS_JNI_H_
#define ORG_TENSORFLOW_JNI_RUN_STATS_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif  // __cplusplus

#define RUN_STATS_METHOD(name) Java_org_tensorflow_contrib_android_RunStats_##name

JNIEXPORT JNICALL jlong RUN_STATS_METHOD(allocate)(JNIEnv*, jclass);
JNIEXPORT JNICALL void RUN_STATS_METHOD(delete)(JNIEnv*, jclass, jlong);
JNIEXPORT JNICALL void RUN_STATS_METHOD(add)(JNIEnv*, jclass, jlong, jbyteArray);
JNIEXPORT JNICALL jstring RUN_STATS_METHOD(summary)(JNIEnv*, jclass, jlong);

#undef RUN_STATS_METHOD

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  // ORG_TENSORFLOW_JNI_RUN_STATS_JNI_H_
