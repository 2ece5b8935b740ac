/* Stand-in written for tfbuild's test trees: NOT TensorFlow's exception_jni.cc. */

#include "tensorflow/java/src/main/native/exception_jni.h"

#include <stdarg.h>
#include <stdio.h>

#include "tensorflow/c/c_api.h"

const char kIllegalArgumentException[] = "java/lang/IllegalArgumentException";
const char kIllegalStateException[] = "java/lang/IllegalStateException";
const char kNullPointerException[] = "java/lang/NullPointerException";
const char kIndexOutOfBoundsException[] = "java/lang/IndexOutOfBoundsException";
const char kUnsupportedOperationException[] = "java/lang/UnsupportedOperationException";

namespace {

const char kTensorFlowException[] = "org/tensorflow/TensorFlowException";

// The exception class the Java API throws for a status code.
const char* ExceptionClass(TF_Code code) {
  switch (code) {
    case TF_OK: return nullptr;
    case TF_INVALID_ARGUMENT: return kIllegalArgumentException;
    case TF_UNAUTHENTICATED:
    case TF_PERMISSION_DENIED: return "java/lang/SecurityException";
    case TF_RESOURCE_EXHAUSTED:
    case TF_FAILED_PRECONDITION: return kIllegalStateException;
    case TF_OUT_OF_RANGE: return kIndexOutOfBoundsException;
    case TF_UNIMPLEMENTED: return kUnsupportedOperationException;
    default: return kTensorFlowException;
  }
}

}  // namespace

void throwException(JNIEnv* env, const char* clazz, const char* fmt, ...) {
  char message[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  env->ThrowNew(env->FindClass(clazz), message);
}

bool throwExceptionIfNotOK(JNIEnv* env, const TF_Status* status) {
  const char* clazz = ExceptionClass(TF_GetCode(status));
  if (clazz == nullptr) return true;
  env->ThrowNew(env->FindClass(clazz), TF_Message(status));
  return false;
}
