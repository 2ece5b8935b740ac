"""Small TensorFlow-shaped source trees, as git repositories, for tests and benchmarks.

The trees have TensorFlow's paths, macro forms, BUILD target names and list formats, as the
real releases have them, so code that works on them has a chance on a real checkout:

- ``make_tf1_tree``: a TF 1.12-era tree. ``tensorflow/contrib/makefile`` (Makefile,
  tf_op_files.txt, the dependency scripts), ``android_*`` filegroups, ``configure.py`` with
  ``check_bazel_version('0.19.0', '0.20.0')``, ``_SUPPORTED_ANDROID_NDK_VERSIONS = [10, ..., 18]``
  and the ``ANDROID_NDK_API_LEVEL`` prompt (default ``'18'``). Two tagged commits: ``v1.12.0`` and ``v1.13.0``
  (version bump plus a new kernel file, ``cwise_op_squared_difference.cc``); HEAD at the second.
- ``make_tf2_tree``: a later 2.x tree. ``portable_*`` filegroups, ``.bazelversion``, no
  ``contrib/makefile``, a configure.py that states no NDK facts (tfbuild's table answers); ``register_kernel::Name`` also checks ``SHOULD_REGISTER_OP`` as in 2.x.
- ``make_tf2_makefile_tree``: TF 2.0.0, the last release with ``contrib/makefile``: the tf1 tree
  with the ``tf2_makefile`` layer over it, shaped like a real v2.0.0 checkout where tfbuild reads
  it. version.h says 2.0.0 (so every fix-up for ``[1.4, 2.1)`` applies); configure.py names its
  Bazel range in ``_TF_MIN/_TF_MAX_BAZEL_VERSION`` constants (0.24.1, 0.26.1) with NDK r10-r18
  and API level 18; workspace.bzl pins protobuf to a commit (310ba5ee, after 3.8.0: no Google Mock
  download, ``subdirs`` is ``third_party/googletest``, as the tf1 stand-in's protobuf already is);
  the Java API's natives call the eager C API (``eager_operation_builder_jni.cc``, so
  ``--java-api tensorflow`` is refused and ``--java-api tfbuild`` builds); and
  ``tf_proto_files.txt`` lists a ``test_log.proto`` that imports ``google/protobuf/wrappers.proto``
  (so ``--protobuf-runtime lite`` is refused). Its Makefile is the tf1 one: the real 2.0.0
  Makefile is byte-identical to 1.15.5's.
- ``make_large_tree``: a tf1 tree plus thousands of generated kernel files (benchmarks).

The kernels compile: the tree carries a small stand-in framework under
``tensorflow/core/framework`` (op_kernel.h, op.h, register_types.h, selective_registration.h,
types.h). ``REGISTER_KERNEL_BUILDER`` stringifies its class argument like TensorFlow's
(``#__VA_ARGS__``) and keeps or drops the kernel on ``SHOULD_REGISTER_OP_KERNEL`` at compile
time; with ``-DSELECTIVE_REGISTRATION`` it includes ``ops_to_register.h`` found next to
``selective_registration.h`` (``tensorflow/core/framework/ops_to_register.h``), as in TF.
The library exports ``TfStandinRegisteredKernels()`` / ``TfStandinRegisteredOps()``, and
``tensorflow/tools/benchmark/benchmark_model_main.cc`` prints them
(``kernel<TAB>op<TAB>device<TAB>class`` and ``op<TAB>name`` lines): it is the ``benchmark``
binary of the Makefile build and ``//tensorflow/tools/benchmark:benchmark_model`` in Bazel.
The tf1 tree also has a stand-in of TF 1.x's C++ session API (``public/session.h``,
``framework/tensor.h``, ``graph.pb.h``, ``platform/env.h``; ``framework/session_standin.cc`` is
in the Makefile's library), so ``tfbuild verify``'s C++ runner compiles and links against a
build: it reads binary GraphDefs, feeds Placeholders and forwards Identity once the library has
an Identity CPU kernel (the kernels compute nothing), and refuses ops without a registered kernel.

The tf1 tree's Makefile builds protos as r1.9's does: ``tf_proto_files.txt`` lists one real
``.proto`` (``PROTO``), which ``$(PROTOC)`` (``gen/protobuf-host/bin/protoc`` once it exists)
turns into ``gen/proto/...pb.{h,cc}``, compiled into the library. Its protobuf is a stand-in
written by ``download_dependencies.sh`` and built by autoconf-style ``./configure`` and make
(``compile_linux_protobuf.sh`` for the host, into ``gen/protobuf`` with ``gen/protobuf-host``
linked to it; tfbuild's cross builds for the other targets): ``libprotobuf.a``,
``libprotobuf-lite.a``, the headers, and ``protoc``, a script with protoc's C++ generator for
messages of scalar fields, ``--cpp_out DIR`` or ``--cpp_out lite:DIR``. Full classes derive from
``Message`` and print themselves (``DebugString()``) without the library; lite ones derive from
``MessageLite``, have no ``DebugString()``, and register with ``RegisterLiteMessage``, which
only ``libprotobuf-lite.a`` defines, so a lite build that links ``libprotobuf.a`` fails to link
(the real full library holds the lite runtime too; a full build links what it did before).
What a build for the lite runtime depends on is there too: ``platform/env.cc``
(``LITE_SWITCH_SOURCE``, in the library) with TensorFlow's ``TENSORFLOW_LITE_PROTOS`` switch,
``grappler/grappler_item.cc`` (``GRAPPLER_SOURCE``, in the library), which calls
``DebugString()``, ``common_runtime/graph_execution_state.cc`` (``GRAPPLER_CALLER``, not
compiled), which includes grappler only ``#ifndef IS_MOBILE_PLATFORM``, and
``util/proto/local_descriptor_pool_registration.cc`` (``PROTO_OPS_SOURCE``, in the library),
which takes the full runtime's ``DescriptorPool::generated_pool()`` (inline in the stand-in's
``descriptor.h``, which the tree's ``platform/protobuf.h`` includes only without the switch). The
Makefile's
benchmark also links ``tools/benchmark/benchmark_model.cc``, whose ``ReadTextProto`` fallback
takes env.h's one overload (the full ``Message``), as TensorFlow's does; after the kernel and
op lines the benchmark prints ``protobuf runtime: full|lite`` and ``text protos: <status>``.

The tf1 tree also carries TensorFlow 1.x's Android Java API and its recipe, at their r1.9 paths
(constants ``CMAKE_RECIPE`` ... ``DEMO_SOURCES`` below), all written for the tests (stand-ins with
TensorFlow's paths, class names, public signatures, native method names and JNI symbols):
``tensorflow/contrib/android/cmake/CMakeLists.txt`` builds ``libtensorflow_inference.so`` as r1.9's
does (``file(GLOB ...)`` of ``../jni/*.cc`` and ``tensorflow/java/src/main/native/*.cc``, the four
``tensorflow/c`` sources, ``-DIS_SLIM_BUILD`` and the protobuf defines, ``lib_tf``/``lib_proto``/
``lib_nsync`` from ``contrib/makefile/gen``), and ``build.gradle`` beside it compiles
``contrib/android/java`` and ``java/src/main/java`` less ``**/examples/**``. The Java API
(``org.tensorflow``: Graph, Session, Tensor, Tensors, Operation, OperationBuilder, Output, Shape,
DataType, TensorFlow, SavedModelBundle, ``types.UInt8``) calls its natives in
``java/src/main/native`` (``Java_org_tensorflow_*``), which call a stand-in C API
(``tensorflow/c/c_api.h``: TF_Graph, TF_GraphImportGraphDef, TF_SessionRun, TF_Tensor, ...) over
the stand-in session above; ``c_api.cc`` is guarded as r1.9's, ``#ifndef __ANDROID__`` around
``tensorflow/cc`` headers the tree lacks (so off Android it compiles only from a copy whose guards
also hold for ``IS_SLIM_BUILD``) and around the SavedModel loader's, which it has
(``SAVED_MODEL_LOADER``, outside the Makefile's library, including the generated code of
``SAVED_MODEL_PROTO``, which ``tf_proto_files.txt`` does not list, as in r1.9): loading a
SavedModel is Unimplemented on Android and calls ``LoadSavedModel`` elsewhere
(``SavedModelBundleTest`` loads ``SAVED_MODEL_TESTDATA``). ``TF_LoadLibrary`` dlopens a custom-op
library, whose ``REGISTER_OP`` records in the loading library's registry
(``java/BUILD``'s ``tf_custom_op_library``, ``CUSTOM_OP_LIBRARY`` from ``CUSTOM_OP_SOURCE``, which
``TensorFlowTest.loadLibrary`` loads), and ``TF_FinishOperation`` refuses an op type nobody
registered. Its
``MessageToBuffer(const protobuf::Message&, ...)`` (the full protobuf runtime) writes a run's
metadata, a generated message (so a lite build compiles it only adapted to ``MessageLite``). The Bazel side is
there by name: ``contrib/android/BUILD``'s ``android_tensorflow_inference_java``
(``glob(["java/**/*.java"]) + ["//tensorflow/java:java_sources"]``) and
``libtensorflow_inference.so`` (``--version-script``), ``java/BUILD``'s ``java_sources``. Errors keep TensorFlow's codes and the Java API's
exception classes: a run of an op without a kernel throws IllegalArgumentException("No OpKernel was
registered to support Op 'Sqrt' used by node y"). ``contrib/android`` has
``TensorFlowInferenceInterface`` (which probes ``new RunStats()`` and then loads
``tensorflow_inference``) and ``RunStats`` with ``jni/run_stats_jni.cc`` (a stand-in
``core/util/stat_summarizer.h``) and ``jni/version_script.lds``. ``java/src/test/java`` holds JUnit 4
tests of the API that pass against a build whose library has Placeholder and Identity kernels, and
``examples/android/src`` the demo's classifier and detectors (Java API plus ``android.*``;
``tests/android_java.py`` writes stubs and host stand-ins of those classes). The Java is Java 8.

Op definitions are stated twice, as in TensorFlow: the ``REGISTER_OP`` calls of
``tensorflow/core/ops/*.cc`` and the golden ``tensorflow/core/ops/ops.pbtxt`` (an ``OpList`` in
text format, without the ``_``-named ops). The tf1 golden holds those ops' blocks as a real TF
1.9 tree has them (Conv2D without ``explicit_paddings``, MatMul without ``grad_a``/``grad_b``);
the tf2 one is TensorFlow 2.x's own text of them (Conv2D with ``explicit_paddings`` and
``EXPLICIT`` padding, as the tf2 ``nn_ops.cc`` overlay has it), MatMul without ``grad_a``/``grad_b``,
which came after 2.6.

Facts about the generated trees that tests may rely on are the module constants below.
File contents live under ``tests/treegen_data`` (``common``, then the ``tf1``/``tf2`` overlay, and
``tf2_makefile`` over ``tf1``);
``*.tmpl`` files are ``string.Template``s filled with the version and filegroup family.
"""

from __future__ import annotations

import os
import shutil
import string
import subprocess
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "treegen_data"

KERNELS_DIR = "tensorflow/core/kernels"
OP_FILES_TXT = "tensorflow/contrib/makefile/tf_op_files.txt"
MAKEFILE_DIR = "tensorflow/contrib/makefile"
MAKEFILE = "tensorflow/contrib/makefile/Makefile"
MAKEFILE_LIB = "tensorflow/contrib/makefile/gen/lib/libtensorflow-core.a"
MAKEFILE_BENCHMARK = "tensorflow/contrib/makefile/gen/bin/benchmark"
# The tf1 tree's one proto (listed in tf_proto_files.txt) and where the Makefile's protoc writes it.
PROTO = "tensorflow/core/framework/standin.proto"
GENERATED_PROTO = "tensorflow/contrib/makefile/gen/proto/tensorflow/core/framework/standin.pb"  # .h, .cc
# The tf1 tree's sources that a build for protobuf's lite runtime depends on: the switch
# (TENSORFLOW_LITE_PROTOS), grappler's one source (DebugString()) and its one caller, which
# includes it only #ifndef IS_MOBILE_PLATFORM, and the proto ops' descriptor pool (the full
# runtime's DescriptorPool).
LITE_SWITCH_SOURCE = "tensorflow/core/platform/env.cc"
GRAPPLER_SOURCE = "tensorflow/core/grappler/grappler_item.cc"
GRAPPLER_CALLER = "tensorflow/core/common_runtime/graph_execution_state.cc"
PROTO_OPS_SOURCE = "tensorflow/core/util/proto/local_descriptor_pool_registration.cc"
KERNELS_BUILD = "tensorflow/core/kernels/BUILD"
OPS_TO_REGISTER_H = "tensorflow/core/framework/ops_to_register.h"
BAZEL_KERNELS_TARGET = {"android": "//tensorflow/core/kernels:android_tensorflow_kernels",
                        "portable": "//tensorflow/core/kernels:portable_tensorflow_kernels"}
BAZEL_BENCHMARK_TARGET = "//tensorflow/tools/benchmark:benchmark_model"

# The tf1 tree's Android Java API and the recipe of its JNI library (r1.9 paths).
CMAKE_RECIPE = "tensorflow/contrib/android/cmake/CMakeLists.txt"
GRADLE_RECIPE = "tensorflow/contrib/android/cmake/build.gradle"
ANDROID_JNI_DIR = "tensorflow/contrib/android/jni"  # the recipe's ../jni/*.cc
JNI_VERSION_SCRIPT = "tensorflow/contrib/android/jni/version_script.lds"
JAVA_NATIVE_DIR = "tensorflow/java/src/main/native"  # the recipe's java_api_native_sources glob
# The C API sources the recipe's add_library names, in its order.
C_API_SOURCES = ("tensorflow/c/tf_status_helper.cc", "tensorflow/c/checkpoint_reader.cc",
                 "tensorflow/c/test_op.cc", "tensorflow/c/c_api.cc")
JNI_LIBRARY = "tensorflow_inference"  # add_library(tensorflow_inference SHARED ...)
JAVA_RULE = ("tensorflow/contrib/android", "android_tensorflow_inference_java")  # (package, name) in BUILD
# build.gradle's java srcDirs; it excludes '**/examples/**' (JAVA_EXAMPLES_DIR).
JAVA_API_DIRS = ("tensorflow/contrib/android/java", "tensorflow/java/src/main/java")
JAVA_EXAMPLES_DIR = "tensorflow/java/src/main/java/org/tensorflow/examples"  # LabelImage.java
INFERENCE_INTERFACE_CLASS = "org.tensorflow.contrib.android.TensorFlowInferenceInterface"
JAVA_TESTS_DIR = "tensorflow/java/src/test/java"
JAVA_TEST_CLASSES = ("org.tensorflow.GraphTest", "org.tensorflow.OperationBuilderTest",
                     "org.tensorflow.OperationTest", "org.tensorflow.SavedModelBundleTest", "org.tensorflow.SessionTest",
                     "org.tensorflow.ShapeTest", "org.tensorflow.TensorFlowTest", "org.tensorflow.TensorTest")
JAVA_TEST_COUNT = 43  # @Test methods in JAVA_TEST_CLASSES
# The SavedModel loader (c_api.cc calls LoadSavedModel off Android; the Makefile does not compile
# tensorflow/cc), the proto it includes (not in tf_proto_files.txt) and SavedModelBundleTest's model.
SAVED_MODEL_LOADER = "tensorflow/cc/saved_model/loader.cc"
SAVED_MODEL_PROTO = "tensorflow/core/protobuf/saved_model.proto"
SAVED_MODEL_TESTDATA = "tensorflow/cc/saved_model/testdata/half_plus_two/00000123"
# java/BUILD's tf_custom_op_library (Bazel's output path) and its source; TensorFlowTest loads it.
CUSTOM_OP_LIBRARY = "tensorflow/java/my_test_op.so"
CUSTOM_OP_SOURCE = "tensorflow/java/src/test/native/my_test_op.cc"
DEMO_SOURCES_DIR = "tensorflow/examples/android/src"
DEMO_SOURCES = tuple(f"{DEMO_SOURCES_DIR}/org/tensorflow/demo/{name}.java" for name in (
    "Classifier", "TensorFlowImageClassifier", "TensorFlowMultiBoxDetector", "TensorFlowYoloDetector",
    "env/Logger", "env/SplitTimer"))

TF1_BAZEL_VERSIONS = ("0.19.0", "0.20.0")  # check_bazel_version(min, max) in configure.py
TF1_NDK_MAJORS = tuple(range(10, 19))  # _SUPPORTED_ANDROID_NDK_VERSIONS in configure.py
TF1_NDK_API_LEVEL = 18  # var_default of configure.py's ANDROID_NDK_API_LEVEL prompt
TF2_BAZEL_VERSION = "3.7.2"  # .bazelversion
OPS_PBTXT = "tensorflow/core/ops/ops.pbtxt"  # the golden OpList of both trees

# The tf2-makefile tree (make_tf2_makefile_tree): what a real v2.0.0 checkout states that tfbuild
# reads, where it differs from the tf1 tree (its contrib Makefile is 1.15.5's, unchanged).
TF2_MAKEFILE_VERSION = "2.0.0"
TF2_MAKEFILE_BAZEL_VERSIONS = ("0.24.1", "0.26.1")  # configure.py's _TF_MIN/_TF_MAX_BAZEL_VERSION
TF2_MAKEFILE_PROTOBUF = "310ba5ee72661c081129eb878c1bbcec936b20f0"  # workspace.bzl's PROTOBUF_URLS
TF2_MAKEFILE_EAGER_JNI = f"{JAVA_NATIVE_DIR}/eager_operation_builder_jni.cc"  # calls TFE_*
TF2_MAKEFILE_TEST_LOG_PROTO = "tensorflow/core/util/test_log.proto"  # imports wrappers.proto

# Kernel files of the generated trees that no mobile filegroup and no tf_op_files.txt line
# lists, so adding an op they register ("Min", "Rint") gives the build-file edits work to do.
UNLISTED_KERNEL_FILES = ("reduction_ops_min.cc", "cwise_op_rint.cc")
# Added by the second commit of make_tf1_tree (v1.13.0); unlisted too.
TF1_NEXT_KERNEL_FILE = "cwise_op_squared_difference.cc"

_GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "tfbuild tests",
    "GIT_AUTHOR_EMAIL": "tests@tfbuild.invalid",
    "GIT_COMMITTER_NAME": "tfbuild tests",
    "GIT_COMMITTER_EMAIL": "tests@tfbuild.invalid",
}
_GIT_CONFIG = ("-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false",
               "-c", "core.autocrlf=false", "-c", "core.hooksPath=/dev/null")


def _git(root: Path, *args: str, date: str = "2018-12-03T12:00:00+00:00") -> str:
    env = {**os.environ, **_GIT_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *_GIT_CONFIG, *args], cwd=root, env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def _copy_layer(layer: str, root: Path, values: dict[str, str]) -> None:
    """Copy ``treegen_data/<layer>`` into ``root``; ``*.tmpl`` files are filled and renamed."""
    source_root = DATA_DIR / layer
    for source in sorted(source_root.rglob("*")):
        if source.is_dir() or "__pycache__" in source.parts:
            continue
        relative = source.relative_to(source_root)
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".tmpl":
            target = target.with_suffix("")
            text = string.Template(source.read_text()).substitute(values)
            target.write_text(text)
        else:
            shutil.copyfile(source, target)
        target.chmod(source.stat().st_mode & 0o777)


def _values(version: tuple[int, int, int], family: str) -> dict[str, str]:
    major, minor, patch = version
    return {"major": str(major), "minor": str(minor), "patch": str(patch), "suffix": "",
            "family": family}


def _commit_all(root: Path, message: str, *, tag: str | None, date: str) -> None:
    _git(root, "add", "-A", date=date)
    _git(root, "commit", "-q", "-m", message, date=date)
    if tag:
        _git(root, "tag", "-a", tag, "-m", f"TensorFlow {tag[1:]}", date=date)


def _new_repo(root: Path) -> Path:
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise FileExistsError(f"{root} is not empty")
    _git(root, "init", "-q", "-b", "master")
    return root


def make_tf1_tree(root: Path, *, version: tuple[int, int, int] = (1, 12, 0),
                  tags: bool = True) -> Path:
    """A TF 1.x tree (Makefile and Bazel flavours, ``android_*`` filegroups) as a git repo.

    With ``tags`` there are two commits tagged ``v{version}`` and ``v{major}.{minor+1}.0``, the
    second bumping version.h and adding ``cwise_op_squared_difference.cc``; HEAD is the second.
    Without ``tags`` there is one untagged commit at ``version``.
    """
    root = _new_repo(root)
    _copy_layer("common", root, _values(version, "android"))
    _copy_layer("tf1", root, _values(version, "android"))
    tag = "v{}.{}.{}".format(*version)
    _commit_all(root, f"TensorFlow {tag[1:]} (tfbuild test tree)", tag=tag if tags else None,
                date="2018-11-05T12:00:00+00:00")
    if tags:
        following = (version[0], version[1] + 1, 0)
        _copy_layer("common/tensorflow/core/public", root / "tensorflow/core/public",
                    _values(following, "android"))
        _copy_layer("tf1_next", root, _values(following, "android"))
        next_tag = "v{}.{}.{}".format(*following)
        _commit_all(root, f"Bump version to {next_tag[1:]}; add SquaredDifference kernel",
                    tag=next_tag, date="2019-02-25T12:00:00+00:00")
    return root


def make_tf2_tree(root: Path, *, version: tuple[int, int, int] = (2, 6, 0)) -> Path:
    """A later TF 2.x tree (Bazel only, ``portable_*`` filegroups, ``.bazelversion``), one
    commit tagged ``v{version}``."""
    root = _new_repo(root)
    _copy_layer("common", root, _values(version, "portable"))
    _copy_layer("tf2", root, _values(version, "portable"))
    tag = "v{}.{}.{}".format(*version)
    _commit_all(root, f"TensorFlow {tag[1:]} (tfbuild test tree)", tag=tag,
                date="2021-08-11T12:00:00+00:00")
    return root


# The generated kernels of make_large_tree rotate through TensorFlow's registration forms so a
# scanner meets them all in realistic proportions. {n} is the file number, {op} the op name.
_LARGE_FORMS = (
    """#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {{

class {op}Op : public OpKernel {{
 public:
  explicit {op}Op(OpKernelConstruction* context) : OpKernel(context) {{}}
  void Compute(OpKernelContext* context) override {{}}
}};

REGISTER_KERNEL_BUILDER(Name("{op}").Device(DEVICE_CPU), {op}Op);
REGISTER_KERNEL_BUILDER(Name("{op}").Device(DEVICE_GPU), {op}Op);

}}  // namespace tensorflow
""",
    """#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/register_types.h"

namespace tensorflow {{

typedef Eigen::ThreadPoolDevice CPUDevice;

template <typename Device, typename T>
class {op}Op : public OpKernel {{
 public:
  explicit {op}Op(OpKernelConstruction* context) : OpKernel(context) {{}}
  void Compute(OpKernelContext* context) override {{}}
}};

#define REGISTER_CPU(T)                                        \\
  REGISTER_KERNEL_BUILDER(                                     \\
      Name("{op}").Device(DEVICE_CPU).TypeConstraint<T>("T"),  \\
      {op}Op<CPUDevice, T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU);
#undef REGISTER_CPU

#if GOOGLE_CUDA
#define REGISTER_GPU(T)                                        \\
  REGISTER_KERNEL_BUILDER(                                     \\
      Name("{op}").Device(DEVICE_GPU).TypeConstraint<T>("T"),  \\
      {op}Op<Eigen::GpuDevice, T>);
TF_CALL_GPU_NUMBER_TYPES(REGISTER_GPU);
#endif  // GOOGLE_CUDA

}}  // namespace tensorflow
""",
    """#include "tensorflow/core/kernels/cwise_ops_common.h"

namespace tensorflow {{
REGISTER6(BinaryOp, CPU, "{op}", functor::add, float, Eigen::half, double, int32,
          int64, bfloat16);
#if GOOGLE_CUDA
REGISTER3(BinaryOp, GPU, "{op}", functor::add, float, Eigen::half, double);
#endif
}}  // namespace tensorflow
""",
    """#include "tensorflow/core/framework/op_kernel.h"

namespace tensorflow {{

template <typename Device, typename T, bool USE_CUBLAS>
class {op}Op : public OpKernel {{
 public:
  explicit {op}Op(OpKernelConstruction* ctx) : OpKernel(ctx) {{}}
  void Compute(OpKernelContext* ctx) override {{}}
}};

#if defined(USE_GEMM_FOR_CONV)
REGISTER_KERNEL_BUILDER(Name("{op}")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T")
                            .Label("gemm"),
                        {op}Op<Eigen::ThreadPoolDevice, float, false /* gemm */>);
#endif
REGISTER_KERNEL_BUILDER(Name("{op}")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<float>("T"),
                        {op}Op<Eigen::ThreadPoolDevice, float, false >);

}}  // namespace tensorflow
""",
)

# Comment and helper code that pads a generated file to the size of a typical TF kernel file.
_LARGE_FILLER = """
// Helper {i} of the generated kernel {n}: kept out of the registrations, like the shape
// checks, functors and Eigen expressions that make up most of a real kernel file.
namespace {{
inline int GeneratedHelper{n}_{i}(int a, int b) {{
  // REGISTER_KERNEL_BUILDER is mentioned here only in a comment.
  return a * {i} + b;
}}
}}  // namespace
"""


def make_tf2_makefile_tree(root: Path) -> Path:
    """A TF 2.0.0 tree as the contrib Makefile builds it: the tf1 tree with the ``tf2_makefile``
    layer over it (the ``TF2_MAKEFILE_*`` constants), one commit tagged ``v2.0.0``."""
    version = (2, 0, 0)
    root = _new_repo(root)
    _copy_layer("common", root, _values(version, "android"))
    _copy_layer("tf1", root, _values(version, "android"))
    _copy_layer("tf2_makefile", root, _values(version, "android"))
    _commit_all(root, "TensorFlow 2.0.0 (tfbuild test tree)", tag="v2.0.0", date="2019-09-27T21:56:33+00:00")
    return root


def make_large_tree(root: Path, n_files: int) -> Path:
    """A tf1 tree (one untagged commit) plus ``n_files`` generated kernel files
    ``tensorflow/core/kernels/generated_op_<n>.cc`` registering ops ``GeneratedOp<n>``."""
    root = Path(root)
    make_tf1_tree(root, tags=False)
    kernels = root / KERNELS_DIR
    for n in range(n_files):
        op = f"GeneratedOp{n:05d}"
        body = _LARGE_FORMS[n % len(_LARGE_FORMS)].format(op=op, n=n)
        filler = "".join(_LARGE_FILLER.format(i=i, n=n) for i in range(12))
        (kernels / f"generated_op_{n:05d}.cc").write_text(
            "/* Generated by tfbuild's treegen for benchmarks. */\n" + filler + "\n" + body)
    _commit_all(root, f"Add {n_files} generated kernels", tag=None,
                date="2018-11-06T12:00:00+00:00")
    return root


def build_host_protobuf(root: Path) -> None:
    """What ``build_all_linux.sh`` runs in a tf1 tree before make: the dependency download, then
    protobuf for this machine (``gen/protobuf``, protoc included), which every object of the
    Makefile waits for (its protos)."""
    for script in ("download_dependencies.sh", "compile_linux_protobuf.sh"):
        subprocess.run([f"{MAKEFILE_DIR}/{script}"], cwd=root, check=True, capture_output=True, text=True)


def large_tree_op(n: int) -> str:
    """The op registered by generated kernel file ``n`` of :func:`make_large_tree`."""
    return f"GeneratedOp{n:05d}"


def parse_registry_listing(text: str) -> tuple[frozenset[tuple[str, str, str]], frozenset[str]]:
    """The (op, device, kernel class) triples and op names printed by the tree's ``benchmark``
    binary (``kernel<TAB>op<TAB>device<TAB>class`` / ``op<TAB>name`` lines)."""
    kernels: set[tuple[str, str, str]] = set()
    ops: set[str] = set()
    for line in text.splitlines():
        fields = line.split("\t")
        if fields[0] == "kernel" and len(fields) == 4:
            kernels.add((fields[1], fields[2], fields[3]))
        elif fields[0] == "op" and len(fields) == 2:
            ops.add(fields[1])
    return frozenset(kernels), frozenset(ops)


# -- external repositories (tfbuild vendor) --------------------------------------------------------

# Two archives declared as TensorFlow's workspace.bzl declares its own (tf_http_archive, a
# build_file, a patch_file), served by git mirrors the tests make: ``tinyhash`` as a GitHub .tar.gz
# of a commit (its sha256 is what GitHub's archive of that commit hashes to, git archive | gzip -n),
# ``tinyfmt`` as a GitHub .zip (bytes no mirror reproduces) whose patch the build needs.
EXTERNAL_OWNER = "acme"
EXTERNAL_REPOSITORIES = ("tinyhash", "tinyfmt")
EXTERNAL_CHECK = "//tensorflow:libtensorflow_cc.so"  # links both

_REPO_BZL = '''# tf_http_archive as TensorFlow's third_party/repo.bzl defines it, cut to what the test tree uses:
# download_and_extract by sha256, then patch_file (patch -p1), then build_file as BUILD.bazel.

def _tf_http_archive(ctx):
    ctx.download_and_extract(ctx.attr.urls, "", ctx.attr.sha256, "", ctx.attr.strip_prefix)
    if ctx.attr.patch_file != None:
        patch = ctx.path(ctx.attr.patch_file)
        result = ctx.execute(["patch", "-p1", "-d", ctx.path("."), "-i", patch])
        if result.return_code != 0:
            fail("patch %s: %s" % (patch, result.stderr))
    if ctx.attr.build_file != None:
        ctx.symlink(ctx.attr.build_file, "BUILD.bazel")

tf_http_archive = repository_rule(
    implementation = _tf_http_archive,
    attrs = {
        "sha256": attr.string(mandatory = True),
        "urls": attr.string_list(mandatory = True),
        "strip_prefix": attr.string(),
        "patch_file": attr.label(),
        "build_file": attr.label(),
    },
)
'''

_WORKSPACE_BZL = '''# TensorFlow external dependencies that can be loaded in WORKSPACE files.
#
# Stand-in for tfbuild's test trees: two of the archives the real function declares, in its form.

load("//third_party:repo.bzl", "tf_http_archive")

def clean_dep(dep):
    return str(Label(dep))

def tf_workspace(path_prefix = "", tf_repo_name = ""):
    tf_http_archive(
        name = "tinyhash",
        build_file = clean_dep("//third_party:tinyhash.BUILD"),
        sha256 = "$tinyhash_sha256",
        strip_prefix = "tinyhash-$tinyhash_commit",
        urls = [
            "https://storage.googleapis.com/mirror.tensorflow.org/github.com/$owner/tinyhash/archive/$tinyhash_commit.tar.gz",
            "https://github.com/$owner/tinyhash/archive/$tinyhash_commit.tar.gz",
        ],
    )

    tf_http_archive(
        name = "tinyfmt",
        build_file = clean_dep("//third_party/tinyfmt:tinyfmt.BUILD"),
        patch_file = clean_dep("//third_party/tinyfmt:fix_header.patch"),
        sha256 = "$tinyfmt_sha256",
        strip_prefix = "tinyfmt-$tinyfmt_commit",
        urls = [
            "https://storage.googleapis.com/mirror.tensorflow.org/github.com/$owner/tinyfmt/archive/$tinyfmt_commit.zip",
            "https://github.com/$owner/tinyfmt/archive/$tinyfmt_commit.zip",
        ],
    )
'''

_EXTERNAL_FILES = {
    "third_party/BUILD": 'licenses(["notice"])\n\nexports_files(["tinyhash.BUILD"])\n',
    "third_party/tinyhash.BUILD": 'cc_library(\n    name = "tinyhash",\n    hdrs = ["tinyhash.h"],\n'
                                  '    visibility = ["//visibility:public"],\n)\n',
    "third_party/tinyfmt/BUILD": 'licenses(["notice"])\n\nexports_files(["tinyfmt.BUILD", "fix_header.patch"])\n',
    "third_party/tinyfmt/tinyfmt.BUILD": 'cc_library(\n    name = "tinyfmt",\n    hdrs = ["include/tinyfmt.h"],\n'
                                         '    strip_include_prefix = "include",\n'
                                         '    visibility = ["//visibility:public"],\n)\n',
    "third_party/tinyfmt/fix_header.patch": (
        "--- a/include/tinyfmt.h\n+++ b/include/tinyfmt.h\n@@ -1,3 +1,3 @@\n #pragma once\n"
        '-#error "tinyfmt needs TensorFlow\'s fix_header.patch"\n+#define TINYFMT_PATCHED 1\n'
        " inline int tinyfmt_width(int n) { return n < 10 ? 1 : 1 + tinyfmt_width(n / 10); }\n"),
    "tensorflow/core/platform/vendored.cc": (
        '#include "tinyfmt.h"\n#include "tinyhash.h"\n\n'
        'extern "C" int TfStandinVendored() { return tinyhash(TINYFMT_PATCHED) + tinyfmt_width(1234); }\n'),
}
_MIRROR_FILES = {
    "tinyhash": {"tinyhash.h": "#pragma once\ninline int tinyhash(int x) { return x * 31 + 7; }\n",
                 "README": "tinyhash: a test library served from a local git mirror.\n"},
    "tinyfmt": {"include/tinyfmt.h": '#pragma once\n#error "tinyfmt needs TensorFlow\'s fix_header.patch"\n'
                                     "inline int tinyfmt_width(int n) { return n < 10 ? 1 : 1 + tinyfmt_width(n / 10); }\n",
                "BUILD": "# upstream's own BUILD file, which the tree's build_file replaces\n"},
}


def make_external_mirror(mirrors: Path, name: str, *, date: str = "2019-05-01T12:00:00+00:00") -> Path:
    """A git repository ``mirrors/acme+NAME`` holding one commit of the library ``name`` (made at
    ``date``: another date, another commit)."""
    root = _new_repo(mirrors / f"{EXTERNAL_OWNER}+{name}")
    for relative, text in _MIRROR_FILES[name].items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    _commit_all(root, f"{name} 1.0", tag=None, date=date)
    return root


def add_external_repositories(root: Path, mirrors: Path) -> dict[str, str]:
    """Give the tree at ``root`` TensorFlow's two-archive workspace (tinyhash, tinyfmt), with
    their mirrors made under ``mirrors``, and link both into ``libtensorflow_cc.so``; one new
    commit. Returns each repository's pinned commit."""
    import hashlib

    values = {"owner": EXTERNAL_OWNER}
    commits = {}
    for name in EXTERNAL_REPOSITORIES:
        mirror = make_external_mirror(mirrors, name)
        commit = _git(mirror, "rev-parse", "HEAD")
        commits[name] = commit
        if name == "tinyhash":  # GitHub's .tar.gz: git archive with REPO-COMMIT/, gzip -n
            tar = subprocess.run(["git", "archive", "--format=tar", f"--prefix={name}-{commit}/", commit],
                                 cwd=mirror, check=True, capture_output=True).stdout
            data = subprocess.run(["gzip", "-n"], input=tar, check=True, capture_output=True).stdout
        else:  # a zip carries times: what GitHub served is not what git makes here
            data = subprocess.run(["git", "archive", "--format=zip", f"--prefix={name}-{commit}/", commit],
                                  cwd=mirror, check=True, capture_output=True).stdout + b"GitHub's bytes"
        values[f"{name}_commit"] = commit
        values[f"{name}_sha256"] = hashlib.sha256(data).hexdigest()
    (root / "third_party").mkdir(exist_ok=True)
    (root / "third_party/repo.bzl").write_text(_REPO_BZL)
    (root / "tensorflow/workspace.bzl").write_text(string.Template(_WORKSPACE_BZL).substitute(values))
    for relative, text in _EXTERNAL_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    build = root / "tensorflow/BUILD"
    text = build.read_text()
    marker = '    name = "libtensorflow_cc.so",\n    linkshared = 1,\n    deps = [\n'
    assert marker in text, "tensorflow/BUILD has no libtensorflow_cc.so target"
    build.write_text(text.replace(marker, marker.replace(
        "    deps = [\n",
        '    srcs = ["//tensorflow/core/platform:vendored.cc"],\n    deps = [\n        "@tinyhash//:tinyhash",\n'
        '        "@tinyfmt//:tinyfmt",\n')))
    (root / "tensorflow/core/platform/BUILD").write_text('exports_files(["vendored.cc"])\n')
    _commit_all(root, "workspace: tinyhash and tinyfmt from GitHub archives", tag=None,
                date="2021-08-12T12:00:00+00:00")
    return commits
