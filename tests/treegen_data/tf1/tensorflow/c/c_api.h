/* Stand-in written for tfbuild's test trees: NOT TensorFlow's c_api.h.

The part of TensorFlow 1.x's C API that the Java API's JNI sources
(tensorflow/java/src/main/native) call, with TensorFlow's names and
signatures: TF_Status, TF_Buffer, TF_Tensor (TF_NewTensor, TF_AllocateTensor,
TF_TensorData, TF_Dim, ... and the string encoding), TF_Graph and TF_Operation
(TF_GraphImportGraphDef, TF_GraphToGraphDef, TF_GraphOperationByName,
TF_GraphNextOperation, TF_NewOperation ... TF_FinishOperation), TF_Session
(TF_NewSession, TF_SessionRun with feeds and fetches named by operation and
output index, TF_CloseSession, TF_DeleteSession) and TF_Version. The stand-in
runs graphs through the tree's stand-in C++ session (public/session.h).
==============================================================================*/

#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

// Symbols the shared library exports, as in TensorFlow.
#ifdef SWIG
#define TF_CAPI_EXPORT
#else
#if defined(_WIN32)
#ifdef TF_COMPILE_LIBRARY
#define TF_CAPI_EXPORT __declspec(dllexport)
#else
#define TF_CAPI_EXPORT __declspec(dllimport)
#endif  // TF_COMPILE_LIBRARY
#else
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif  // _WIN32
#endif  // SWIG

#ifdef __cplusplus
extern "C" {
#endif

// The library's version, e.g. "1.12.0".
TF_CAPI_EXPORT extern const char* TF_Version(void);

// The data types of tensors, numbered as in types.proto.
typedef enum TF_DataType {
  TF_FLOAT = 1,
  TF_DOUBLE = 2,
  TF_INT32 = 3,
  TF_UINT8 = 4,
  TF_INT16 = 5,
  TF_INT8 = 6,
  TF_STRING = 7,
  TF_COMPLEX64 = 8,
  TF_COMPLEX = 8,
  TF_INT64 = 9,
  TF_BOOL = 10,
  TF_QINT8 = 11,
  TF_QUINT8 = 12,
  TF_QINT32 = 13,
  TF_BFLOAT16 = 14,
  TF_QINT16 = 15,
  TF_QUINT16 = 16,
  TF_UINT16 = 17,
  TF_COMPLEX128 = 18,
  TF_HALF = 19,
  TF_RESOURCE = 20,
  TF_VARIANT = 21,
  TF_UINT32 = 22,
  TF_UINT64 = 23,
} TF_DataType;

// Bytes of one element of `dt`; 0 for variable-length types (TF_STRING).
TF_CAPI_EXPORT extern size_t TF_DataTypeSize(TF_DataType dt);

// Status codes, as in error_codes.proto.
typedef enum TF_Code {
  TF_OK = 0,
  TF_CANCELLED = 1,
  TF_UNKNOWN = 2,
  TF_INVALID_ARGUMENT = 3,
  TF_DEADLINE_EXCEEDED = 4,
  TF_NOT_FOUND = 5,
  TF_ALREADY_EXISTS = 6,
  TF_PERMISSION_DENIED = 7,
  TF_UNAUTHENTICATED = 16,
  TF_RESOURCE_EXHAUSTED = 8,
  TF_FAILED_PRECONDITION = 9,
  TF_ABORTED = 10,
  TF_OUT_OF_RANGE = 11,
  TF_UNIMPLEMENTED = 12,
  TF_INTERNAL = 13,
  TF_UNAVAILABLE = 14,
  TF_DATA_LOSS = 15,
} TF_Code;

// --------------------------------------------------------------------------
// TF_Status: the outcome of a call, a code and a message.
typedef struct TF_Status TF_Status;

TF_CAPI_EXPORT extern TF_Status* TF_NewStatus(void);
TF_CAPI_EXPORT extern void TF_DeleteStatus(TF_Status*);
TF_CAPI_EXPORT extern void TF_SetStatus(TF_Status* s, TF_Code code, const char* msg);
TF_CAPI_EXPORT extern TF_Code TF_GetCode(const TF_Status* s);
// The message of a status that is not TF_OK; "" for TF_OK. Valid until the
// status changes or is deleted.
TF_CAPI_EXPORT extern const char* TF_Message(const TF_Status* s);

// --------------------------------------------------------------------------
// TF_Buffer: bytes passed in and out of the library (serialized protos).
typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

// --------------------------------------------------------------------------
// TF_Tensor: a typed, shaped buffer in the host's byte order. A TF_STRING
// tensor holds one uint64 offset per element, then the elements encoded by
// TF_StringEncode.
typedef struct TF_Tensor TF_Tensor;

TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg),
    void* deallocator_arg);
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType, const int64_t* dims,
                                                   int num_dims, size_t len);
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);
TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);
TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

// Writes `src` (src_len bytes) to `dst` as a varint length and the bytes;
// returns the bytes written, or 0 with an error in `status`.
TF_CAPI_EXPORT extern size_t TF_StringEncode(const char* src, size_t src_len, char* dst,
                                             size_t dst_len, TF_Status* status);
// Reads what TF_StringEncode wrote: *dst points into `src`. Returns the bytes
// read, or 0 with an error in `status`.
TF_CAPI_EXPORT extern size_t TF_StringDecode(const char* src, size_t src_len, const char** dst,
                                             size_t* dst_len, TF_Status* status);
TF_CAPI_EXPORT extern size_t TF_StringEncodedSize(size_t len);

// --------------------------------------------------------------------------
// TF_SessionOptions.
typedef struct TF_SessionOptions TF_SessionOptions;

TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options, const char* target);
// `proto` is a serialized ConfigProto; the stand-in keeps it and uses none of it.
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                                        size_t proto_len, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions*);

// --------------------------------------------------------------------------
// TF_Graph, its operations (TF_Operation) and their outputs and inputs.
typedef struct TF_Graph TF_Graph;
typedef struct TF_OperationDescription TF_OperationDescription;
typedef struct TF_Operation TF_Operation;

typedef struct TF_Input {
  TF_Operation* oper;
  int index;
} TF_Input;

typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);
// Deletes the graph once no session uses it any more.
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph*);

// The rank of `output`'s shape, -1 when unknown.
TF_CAPI_EXPORT extern int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output,
                                                   TF_Status* status);
// The sizes of `output`'s dimensions (-1: unknown); num_dims must be its rank.
TF_CAPI_EXPORT extern void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  TF_Status* status);

TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperation(TF_Graph* graph,
                                                               const char* op_type,
                                                               const char* oper_name);
TF_CAPI_EXPORT extern void TF_SetDevice(TF_OperationDescription* desc, const char* device);
TF_CAPI_EXPORT extern void TF_AddInput(TF_OperationDescription* desc, TF_Output input);
TF_CAPI_EXPORT extern void TF_AddInputList(TF_OperationDescription* desc,
                                           const TF_Output* inputs, int num_inputs);
TF_CAPI_EXPORT extern void TF_AddControlInput(TF_OperationDescription* desc,
                                              TF_Operation* input);
TF_CAPI_EXPORT extern void TF_SetAttrString(TF_OperationDescription* desc,
                                            const char* attr_name, const void* value,
                                            size_t length);
TF_CAPI_EXPORT extern void TF_SetAttrStringList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths, int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name,
                                         int64_t value);
TF_CAPI_EXPORT extern void TF_SetAttrIntList(TF_OperationDescription* desc,
                                             const char* attr_name, const int64_t* values,
                                             int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrFloat(TF_OperationDescription* desc,
                                           const char* attr_name, float value);
TF_CAPI_EXPORT extern void TF_SetAttrFloatList(TF_OperationDescription* desc,
                                               const char* attr_name, const float* values,
                                               int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrBool(TF_OperationDescription* desc, const char* attr_name,
                                          unsigned char value);
TF_CAPI_EXPORT extern void TF_SetAttrBoolList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values, int num_values);
TF_CAPI_EXPORT extern void TF_SetAttrType(TF_OperationDescription* desc, const char* attr_name,
                                          TF_DataType value);
TF_CAPI_EXPORT extern void TF_SetAttrTypeList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const TF_DataType* values, int num_values);
// num_dims -1: unknown rank.
TF_CAPI_EXPORT extern void TF_SetAttrShape(TF_OperationDescription* desc,
                                           const char* attr_name, const int64_t* dims,
                                           int num_dims);
TF_CAPI_EXPORT extern void TF_SetAttrTensor(TF_OperationDescription* desc,
                                            const char* attr_name, TF_Tensor* value,
                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_SetAttrTensorList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                TF_Tensor* const* values, int num_values,
                                                TF_Status* status);
// Adds the operation to the graph (and frees `desc`); nullptr on error.
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperation(TF_OperationDescription* desc,
                                                       TF_Status* status);

TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationOpType(TF_Operation* oper);
TF_CAPI_EXPORT extern const char* TF_OperationDevice(TF_Operation* oper);
TF_CAPI_EXPORT extern int TF_OperationNumOutputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_DataType TF_OperationOutputType(TF_Output oper_out);
TF_CAPI_EXPORT extern int TF_OperationOutputListLength(TF_Operation* oper,
                                                       const char* arg_name,
                                                       TF_Status* status);
TF_CAPI_EXPORT extern int TF_OperationNumInputs(TF_Operation* oper);
TF_CAPI_EXPORT extern TF_Output TF_OperationInput(TF_Input oper_in);

// nullptr when the graph has no operation of that name.
TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(TF_Graph* graph,
                                                            const char* oper_name);
// Iterates over the graph's operations: start with *pos == 0; nullptr at the end.
TF_CAPI_EXPORT extern TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos);
// Writes the graph as a serialized GraphDef into `output_graph_def`.
TF_CAPI_EXPORT extern void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                                              TF_Status* status);

typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;

TF_CAPI_EXPORT extern TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts);
// Prefixes the imported nodes' names with "<prefix>/".
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                                             const char* prefix);
// Imports the serialized GraphDef `graph_def` into `graph`.
TF_CAPI_EXPORT extern void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                                                  const TF_ImportGraphDefOptions* options,
                                                  TF_Status* status);

// --------------------------------------------------------------------------
// TF_Session: runs a TF_Graph.
typedef struct TF_Session TF_Session;

TF_CAPI_EXPORT extern TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                                                TF_Status* status);
// Loading a SavedModel: Unimplemented on Android, as in TensorFlow 1.x.
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len, TF_Graph* graph,
    TF_Buffer* meta_graph_def, TF_Status* status);
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session*, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session*, TF_Status* status);
// Feeds input_values[i] to inputs[i], computes outputs into output_values (the
// caller deletes them) and runs target_opers. run_options and run_metadata
// (serialized RunOptions / RunMetadata) may be nullptr.
TF_CAPI_EXPORT extern void TF_SessionRun(
    TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
    TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
    TF_Tensor** output_values, int noutputs, const TF_Operation* const* target_opers,
    int ntargets, TF_Buffer* run_metadata, TF_Status* status);

// --------------------------------------------------------------------------
// The OpList (serialized) of the ops registered in this library.
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

// A custom-op library, loaded with dlopen: its ops register in this library.
typedef struct TF_Library TF_Library;
TF_CAPI_EXPORT extern TF_Library* TF_LoadLibrary(const char* library_filename, TF_Status* status);
// The OpList (serialized) of the ops the library registered; owned by the handle.
TF_CAPI_EXPORT extern TF_Buffer TF_GetOpList(TF_Library* lib_handle);
TF_CAPI_EXPORT extern void TF_DeleteLibraryHandle(TF_Library* lib_handle);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif  // TENSORFLOW_C_C_API_H_
