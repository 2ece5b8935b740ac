/* Stand-in written for tfbuild's test trees: NOT TensorFlow's saved_model_bundle_jni.cc. */

#include "tensorflow/java/src/main/native/saved_model_bundle_jni.h"

#include <string>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

JNIEXPORT jobject JNICALL Java_org_tensorflow_SavedModelBundle_load(JNIEnv* env, jclass clazz,
                                                                    jstring export_dir,
                                                                    jobjectArray tags,
                                                                    jbyteArray config,
                                                                    jbyteArray run_options) {
  TF_Status* status = TF_NewStatus();
  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Graph* graph = TF_NewGraph();
  TF_Buffer* metagraph = TF_NewBuffer();
  std::vector<std::string> tag_strings;
  const jsize ntags = env->GetArrayLength(tags);
  for (jsize i = 0; i < ntags; ++i) {
    jstring tag = static_cast<jstring>(env->GetObjectArrayElement(tags, i));
    const char* chars = env->GetStringUTFChars(tag, nullptr);
    tag_strings.push_back(chars);
    env->ReleaseStringUTFChars(tag, chars);
    env->DeleteLocalRef(tag);
  }
  std::vector<const char*> tag_pointers;
  for (const std::string& tag : tag_strings) tag_pointers.push_back(tag.c_str());
  const char* dir = env->GetStringUTFChars(export_dir, nullptr);
  TF_Session* session = TF_LoadSessionFromSavedModel(options, nullptr, dir, tag_pointers.data(),
                                                     ntags, graph, metagraph, status);
  env->ReleaseStringUTFChars(export_dir, dir);
  jobject bundle = nullptr;
  if (throwExceptionIfNotOK(env, status)) {
    jmethodID from_handle = env->GetStaticMethodID(clazz, "fromHandle", "(JJ[B)Lorg/tensorflow/SavedModelBundle;");
    jbyteArray metagraph_bytes = env->NewByteArray(static_cast<jsize>(metagraph->length));
    env->SetByteArrayRegion(metagraph_bytes, 0, static_cast<jsize>(metagraph->length),
                            static_cast<const jbyte*>(metagraph->data));
    bundle = env->CallStaticObjectMethod(clazz, from_handle, reinterpret_cast<jlong>(graph),
                                         reinterpret_cast<jlong>(session), metagraph_bytes);
    graph = nullptr;  // the bundle owns it now
  }
  TF_DeleteBuffer(metagraph);
  if (graph != nullptr) TF_DeleteGraph(graph);
  TF_DeleteSessionOptions(options);
  TF_DeleteStatus(status);
  return bundle;
}
