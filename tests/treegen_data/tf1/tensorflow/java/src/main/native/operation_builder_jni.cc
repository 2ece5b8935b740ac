/* Stand-in written for tfbuild's test trees: NOT TensorFlow's operation_builder_jni.cc. */

#include "tensorflow/java/src/main/native/operation_builder_jni.h"

#include <string>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/java/src/main/native/exception_jni.h"

namespace {

TF_OperationDescription* requireHandle(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    throwException(env, kIllegalStateException,
                   "Operation has already been built");
    return nullptr;
  }
  return reinterpret_cast<TF_OperationDescription*>(handle);
}

TF_Operation* requireOperation(JNIEnv* env, jlong handle) {
  if (handle == 0) {
    throwException(env, kIllegalStateException, "close() has been called on the Graph");
    return nullptr;
  }
  return reinterpret_cast<TF_Operation*>(handle);
}

// A jstring's characters for the length of a scope.
class UTFChars {
 public:
  UTFChars(JNIEnv* env, jstring string)
      : env_(env), string_(string), chars_(env->GetStringUTFChars(string, nullptr)) {}
  ~UTFChars() { env_->ReleaseStringUTFChars(string_, chars_); }
  const char* get() const { return chars_; }

 private:
  JNIEnv* env_;
  jstring string_;
  const char* chars_;
};

}  // namespace

JNIEXPORT jlong JNICALL Java_org_tensorflow_OperationBuilder_allocate(JNIEnv* env, jclass,
                                                                      jlong graph_handle,
                                                                      jstring type, jstring name) {
  if (graph_handle == 0) {
    throwException(env, kIllegalStateException, "close() has been called on the Graph");
    return 0;
  }
  UTFChars op_type(env, type), op_name(env, name);
  return reinterpret_cast<jlong>(
      TF_NewOperation(reinterpret_cast<TF_Graph*>(graph_handle), op_type.get(), op_name.get()));
}

JNIEXPORT jlong JNICALL Java_org_tensorflow_OperationBuilder_finish(JNIEnv* env, jclass,
                                                                    jlong handle) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return 0;
  TF_Status* status = TF_NewStatus();
  TF_Operation* oper = TF_FinishOperation(desc, status);
  const bool ok = throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
  return ok ? reinterpret_cast<jlong>(oper) : 0;
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addInput(JNIEnv* env, jclass,
                                                                     jlong handle, jlong op_handle,
                                                                     jint index) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  TF_Operation* oper = requireOperation(env, op_handle);
  if (desc == nullptr || oper == nullptr) return;
  TF_AddInput(desc, TF_Output{oper, index});
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addInputList(JNIEnv* env, jclass,
                                                                         jlong handle,
                                                                         jlongArray op_handles,
                                                                         jintArray indices) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  const jsize n = env->GetArrayLength(op_handles);
  if (env->GetArrayLength(indices) != n) {
    throwException(env, kIllegalArgumentException,
                   "mismatch in number of Operations (%d) and output indices (%d) provided", n,
                   env->GetArrayLength(indices));
    return;
  }
  std::vector<jlong> opers(static_cast<size_t>(n) + 1);
  std::vector<jint> outputs(static_cast<size_t>(n) + 1);
  env->GetLongArrayRegion(op_handles, 0, n, opers.data());
  env->GetIntArrayRegion(indices, 0, n, outputs.data());
  std::vector<TF_Output> inputs;
  for (jsize i = 0; i < n; ++i) {
    TF_Operation* oper = requireOperation(env, opers[i]);
    if (oper == nullptr) return;
    inputs.push_back(TF_Output{oper, outputs[i]});
  }
  TF_AddInputList(desc, inputs.data(), n);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_addControlInput(JNIEnv* env, jclass,
                                                                            jlong handle,
                                                                            jlong op_handle) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  TF_Operation* oper = requireOperation(env, op_handle);
  if (desc == nullptr || oper == nullptr) return;
  TF_AddControlInput(desc, oper);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setDevice(JNIEnv* env, jclass,
                                                                      jlong handle, jstring device) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars chars(env, device);
  TF_SetDevice(desc, chars.get());
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrString(JNIEnv* env, jclass,
                                                                          jlong handle, jstring name,
                                                                          jbyteArray value) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  jbyte* bytes = env->GetByteArrayElements(value, nullptr);
  TF_SetAttrString(desc, attr.get(), bytes, static_cast<size_t>(env->GetArrayLength(value)));
  env->ReleaseByteArrayElements(value, bytes, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrInt(JNIEnv* env, jclass,
                                                                       jlong handle, jstring name,
                                                                       jlong value) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  TF_SetAttrInt(desc, attr.get(), static_cast<int64_t>(value));
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrIntList(JNIEnv* env, jclass,
                                                                           jlong handle,
                                                                           jstring name,
                                                                           jlongArray values) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  const jsize n = env->GetArrayLength(values);
  std::vector<jlong> longs(static_cast<size_t>(n) + 1);
  env->GetLongArrayRegion(values, 0, n, longs.data());
  std::vector<int64_t> ints(longs.begin(), longs.begin() + n);
  TF_SetAttrIntList(desc, attr.get(), ints.data(), n);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrFloat(JNIEnv* env, jclass,
                                                                         jlong handle, jstring name,
                                                                         jfloat value) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  TF_SetAttrFloat(desc, attr.get(), value);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrFloatList(JNIEnv* env, jclass,
                                                                             jlong handle,
                                                                             jstring name,
                                                                             jfloatArray values) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  const jsize n = env->GetArrayLength(values);
  std::vector<float> floats(static_cast<size_t>(n) + 1);
  env->GetFloatArrayRegion(values, 0, n, floats.data());
  TF_SetAttrFloatList(desc, attr.get(), floats.data(), n);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrBool(JNIEnv* env, jclass,
                                                                        jlong handle, jstring name,
                                                                        jboolean value) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  TF_SetAttrBool(desc, attr.get(), static_cast<unsigned char>(value));
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrBoolList(JNIEnv* env, jclass,
                                                                            jlong handle,
                                                                            jstring name,
                                                                            jbooleanArray values) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  const jsize n = env->GetArrayLength(values);
  std::vector<jboolean> bools(static_cast<size_t>(n) + 1);
  env->GetBooleanArrayRegion(values, 0, n, bools.data());
  std::vector<unsigned char> bytes(bools.begin(), bools.begin() + n);
  TF_SetAttrBoolList(desc, attr.get(), bytes.data(), n);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrType(JNIEnv* env, jclass,
                                                                        jlong handle, jstring name,
                                                                        jint type) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  TF_SetAttrType(desc, attr.get(), static_cast<TF_DataType>(type));
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTypeList(JNIEnv* env, jclass,
                                                                            jlong handle,
                                                                            jstring name,
                                                                            jintArray types) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  UTFChars attr(env, name);
  const jsize n = env->GetArrayLength(types);
  std::vector<jint> codes(static_cast<size_t>(n) + 1);
  env->GetIntArrayRegion(types, 0, n, codes.data());
  std::vector<TF_DataType> dtypes;
  for (jsize i = 0; i < n; ++i) dtypes.push_back(static_cast<TF_DataType>(codes[i]));
  TF_SetAttrTypeList(desc, attr.get(), dtypes.data(), n);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTensor(JNIEnv* env, jclass,
                                                                          jlong handle, jstring name,
                                                                          jlong tensor_handle) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  if (tensor_handle == 0) {
    throwException(env, kIllegalStateException, "close() has been called on the Tensor");
    return;
  }
  UTFChars attr(env, name);
  TF_Status* status = TF_NewStatus();
  TF_SetAttrTensor(desc, attr.get(), reinterpret_cast<TF_Tensor*>(tensor_handle), status);
  throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrTensorList(JNIEnv* env, jclass,
                                                                              jlong handle,
                                                                              jstring name,
                                                                              jlongArray tensor_handles) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  const jsize n = env->GetArrayLength(tensor_handles);
  std::vector<jlong> handles(static_cast<size_t>(n) + 1);
  env->GetLongArrayRegion(tensor_handles, 0, n, handles.data());
  std::vector<TF_Tensor*> tensors;
  for (jsize i = 0; i < n; ++i) {
    if (handles[i] == 0) {
      throwException(env, kIllegalStateException, "close() has been called on the Tensor");
      return;
    }
    tensors.push_back(reinterpret_cast<TF_Tensor*>(handles[i]));
  }
  UTFChars attr(env, name);
  TF_Status* status = TF_NewStatus();
  TF_SetAttrTensorList(desc, attr.get(), tensors.data(), n, status);
  throwExceptionIfNotOK(env, status);
  TF_DeleteStatus(status);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrShape(JNIEnv* env, jclass,
                                                                         jlong handle, jstring name,
                                                                         jlongArray shape,
                                                                         jint num_dims) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  std::vector<int64_t> dims;
  // num_dims < 0 (an unknown rank) comes with a null shape.
  if (num_dims > 0) {
    std::vector<jlong> sizes(static_cast<size_t>(num_dims));
    env->GetLongArrayRegion(shape, 0, num_dims, sizes.data());
    dims.assign(sizes.begin(), sizes.end());
  }
  UTFChars attr(env, name);
  TF_SetAttrShape(desc, attr.get(), dims.data(), num_dims);
}

JNIEXPORT void JNICALL Java_org_tensorflow_OperationBuilder_setAttrStringList(JNIEnv* env, jclass,
                                                                              jlong handle,
                                                                              jstring name,
                                                                              jobjectArray values) {
  TF_OperationDescription* desc = requireHandle(env, handle);
  if (desc == nullptr) return;
  const jsize n = env->GetArrayLength(values);
  std::vector<std::string> strings;
  for (jsize i = 0; i < n; ++i) {
    jbyteArray element = static_cast<jbyteArray>(env->GetObjectArrayElement(values, i));
    const jsize length = env->GetArrayLength(element);
    std::string bytes(static_cast<size_t>(length), '\0');
    if (length > 0) env->GetByteArrayRegion(element, 0, length, reinterpret_cast<jbyte*>(&bytes[0]));
    strings.push_back(bytes);
    env->DeleteLocalRef(element);
  }
  std::vector<const void*> pointers;
  std::vector<size_t> lengths;
  for (const std::string& bytes : strings) {
    pointers.push_back(bytes.data());
    lengths.push_back(bytes.size());
  }
  UTFChars attr(env, name);
  TF_SetAttrStringList(desc, attr.get(), pointers.data(), lengths.data(), n);
}
