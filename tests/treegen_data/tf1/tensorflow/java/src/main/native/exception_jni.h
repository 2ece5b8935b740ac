/* Stand-in written for tfbuild's test trees: NOT TensorFlow's exception_jni.h.

Throwing Java exceptions from the native methods, and TF_Status codes mapped to
the exception classes the Java API documents.
==============================================================================*/

#ifndef TENSORFLOW_JAVA_SRC_MAIN_NATIVE_EXCEPTION_JNI_H_
#define TENSORFLOW_JAVA_SRC_MAIN_NATIVE_EXCEPTION_JNI_H_

#include <jni.h>

#ifdef __cplusplus
extern "C" {
#endif

struct TF_Status;

extern const char kIllegalArgumentException[];
extern const char kIllegalStateException[];
extern const char kNullPointerException[];
extern const char kIndexOutOfBoundsException[];
extern const char kUnsupportedOperationException[];

// Throws a new `clazz` (a JNI class name) with the printf-style message.
void throwException(JNIEnv* env, const char* clazz, const char* fmt, ...);

// Throws the exception `status` stands for and returns false; true when it is OK.
bool throwExceptionIfNotOK(JNIEnv* env, const TF_Status* status);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus
#endif  // TENSORFLOW_JAVA_SRC_MAIN_NATIVE_EXCEPTION_JNI_H_
