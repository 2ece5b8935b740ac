/* Stand-in written for tfbuild's test trees: NOT TensorFlow's run_stats_jni.cc.

RunStats' native side: a StatSummarizer per Java object, fed the serialized
RunMetadata of Session runs (TensorFlow's parses it with the generated
config.pb.h; the stand-in summarizer reads the bytes itself).
==============================================================================*/

#include "tensorflow/contrib/android/jni/run_stats_jni.h"

#include <jni.h>

#include <sstream>
#include <string>

#include "tensorflow/core/util/stat_summarizer.h"

using tensorflow::StatSummarizer;

namespace {

StatSummarizer* requireHandle(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    env->ThrowNew(env->FindClass("java/lang/IllegalStateException"),
                  "close() has been called on the RunStats object");
    return nullptr;
  }
  return reinterpret_cast<StatSummarizer*>(handle);
}

}  // namespace

#define RUN_STATS_METHOD(name) JNICALL Java_org_tensorflow_contrib_android_RunStats_##name

JNIEXPORT jlong RUN_STATS_METHOD(allocate)(JNIEnv* env, jclass clazz) {
  static_assert(sizeof(jlong) >= sizeof(StatSummarizer*), "a pointer must fit in a Java long");
  tensorflow::StatSummarizerOptions options;
  return reinterpret_cast<jlong>(new StatSummarizer(options));
}

JNIEXPORT void RUN_STATS_METHOD(delete)(JNIEnv* env, jclass clazz, jlong handle) {
  if (handle == 0) return;
  delete reinterpret_cast<StatSummarizer*>(handle);
}

JNIEXPORT void RUN_STATS_METHOD(add)(JNIEnv* env, jclass clazz, jlong handle,
                                     jbyteArray run_metadata) {
  StatSummarizer* summarizer = requireHandle(env, handle);
  if (summarizer == nullptr) return;
  jbyte* data = env->GetByteArrayElements(run_metadata, nullptr);
  const std::string bytes(reinterpret_cast<const char*>(data),
                          static_cast<size_t>(env->GetArrayLength(run_metadata)));
  env->ReleaseByteArrayElements(run_metadata, data, JNI_ABORT);
  if (!summarizer->ProcessRunMetadata(bytes)) {
    env->ThrowNew(env->FindClass("java/lang/IllegalArgumentException"),
                  "runMetadata does not seem to be a serialized RunMetadata protocol message");
  }
}

JNIEXPORT jstring RUN_STATS_METHOD(summary)(JNIEnv* env, jclass clazz, jlong handle) {
  StatSummarizer* summarizer = requireHandle(env, handle);
  if (summarizer == nullptr) return nullptr;
  std::stringstream summary;
  summary << summarizer->GetStatsByMetric("Top 10 CPU", StatSummarizer::BY_TIME, 10)
          << summarizer->GetStatsByNodeType() << summarizer->ShortSummary();
  return env->NewStringUTF(summary.str().c_str());
}

#undef RUN_STATS_METHOD
