"""TensorFlow's own Android Java API, built by tfbuild from the tree (``--java-api tensorflow``,
the default for Android where the tree has it): the drop-in AAR an app built on
``org.tensorflow:tensorflow-android`` takes by changing one dependency line.

On the generated tf1 tree (its Java API, JNI sources and CMake recipe are shaped on r1.9's:
``treegen.CMAKE_RECIPE`` ...):

- one build per ABI (arm64-v8a, armeabi-v7a, x86_64) with the NDK stand-in links the recipe's
  sources into ``libtensorflow_inference.so``; ``tfbuild aar`` packs them with the tree's Java
  compiled into ``classes.jar`` (Java 8 bytecode, no ``android.*`` inside), ``aapt2 link`` takes the
  AAR, the demo-shaped app sources compile unchanged against its ``classes.jar``, and Debian's
  Maven resolves it offline from the repository ``--maven-repo`` wrote;
- a ``linux-x86_64`` build with ``--java-api tensorflow`` links the same sources for this
  machine's Java VM: the tree's own JUnit tests pass against it, ``TensorFlowInferenceInterface``
  runs on it, and ``tfbuild verify --runner jvm`` compares what it computes with TensorFlow's.

What this does not prove: kernel arithmetic (the tree's session forwards Identity itself), nor that
TensorFlow's own sources build this way: docs/real-trees.md has the real r1.9 runs.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import android_java
import pytest
import treegen
from conftest import REPO_ROOT
from maven_client import resolve_offline
from test_android_aar import assert_aapt2_links

from tfbuild.cli import main
from tfbuild.pipeline.outputs.android.jni_library import JAVA_DIR
from tfbuild.tree.java_api import java_api_layouts, read_java_api

ABIS = {"android-arm64": "arm64-v8a", "android-armv7": "armeabi-v7a", "android-x86_64": "x86_64"}
INTERFACE_CLASS = "org/tensorflow/contrib/android/TensorFlowInferenceInterface.class"


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


def _ops_model(path: Path) -> Path:
    path.write_text(json.dumps([["Placeholder", "PlaceholderOp"], ["Identity", "IdentityOp"]]))
    return path


def test_the_api_and_its_recipe_are_read_from_the_tree(tf1_tree):
    api = read_java_api(tf1_tree)
    native = sorted(path.relative_to(tf1_tree).as_posix() for path in (tf1_tree / treegen.JAVA_NATIVE_DIR).glob("*.cc"))
    assert api.jni_sources == (f"{treegen.ANDROID_JNI_DIR}/run_stats_jni.cc", *treegen.C_API_SOURCES, *native,
                               treegen.SAVED_MODEL_LOADER)
    # The loader serves a Java VM off Android only, with the proto the Makefile does not generate.
    assert api.off_android == (treegen.SAVED_MODEL_LOADER,)
    assert api.host_protos == (treegen.SAVED_MODEL_PROTO,)
    assert api.host_functions == ("TF_LoadSessionFromSavedModel",)
    assert treegen.SAVED_MODEL_LOADER not in api.sources_for(android=True)
    assert api.defines == ("-DIS_SLIM_BUILD", "-DGOOGLE_PROTOBUF_NO_RTTI", "-DGOOGLE_PROTOBUF_NO_STATIC_INITIALIZER")
    assert api.inference_class == treegen.INFERENCE_INTERFACE_CLASS and api.library == treegen.JNI_LIBRARY
    paths = {source.path for source in api.java_sources}
    # The Bazel rule's sources: contrib/android's java/**, and //tensorflow/java:java_sources (the
    # package and types/, not the examples).
    assert {"org/tensorflow/contrib/android/TensorFlowInferenceInterface.java", "org/tensorflow/Graph.java",
            "org/tensorflow/types/UInt8.java"} <= paths
    assert not any("examples" in path for path in paths)
    assert "org.tensorflow.TensorFlowException" in api.jni_classes


# -- the host build, for this machine's Java VM -----------------------------------------------------


@dataclass(frozen=True)
class HostBuild:
    tree: Path
    out: Path
    work: Path


@pytest.fixture(scope="module")
def host_build(pristine_trees, tmp_path_factory) -> HostBuild:
    work = tmp_path_factory.mktemp("java-api-host")
    tree = Path(shutil.copytree(pristine_trees["tf1"], work / "tf1", symlinks=True))
    out = work / "out"
    code = main(["build", "--source", str(tree), "--model", str(_ops_model(work / "ops.json")), "--out", str(out),
                 "--target", "linux-x86_64", "--flavour", "makefile", "--local", "--jobs", "2",
                 "--java-api", "tensorflow"])
    assert code == 0
    return HostBuild(tree, out, work)


def _api_classes(build: HostBuild) -> Path:
    """The build's copy of the tree's Java API with the host stand-ins of android.*, compiled once."""
    classes = build.work / "api-classes"
    if not classes.is_dir():
        standins = android_java.write_runtime_standins(build.work / "android-runtime")
        compiled = android_java.javac([*android_java.java_sources(build.out / JAVA_DIR),
                                       *android_java.java_sources(standins)], classes)
        assert compiled.returncode == 0, compiled.stderr[-4000:]
    return classes


def _java(build: HostBuild, main_class: str, *args: str, classpath: tuple[Path, ...]) -> subprocess.CompletedProcess[str]:
    """``java`` with the build's library found as both names TensorFlow's Java loads: the
    interface's ``tensorflow_inference`` and ``org.tensorflow.NativeLibrary``'s ``tensorflow_jni``."""
    libs = build.work / "libs"
    if not libs.is_dir():
        libs.mkdir()
        for name in ("libtensorflow_inference.so", "libtensorflow_jni.so"):
            (libs / name).symlink_to(build.out / "libtensorflow_inference.so")
    return _run(["java", f"-Djava.library.path={libs}", "-cp", ":".join(map(str, classpath)), main_class, *args])


@pytest.mark.compiler
@pytest.mark.android_packaging
def test_the_host_library_exports_jni_and_tensorflows_api_and_the_plan_says_what_it_built(host_build):
    manifest = json.loads((host_build.out / "manifest.json").read_text())
    record = manifest["android_jni"]
    assert record["java_api"] == "tensorflow" and record["recipe"] == treegen.CMAKE_RECIPE
    assert f"{JAVA_DIR}/org/tensorflow/contrib/android/TensorFlowInferenceInterface.java" in record["java_sources"]
    layout = java_api_layouts()[0]
    assert record["exports"] == ["JNI_OnLoa[d]", "JNI_OnUnloa[d]", "Java_*", *layout.host_exports]
    dynamic = _run(["nm", "-D", "--defined-only", str(host_build.out / "libtensorflow_inference.so")]).stdout
    exported = {line.split()[-1] for line in dynamic.splitlines() if line.strip()}
    # The JNI methods, and TensorFlow's C and C++ API as its libtensorflow.so exports them, which
    # a custom-op library links against; nothing else (protobuf, the C++ runtime) is exported.
    assert exported and all(name.startswith("Java_org_tensorflow_")
                            or any(fnmatch.fnmatchcase(name, pattern) for pattern in layout.host_exports)
                            for name in exported), sorted(exported)
    assert {"Java_org_tensorflow_Session_run", "Java_org_tensorflow_contrib_android_RunStats_allocate",
            "TF_LoadLibrary", "_ZN10tensorflow11register_op8RecordOpEPKc"} <= exported
    assert not any(name.startswith("_ZN6google8protobuf") for name in exported)
    # c_api.cc leaves out what the Makefile's library lacks only under __ANDROID__, as r1.9's does:
    # compiled from a copy whose guards hold for IS_SLIM_BUILD too, except the SavedModel loader's.
    copy = host_build.out / "jni" / "tensorflow__c__c_api.cc"
    text = copy.read_text()
    assert "#if !defined(__ANDROID__) && !defined(IS_SLIM_BUILD)\n#include \"tensorflow/cc/framework/gradients.h\"" in text
    assert "#endif\n#ifndef __ANDROID__\n#include \"tensorflow/cc/saved_model/loader.h\"\n#endif" in text
    function = text[text.index("TF_Session* TF_LoadSessionFromSavedModel("):]
    assert function[:function.index("Unimplemented")].count("#ifdef __ANDROID__\n") == 1
    assert "#ifndef __ANDROID__" in (host_build.tree / "tensorflow/c/c_api.cc").read_text()
    log = (host_build.out / "linux-x86_64.build.log").read_text()
    assert f"-c {copy} " in log
    # the copy's __FILE__ names the tree's source, as the tree's own compiles do: no output path
    assert f"-ffile-prefix-map={copy}=./tensorflow/c/c_api.cc " in log
    # The loader is compiled in, with the code of its proto, which tf_proto_files.txt does not list:
    # generated by the tree's protoc, as the Makefile runs it.
    generated = host_build.out / "jni" / "proto" / treegen.SAVED_MODEL_PROTO.replace(".proto", ".pb.cc")
    assert generated.is_file() and f"-c {generated} " in log
    assert f"protoc {treegen.SAVED_MODEL_PROTO} --cpp_out {host_build.out / 'jni' / 'proto'}" in log
    assert f"-c {host_build.tree / treegen.SAVED_MODEL_LOADER} " in log
    assert treegen.SAVED_MODEL_PROTO not in (host_build.tree / treegen.MAKEFILE_DIR / "tf_proto_files.txt").read_text()


@pytest.mark.compiler
@pytest.mark.android_packaging
@pytest.mark.junit
def test_the_trees_own_junit_tests_pass_against_the_host_library(host_build):
    """scripts/tensorflow_java_tests.py, as docs/real-trees.md runs it on real trees."""
    sources = android_java.java_sources(host_build.tree / treegen.JAVA_TESTS_DIR)
    assert sum(path.read_text().count("@Test") for path in sources) == treegen.JAVA_TEST_COUNT
    ran = _run([sys.executable, str(REPO_ROOT / "scripts" / "tensorflow_java_tests.py"), "--out-dir",
                str(host_build.out), "--source", str(host_build.tree), "--work", str(host_build.work / "junit")])
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr[-2000:]
    lines = ran.stdout.splitlines()
    assert lines[-1] == f"{treegen.JAVA_TEST_COUNT} passed, 0 failed"
    assert {line.split(":")[0] for line in lines[:-1] if re.search(r": \d+ passed", line)} == set(treegen.JAVA_TEST_CLASSES)
    # TensorFlowTest.loadLibrary loaded the op library the script built from java/BUILD's rule.
    assert f"built {treegen.CUSTOM_OP_LIBRARY} from {treegen.CUSTOM_OP_SOURCE}, linked to libtensorflow_inference.so" in lines
    assert "org.tensorflow.TensorFlowTest: 3 passed, 0 failed" in lines
    assert "org.tensorflow.SavedModelBundleTest: 2 passed, 0 failed" in lines
    # The tree is not written to: the tests ran in a directory of links shaped as it.
    assert not (host_build.tree / treegen.CUSTOM_OP_LIBRARY).exists()


INFERENCE_MAIN = """
import java.io.FileInputStream;
import java.io.InputStream;
import org.tensorflow.contrib.android.TensorFlowInferenceInterface;

public class InferenceMain {
  public static void main(String[] args) throws Exception {
    InputStream graph = new FileInputStream(args[0]);
    TensorFlowInferenceInterface tf = new TensorFlowInferenceInterface(graph);
    tf.feed("x", new float[] {1.5f, -2f, 3f, 4f, 5.25f, -6f}, 2, 3);
    tf.run(new String[] {"y"}, true);
    float[] y = new float[6];
    tf.fetch("y", y);
    StringBuilder line = new StringBuilder("y:");
    for (float value : y) line.append(' ').append(value);
    System.out.println(line);
    tf.close();
    TensorFlowInferenceInterface sqrt = new TensorFlowInferenceInterface(new FileInputStream(args[1]));
    sqrt.feed("x", new float[] {1f, 4f, 9f, 16f, 25f, 36f}, 2, 3);
    try {
      sqrt.run(new String[] {"y"});
    } catch (IllegalArgumentException e) {
      System.out.println("refused: " + e.getMessage());
    }
    sqrt.close();
  }
}
"""


@pytest.mark.compiler
@pytest.mark.android_packaging
def test_the_inference_interface_runs_on_the_host_library(host_build):
    identity, sqrt = host_build.work / "identity.pb", host_build.work / "sqrt.pb"
    identity.write_bytes(android_java.graph_def("Identity"))
    sqrt.write_bytes(android_java.graph_def("Sqrt"))
    source = host_build.work / "main" / "InferenceMain.java"
    source.parent.mkdir()
    source.write_text(INFERENCE_MAIN)
    api = _api_classes(host_build)
    assert android_java.javac([source], host_build.work / "main-classes", (api,)).returncode == 0
    ran = _java(host_build, "InferenceMain", str(identity), str(sqrt), classpath=(api, host_build.work / "main-classes"))
    assert ran.returncode == 0, ran.stdout + ran.stderr[-4000:]
    assert ran.stdout.splitlines() == [
        "y: 1.5 -2.0 3.0 4.0 5.25 -6.0",
        "refused: No OpKernel was registered to support Op 'Sqrt' used by node y",
    ]


@pytest.mark.compiler
@pytest.mark.android_packaging
@pytest.mark.tensorflow
def test_verify_runs_the_inference_interface_on_the_java_vm(host_build, tmp_path, capsys):
    identity = tmp_path / "identity.pb"
    identity.write_bytes(android_java.graph_def("Identity"))
    code = main(["verify", "--out-dir", str(host_build.out), "--runner", "jvm", str(identity)])
    text, err = capsys.readouterr()
    assert code == 0, text + err[-3000:]
    record = json.loads((host_build.out / "manifest.json").read_text())["verify"]
    assert record["runner"].startswith("org.tensorflow.contrib.android.TensorFlowInferenceInterface on this machine's "
                                       "Java VM")
    assert record["passed"] is True and any(diff["tensor"] == "y:0" for model in record["models"]
                                            for diff in model["tensors"])

    sqrt = tmp_path / "sqrt.pb"
    sqrt.write_bytes(android_java.graph_def("Sqrt"))
    code = main(["verify", "--out-dir", str(host_build.out), "--runner", "jvm", str(sqrt)])
    err = capsys.readouterr().err
    assert code == 8, err
    assert "No OpKernel was registered to support Op 'Sqrt' used by node y" in err


def test_the_jvm_runner_is_for_builds_that_have_the_api(tf1_tree, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text("{}")
    code = main(["verify", "--out-dir", str(out), "--runner", "java"])
    assert code == 2 and "unknown runner 'java'" in capsys.readouterr().err


# -- the drop-in AAR, three ABIs ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def android_builds(pristine_trees, tmp_path_factory, mini_ndk) -> dict[str, Path]:
    """One build per ABI, the Java API left to its default (the tree's, since it has the recipe)."""
    root = tmp_path_factory.mktemp("java-api-aar")
    tree = Path(shutil.copytree(pristine_trees["tf1"], root / "tf1", symlinks=True))
    model = _ops_model(root / "ops.json")
    outs = {}
    for target in ABIS:
        out = root / f"out-{target}"
        code = main(["build", "--source", str(tree), "--model", str(model), "--out", str(out), "--target", target,
                     "--flavour", "makefile", "--ndk", str(mini_ndk), "--local", "--jobs", "2"])
        assert code == 0, target
        outs[target] = out
    return outs


@pytest.mark.android_ndk
@pytest.mark.android_packaging
def test_the_drop_in_aar_holds_the_trees_api_for_three_abis(android_builds, pristine_trees, tmp_path, capsys):
    for target, out in android_builds.items():
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["android_jni"]["java_api"] == "tensorflow", target
        library = next(a for a in manifest["artifacts"] if a["name"] == "libtensorflow_inference.so")
        assert library["load_alignment"] == (4096 if target == "android-armv7" else 16384), target
        # An Android library keeps TensorFlow's own answers: no SavedModel loader, JNI exports only.
        assert manifest["android_jni"]["exports"] == ["JNI_OnLoa[d]", "JNI_OnUnloa[d]", "Java_*"], target
        log = (out / f"{target}.build.log").read_text()
        assert treegen.SAVED_MODEL_LOADER not in log and "saved_model.proto" not in log, target
    aar = tmp_path / "tensorflow-android.aar"
    code = main(["aar", *map(str, android_builds.values()), "-o", str(aar)])
    assert code == 0, capsys.readouterr().err
    with zipfile.ZipFile(aar) as archive:
        names = set(archive.namelist())
        assert {f"jni/{abi}/libtensorflow_inference.so" for abi in ABIS.values()} <= names
        manifest_xml = archive.read("AndroidManifest.xml").decode()
        proguard = archive.read("proguard.txt").decode()
        archive.extractall(tmp_path / "unpacked")
        (tmp_path / "classes.jar").write_bytes(archive.read("classes.jar"))
    assert 'package="org.tensorflow.contrib.android"' in manifest_xml
    assert "-keep class org.tensorflow.TensorFlowException { *; }" in proguard
    with zipfile.ZipFile(tmp_path / "classes.jar") as jar:
        classes = set(jar.namelist())
        interface = jar.read(INTERFACE_CLASS)
    assert {INTERFACE_CLASS, "org/tensorflow/Session.class", "org/tensorflow/types/UInt8.class"} <= classes
    assert not any(name.startswith("android/") for name in classes)  # the stand-ins stay out
    assert int.from_bytes(interface[6:8], "big") == 52  # Java 8 bytecode
    assert_aapt2_links(tmp_path / "unpacked" / "AndroidManifest.xml", tmp_path / "check.apk")

    # The demo-shaped app sources compile unchanged against the AAR's classes.jar.
    stubs = android_java.write_compile_stubs(tmp_path / "android-stubs")
    stub_classes = tmp_path / "stub-classes"
    assert android_java.javac(android_java.java_sources(stubs), stub_classes).returncode == 0
    tree = pristine_trees["tf1"]
    demo = android_java.java_sources(tree / treegen.DEMO_SOURCES_DIR)
    assert [path.relative_to(tree).as_posix() for path in demo] == sorted(treegen.DEMO_SOURCES)
    compiled = android_java.javac(demo, tmp_path / "demo-classes", (tmp_path / "classes.jar", stub_classes))
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    label = android_java.javac(android_java.java_sources(tree / treegen.JAVA_EXAMPLES_DIR), tmp_path / "label",
                               (tmp_path / "classes.jar",))
    assert label.returncode == 0, label.stderr[-4000:]


@pytest.mark.android_ndk
@pytest.mark.android_packaging
@pytest.mark.maven
def test_maven_resolves_the_drop_in_aar_offline(android_builds, tmp_path, capsys):
    repo, aar = tmp_path / "repo", tmp_path / "app.aar"
    code = main(["aar", *map(str, android_builds.values()), "-o", str(aar), "--maven-repo", str(repo)])
    text = capsys.readouterr().out
    assert code == 0, text
    coordinates = "org.tensorflow:tensorflow-android:1.13.0-tfbuild"  # the tree's version (treegen's HEAD)
    assert f"published: {coordinates} in {repo}" in text
    assert f"dependencies {{ implementation '{coordinates}' }}" in text
    resolved = resolve_offline(repo, coordinates, tmp_path / "app")
    assert resolved.returncode == 0, resolved.stdout[-3000:]
    assert (tmp_path / "app/resolved/tensorflow-android-1.13.0-tfbuild.aar").read_bytes() == aar.read_bytes()
    pom = (repo / "org/tensorflow/tensorflow-android/1.13.0-tfbuild/tensorflow-android-1.13.0-tfbuild.pom").read_text()
    assert "<packaging>aar</packaging>" in pom
    record = json.loads((android_builds["android-arm64"] / "manifest.json").read_text())["aar"]
    assert record["maven"]["coordinates"] == coordinates and record["java_api"] == "tensorflow"


# -- what the AAR refuses -----------------------------------------------------------------------------


@pytest.mark.android_ndk
@pytest.mark.android_packaging
@pytest.mark.parametrize("output", ["libtensorflow_inference.so", "manifest.json", "libtensorflow-core.a",
                                    "java/org/tensorflow/Graph.java"])
def test_an_output_that_is_one_of_the_aars_inputs_is_refused(android_builds, output, capsys):
    arm64 = android_builds["android-arm64"]
    before = (arm64 / output).read_bytes()
    code = main(["aar", *map(str, android_builds.values()), "-o", str(arm64 / output)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "exists and is not an AAR" in err or "which the AAR is made from" in err
    assert (arm64 / output).read_bytes() == before


@pytest.mark.android_ndk
@pytest.mark.android_packaging
@pytest.mark.parametrize(("key", "value", "message"), [
    ("library", "../../../../../../etc/passwd", "is not a lib<name>.so file name"),
    ("min_sdk", -5, "is not an API level"),
    ("abi", "mips/../x", "is not an Android ABI"),
    ("java_sources", ["../../secret.java"], "not a java/<package>/<Class>.java path"),
    ("java_class", "A;B", "not a Java name"),
])
def test_a_manifest_is_read_as_untrusted_input(android_builds, tmp_path, key, value, message, capsys):
    copy = Path(shutil.copytree(android_builds["android-x86_64"], tmp_path / "out"))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["android_jni"][key] = value
    (copy / "manifest.json").write_text(json.dumps(manifest))
    code = main(["aar", str(copy), "-o", str(tmp_path / "x.aar")])
    err = capsys.readouterr().err
    assert code == 9, err
    assert message in err and not (tmp_path / "x.aar").exists()


@pytest.mark.android_ndk
@pytest.mark.android_packaging
def test_builds_of_two_java_apis_do_not_go_into_one_aar(android_builds, pristine_trees, tmp_path, mini_ndk, capsys):
    tree = Path(shutil.copytree(pristine_trees["tf1"], tmp_path / "tf1", symlinks=True))
    small = tmp_path / "small"
    code = main(["build", "--source", str(tree), "--model", str(_ops_model(tmp_path / "ops.json")), "--out",
                 str(small), "--target", "android-x86_64", "--flavour", "makefile", "--ndk", str(mini_ndk),
                 "--local", "--jobs", "2", "--java-api", "tfbuild"])
    assert code == 0
    capsys.readouterr()
    code = main(["aar", str(android_builds["android-arm64"]), str(small), "-o", str(tmp_path / "x.aar")])
    err = capsys.readouterr().err
    assert code == 3 and re.search(r"Java API tfbuild differs from tensorflow", err), err


@pytest.mark.android_ndk
def test_lite_protobuf_adapts_message_to_buffer_and_refuses_any_other_full_message(tf1_tree, tmp_path, capsys,
                                                                                  mini_ndk):
    """r1.9's c_api.cc serializes through MessageToBuffer(const protobuf::Message&): a lite build
    compiles it from a copy taking MessageLite (as 1.15's own does; the built library is checked in
    test_protobuf_runtime). Any other use of the full Message is refused before the build."""
    argv = ["build", "--source", str(tf1_tree), "--model", str(_ops_model(tmp_path / "ops.json")),
            "--out", str(tmp_path / "out"), "--target", "android-arm64", "--flavour", "makefile",
            "--ndk", str(mini_ndk), "--local", "--protobuf-runtime", "lite", "--dry-run"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    copy = tmp_path / "out" / "jni" / "tensorflow__c__c_api.cc"
    assert f"{copy} (" in text and f"-c {copy} -o " in text
    assert ("tensorflow/c/c_api.cc compiled from a copy whose MessageToBuffer takes protobuf's MessageLite, as "
            "TensorFlow 1.15's own c_api.cc does") in text
    assert f"-c {tf1_tree}/tensorflow/c/c_api.cc" not in text

    c_api = tf1_tree / "tensorflow/c/c_api.cc"
    c_api.write_text(c_api.read_text() + "\nvoid Describe(const tensorflow::protobuf::Message& message);\n")
    assert main(argv) == 4
    err = capsys.readouterr().err
    line = c_api.read_text().count("\n")
    assert (f"{c_api}:{line}: TensorFlow's Java API here takes protobuf's full Message, which --protobuf-runtime "
            "lite leaves out (only MessageToBuffer's is adapted)") in err
    assert "--java-api tfbuild with lite" in err


@pytest.mark.android_ndk
def test_a_jni_library_name_other_than_the_apis_is_refused(tf1_tree, tmp_path, capsys, mini_ndk):
    code = main(["build", "--source", str(tf1_tree), "--model", str(_ops_model(tmp_path / "ops.json")),
                 "--out", str(tmp_path / "out"), "--target", "android-arm64", "--flavour", "makefile",
                 "--ndk", str(mini_ndk), "--local", "--jni-library", "myapp", "--java-api", "tensorflow",
                 "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2 and "myapp is not libtensorflow_inference.so, which" in err, err


@pytest.mark.android_ndk
def test_a_recipe_older_than_the_trees_java_api_is_named(tf1_tree, tmp_path, capsys, mini_ndk):
    """TF 1.15 and 2.0: the Java API's native sources call the eager C API (TFE_*), which neither
    the recipe nor the contrib Makefile builds, and the Makefile compiles c_api.cc itself."""
    eager = tf1_tree / treegen.JAVA_NATIVE_DIR / "eager_session_jni.cc"
    eager.write_text('#include "tensorflow/c/c_api.h"\nvoid Stop() { TFE_DeleteContext(nullptr); }\n')
    makefile = tf1_tree / treegen.MAKEFILE
    makefile.write_text(makefile.read_text().replace("\nCORE_CC_ALL_SRCS", "\nAPI_SRCS := \\\ntensorflow/c/c_api.cc \\\n\n"
                                                     "CORE_CC_ALL_SRCS", 1))
    api = read_java_api(tf1_tree)
    assert api.in_library == ("tensorflow/c/c_api.cc",) and "tensorflow/c/c_api.cc" not in api.jni_sources
    subprocess.run(["git", "-C", str(tf1_tree), "commit", "-qam", "eager", "--no-verify"], check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"})
    code = main(["build", "--source", str(tf1_tree), "--model", str(_ops_model(tmp_path / "ops.json")),
                 "--out", str(tmp_path / "out"), "--target", "android-arm64", "--flavour", "makefile",
                 "--ndk", str(mini_ndk), "--local", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 4, err
    assert f"{eager}: calls TensorFlow's eager C API (TFE_*), which neither" in err
    assert "--java-api tfbuild" in err


def test_a_source_the_recipe_needs_and_the_makefile_leaves_out_is_compiled_into_the_library(tf1_tree):
    """r1.9: c_api.cc calls ApiDefMap, which op_gen_lib.cc defines, and the Makefile excludes that
    file from libtensorflow-core.a: the JNI library compiles it (found on the real r1.9 tree)."""
    assert "tensorflow/core/framework/op_gen_lib.cc" not in read_java_api(tf1_tree).jni_sources
    (tf1_tree / "tensorflow/core/framework/op_gen_lib.cc").write_text("namespace tensorflow { class ApiDefMap; }\n")
    c_api = tf1_tree / "tensorflow/c/c_api.cc"
    c_api.write_text(c_api.read_text() + "\n// TF_NewApiDefMap builds an ApiDefMap.\n")
    # The Makefile's wildcard covers the file: compiled into the library, so not again.
    assert "tensorflow/core/framework/op_gen_lib.cc" not in read_java_api(tf1_tree).jni_sources
    makefile = tf1_tree / treegen.MAKEFILE
    makefile.write_text(makefile.read_text().replace(
        "CORE_CC_EXCLUDE_SRCS := \\\n", "CORE_CC_EXCLUDE_SRCS := \\\n$(wildcard tensorflow/core/framework/op_gen_lib.cc) \\\n"))
    api = read_java_api(tf1_tree)
    assert "tensorflow/core/framework/op_gen_lib.cc" in api.jni_sources
    assert "tensorflow/core/framework/op_gen_lib.cc" not in api.sources_for(android=True)  # used off Android only


def test_a_source_another_needed_source_names_is_compiled_too(tf1_tree):
    """Later trees split the SavedModel loader: loader.cc calls reader.cc, which c_api.cc does not
    name. Both serve a Java VM off Android only."""
    reader = "tensorflow/cc/saved_model/reader.cc"
    (tf1_tree / reader).write_text("namespace tensorflow { int ReadMetaGraphDefFromSavedModel() { return 0; } }\n")
    assert reader not in read_java_api(tf1_tree).jni_sources
    loader = tf1_tree / treegen.SAVED_MODEL_LOADER
    loader.write_text(loader.read_text() + "\n// LoadSavedModel reads with ReadMetaGraphDefFromSavedModel.\n")
    api = read_java_api(tf1_tree)
    assert api.jni_sources[-2:] == (treegen.SAVED_MODEL_LOADER, reader)
    assert api.off_android == (treegen.SAVED_MODEL_LOADER, reader)
    assert not {treegen.SAVED_MODEL_LOADER, reader} & set(api.sources_for(android=True))
