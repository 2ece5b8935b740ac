"""The tf1 tree's Android Java API (``treegen.CMAKE_RECIPE`` ... ``treegen.DEMO_SOURCES``) works when
built by hand the way its recipe says, without tfbuild's own AAR code: the tree is built for
``linux-x86_64`` with tfbuild's Makefile flavour, the recipe's JNI sources (read from
``CMakeLists.txt``: its globs and its ``add_library`` list, compiled with its flags) are linked
with g++ against the JDK's ``jni.h`` into ``libtensorflow_inference.so`` (the archive whole, as
TensorFlow's recipe links it), the Java of ``build.gradle``'s source directories is compiled with
``javac --release 8`` and the host stand-ins of ``android.*`` (``tests/android_java.py``), and then:
the tree's JUnit tests pass under Debian's junit4, ``TensorFlowInferenceInterface`` feeds, runs and
fetches on the host JVM (and a graph without a kernel gives TensorFlow's error), and the
demo-shaped sources compile against the API and the ``android.*`` compile stubs. The same
native sources compile with the Android NDK stand-in for arm64-v8a (an Android ``.so`` cannot be
loaded here).

What this does not prove: kernel arithmetic (the stand-in session forwards Identity itself), and
that TensorFlow's own sources build this way (see the treegen docstring for what differs).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import android_java
import pytest
import treegen

from tfbuild.cli import main
from tfbuild.pipeline.linkflags import link_inputs
from tfbuild.toolchain.targets import get_target

JUNIT = Path("/usr/share/java/junit4.jar")  # its manifest's Class-Path brings hamcrest-core.jar
# The recipe's flags that only an ARM (armeabi-v7a) compiler takes.
ARM_ONLY_FLAGS = ("-mfpu=neon", "-mfloat-abi=softfp")

needs_jdk = pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac)")
needs_junit = pytest.mark.skipif(not JUNIT.is_file(), reason=f"{JUNIT} is absent (Debian's junit4)")


# --- The recipe, read as CMake states it -------------------------------------------------------


@dataclass(frozen=True)
class Recipe:
    sources: tuple[Path, ...]  # add_library(tensorflow_inference SHARED ...), globs expanded
    cxx_flags: tuple[str, ...]  # set(CMAKE_CXX_FLAGS ...)
    include_dirs: tuple[Path, ...]  # include_directories(...)
    link_libraries: tuple[str, ...]  # target_link_libraries(tensorflow_inference ...)


def _command(text: str, name: str, first: str | None = None) -> list[str]:
    """The arguments of the CMake command ``name(...)`` (whose first argument is ``first``)."""
    for match in re.finditer(rf"\b{name}\s*\(([^)]*)\)", text):
        arguments = re.findall(r'"(?:[^"\\]|\\[\s\S])*"|[^\s"]+', match.group(1))
        if first is None or (arguments and arguments[0] == first):
            return arguments
    raise AssertionError(f"no {name}({first or ''} ...) in the recipe")


def read_recipe(tree: Path) -> Recipe:
    recipe = tree / treegen.CMAKE_RECIPE
    text = re.sub(r"#[^\n]*", "", recipe.read_text())
    variables = {"CMAKE_CURRENT_SOURCE_DIR": str(recipe.parent), "CMAKE_CXX_FLAGS": ""}
    root_args = _command(text, "get_filename_component", "TENSORFLOW_ROOT_DIR")
    variables["TENSORFLOW_ROOT_DIR"] = str((recipe.parent / root_args[1]).resolve())

    def expand(value: str) -> str:
        return re.sub(r"\$\{(\w+)\}", lambda m: variables[m.group(1)], value.strip('"'))

    variables["PREBUILT_DIR"] = expand(_command(text, "set", "PREBUILT_DIR")[1])
    globs: dict[str, list[str]] = {}
    for match in re.finditer(r"\bfile\s*\(\s*GLOB\s+(\w+)\s+([^)\s]+)\s*\)", text):
        pattern = Path(expand(match.group(2)))
        globs[match.group(1)] = sorted(str(path.resolve()) for path in pattern.parent.glob(pattern.name))
    sources: list[Path] = []
    for argument in _command(text, "add_library", treegen.JNI_LIBRARY)[2:]:
        variable = re.fullmatch(r"\$\{(\w+)\}", argument)
        if variable and variable.group(1) in globs:
            sources.extend(Path(path) for path in globs[variable.group(1)])
        else:
            sources.append(Path(expand(argument)).resolve())
    flags = expand(" ".join(_command(text, "set", "CMAKE_CXX_FLAGS")[1:])).replace("\\\n", " ").replace("\\", " ")
    return Recipe(
        sources=tuple(sources),
        cxx_flags=tuple(flags.split()),
        include_dirs=tuple(Path(expand(argument)) for argument in _command(text, "include_directories")),
        link_libraries=tuple(_command(text, "target_link_libraries", treegen.JNI_LIBRARY)[1:]),
    )


def widen_android_guards(text: str) -> str:
    """``text`` with r1.9's ``#ifdef __ANDROID__`` / ``#ifndef __ANDROID__`` holding for
    ``IS_SLIM_BUILD`` too, as later TensorFlow's guards do: c_api.cc for the host's slim library."""
    text = re.sub(r"^#ifndef __ANDROID__\b", "#if !defined(__ANDROID__) && !defined(IS_SLIM_BUILD)", text, flags=re.M)
    return re.sub(r"^#ifdef __ANDROID__\b", "#if defined(__ANDROID__) || defined(IS_SLIM_BUILD)", text, flags=re.M)


def host_sources(recipe: Recipe, work: Path) -> list[Path]:
    """The recipe's sources for this machine: those with Android-only guards from a widened copy."""
    sources = []
    for source in recipe.sources:
        text = source.read_text()
        widened = widen_android_guards(text)
        if widened == text:
            sources.append(source)
            continue
        copy = work / "widened" / source.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(widened)
        sources.append(copy)
    return sources


# --- GraphDefs, written in protobuf's wire format -------------------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def graph_def(op: str) -> bytes:
    """A GraphDef: a float [2, 3] Placeholder ``x`` and ``y = op(x)``."""
    dt_float = _varint(6 << 3) + _varint(1)  # AttrValue.type = DT_FLOAT
    shape = _field(7, _field(2, _field(1, b"") + _varint(1 << 3) + _varint(2)) + _field(2, _varint(1 << 3) + _varint(3)))
    x = (_field(1, b"x") + _field(2, b"Placeholder") + _field(5, _field(1, b"dtype") + _field(2, dt_float))
         + _field(5, _field(1, b"shape") + _field(2, shape)))
    y = _field(1, b"y") + _field(2, op.encode()) + _field(3, b"x") + _field(5, _field(1, b"T") + _field(2, dt_float))
    return _field(1, x) + _field(1, y)


# --- The build, shared by the tests of this module ------------------------------------------------


@dataclass(frozen=True)
class Built:
    tree: Path
    lib_dir: Path  # libtensorflow_inference.so, and libtensorflow_jni.so (the same) for NativeLibrary
    classes: Path  # the Java API, contrib/android and the host android.* stand-ins
    work: Path


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


@pytest.fixture(scope="module")
def built(pristine_trees, tmp_path_factory) -> Built:
    work = tmp_path_factory.mktemp("java-api")
    tree = Path(shutil.copytree(pristine_trees["tf1"], work / "tf1", symlinks=True))
    model = work / "ops.json"
    model.write_text(json.dumps([["Placeholder", "PlaceholderOp"], ["Identity", "IdentityOp"]]))
    out = work / "out"
    code = main(["build", "--source", str(tree), "--model", str(model), "--out", str(out),
                 "--target", "linux-x86_64", "--flavour", "makefile", "--local", "--jobs", "2"])
    assert code == 0

    recipe = read_recipe(tree)
    jdk = Path(shutil.which("javac") or "javac").resolve().parents[1]
    lib_dir = work / "lib"
    lib_dir.mkdir()
    library = lib_dir / f"lib{treegen.JNI_LIBRARY}.so"
    inputs = link_inputs(get_target("linux-x86_64"), out)
    flags = [flag for flag in recipe.cxx_flags if flag not in ARM_ONLY_FLAGS]
    # The recipe's compile flags and include directories, then a shared-library link whose
    # exports are those of the tree's version script (as TensorFlow's Bazel rule links it).
    compile_and_link = [
        "g++", *flags, "-shared", "-o", str(library), *(str(source) for source in host_sources(recipe, work)),
        f"-I{jdk / 'include'}", f"-I{jdk / 'include' / 'linux'}",
        *(f"-I{directory}" for directory in recipe.include_dirs),
        "-Wl,--whole-archive", *(str(out / name) for name in inputs.whole_archive), "-Wl,--no-whole-archive",
        *(str(out / name) for name in inputs.libs),
        f"-Wl,--version-script={tree / treegen.JNI_VERSION_SCRIPT}", "-Wl,--no-undefined", "-lpthread",
    ]
    linked = _run(compile_and_link)
    assert linked.returncode == 0, linked.stderr[-4000:]
    (lib_dir / "libtensorflow_jni.so").symlink_to(library.name)

    standins = android_java.write_runtime_standins(work / "android-runtime")
    api = [path for path in android_java.java_sources(*(tree / d for d in treegen.JAVA_API_DIRS))
           if not path.is_relative_to(tree / treegen.JAVA_EXAMPLES_DIR)]
    classes = work / "classes"
    compiled = android_java.javac([*api, *android_java.java_sources(standins)], classes)
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    return Built(tree=tree, lib_dir=lib_dir, classes=classes, work=work)


def _java(built: Built, main_class: str, *args: str, classpath: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    cp = ":".join(str(path) for path in (built.classes, *classpath))
    return _run(["java", f"-Djava.library.path={built.lib_dir}", "-cp", cp, main_class, *args])


# --- Tests ------------------------------------------------------------------------------------------


def test_the_recipe_names_the_trees_sources(tf1_tree):
    recipe = read_recipe(tf1_tree)
    relative = [source.relative_to(tf1_tree.resolve()).as_posix() for source in recipe.sources]
    jni = sorted(path.relative_to(tf1_tree).as_posix() for path in (tf1_tree / treegen.ANDROID_JNI_DIR).glob("*.cc"))
    native = sorted(path.relative_to(tf1_tree).as_posix() for path in (tf1_tree / treegen.JAVA_NATIVE_DIR).glob("*.cc"))
    assert relative == [*jni, *treegen.C_API_SOURCES, *native]
    assert jni == [f"{treegen.ANDROID_JNI_DIR}/run_stats_jni.cc"]
    assert len(native) == 8 and all((tf1_tree / path).is_file() for path in relative)
    assert {"-DIS_SLIM_BUILD", "-std=c++11", "-fno-rtti", "-fno-exceptions", "-DGOOGLE_PROTOBUF_NO_RTTI",
            "-DGOOGLE_PROTOBUF_NO_STATIC_INITIALIZER"} <= set(recipe.cxx_flags)
    assert recipe.link_libraries == ("android", "dl", "log", "m", "z", "lib_tf", "lib_proto", "lib_nsync")
    assert tf1_tree.resolve() in recipe.include_dirs
    gradle = (tf1_tree / treegen.GRADLE_RECIPE).read_text()
    assert all(f'"${{TF_SRC_DIR}}/{d}"' in gradle for d in treegen.JAVA_API_DIRS) and "exclude '**/examples/**'" in gradle
    assert all((tf1_tree / path).is_file() for path in treegen.DEMO_SOURCES)


@pytest.mark.compiler
def test_c_api_compiles_on_this_machine_only_with_its_android_guards_widened(tf1_tree, tmp_path):
    """As r1.9's c_api.cc: off Android it needs tensorflow/cc, IS_SLIM_BUILD or not."""
    c_api = tf1_tree / "tensorflow/c/c_api.cc"
    common = ["g++", "-std=c++11", "-DIS_SLIM_BUILD", "-fsyntax-only", f"-I{tf1_tree}"]
    as_is = _run([*common, str(c_api)])
    assert as_is.returncode != 0 and "tensorflow/cc/framework/gradients.h" in as_is.stderr
    widened = tmp_path / "c_api.cc"
    widened.write_text(widen_android_guards(c_api.read_text()))
    assert widened.read_text() != c_api.read_text()
    done = _run([*common, str(widened)])
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.compiler
@pytest.mark.android_packaging
@needs_jdk
@needs_junit
def test_the_trees_junit_tests_pass(built):
    sources = android_java.java_sources(built.tree / treegen.JAVA_TESTS_DIR)
    tests = built.work / "test-classes"
    compiled = android_java.javac(sources, tests, (built.classes, JUNIT))
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    declared = sum(path.read_text().count("@Test") for path in sources)
    assert declared == treegen.JAVA_TEST_COUNT

    ran = _java(built, "org.junit.runner.JUnitCore", *treegen.JAVA_TEST_CLASSES, classpath=(tests, JUNIT))
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr[-2000:]
    assert f"OK ({treegen.JAVA_TEST_COUNT} tests)" in ran.stdout


INFERENCE_MAIN = """
import android.content.res.AssetManager;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import org.tensorflow.contrib.android.TensorFlowInferenceInterface;

public class InferenceMain {
  public static void main(String[] args) throws Exception {
    AssetManager assets = new AssetManager(new File(args[0]));
    TensorFlowInferenceInterface tf =
        new TensorFlowInferenceInterface(assets, "file:///android_asset/identity.pb");
    System.out.println("x shape: " + tf.graphOperation("x").output(0).shape());
    tf.feed("x", new float[] {1.5f, -2f, 3f, 4f, 5.25f, -6f}, 2, 3);
    tf.run(new String[] {"y"}, true);
    float[] y = new float[6];
    tf.fetch("y", y);
    StringBuilder line = new StringBuilder("y:");
    for (float value : y) line.append(' ').append(value);
    System.out.println(line);
    System.out.println("stats: " + tf.getStatString().contains("1 runs"));
    tf.feed("x:0", new float[] {7f, 8f, 9f, 10f, 11f, 12f}, 2, 3);
    tf.run(new String[] {"y:0"});
    tf.fetch("y:0", y);
    System.out.println("again: " + y[0] + " " + y[5]);
    try {
      tf.graphOperation("nowhere");
    } catch (RuntimeException e) {
      System.out.println("missing: " + e.getMessage());
    }
    tf.close();

    InputStream stream = new FileInputStream(new File(args[0], "sqrt.pb"));
    TensorFlowInferenceInterface sqrt = new TensorFlowInferenceInterface(stream);
    stream.close();
    sqrt.feed("x", new float[] {1f, 4f, 9f, 16f, 25f, 36f}, 2, 3);
    try {
      sqrt.run(new String[] {"y"});
      System.out.println("ran without a kernel");
    } catch (IllegalArgumentException e) {
      System.out.println("refused: " + e.getMessage());
    }
    sqrt.close();
  }
}
"""


@pytest.mark.compiler
@pytest.mark.android_packaging
@needs_jdk
def test_the_inference_interface_runs_on_the_host_jvm(built):
    assets = built.work / "assets"
    assets.mkdir()
    (assets / "identity.pb").write_bytes(graph_def("Identity"))
    (assets / "sqrt.pb").write_bytes(graph_def("Sqrt"))
    source = built.work / "main" / "InferenceMain.java"
    source.parent.mkdir()
    source.write_text(INFERENCE_MAIN)
    main_classes = built.work / "main-classes"
    compiled = android_java.javac([source], main_classes, (built.classes,))
    assert compiled.returncode == 0, compiled.stderr

    ran = _java(built, "InferenceMain", str(assets), classpath=(main_classes,))
    assert ran.returncode == 0, ran.stdout + ran.stderr[-4000:]
    assert ran.stdout.splitlines() == [
        "x shape: [2, 3]",
        "y: 1.5 -2.0 3.0 4.0 5.25 -6.0",
        "stats: true",
        "again: 7.0 12.0",
        "missing: Node 'nowhere' does not exist in model 'file:///android_asset/identity.pb'",
        "refused: No OpKernel was registered to support Op 'Sqrt' used by node y",
    ]
    # The library was not loaded yet, so the interface loaded it after probing with RunStats.
    log = ran.stderr.splitlines()
    assert "I/TensorFlowInferenceInterface: TensorFlow native methods not found, attempting to load via tensorflow_inference" in log
    assert "I/TensorFlowInferenceInterface: Successfully loaded model from 'file:///android_asset/identity.pb'" in log
    assert "E/TensorFlowInferenceInterface: Failed to run TensorFlow inference with inputs:[x], outputs:[y]" in log


@pytest.mark.android_packaging
@needs_jdk
def test_the_demo_sources_compile_against_the_api(tf1_tree, tmp_path):
    stubs = android_java.write_compile_stubs(tmp_path / "android-stubs")
    stub_classes = tmp_path / "stub-classes"
    assert android_java.javac(android_java.java_sources(stubs), stub_classes).returncode == 0
    api = [path for path in android_java.java_sources(*(tf1_tree / d for d in treegen.JAVA_API_DIRS))
           if not path.is_relative_to(tf1_tree / treegen.JAVA_EXAMPLES_DIR)]
    api_classes = tmp_path / "api-classes"
    compiled = android_java.javac(api, api_classes, (stub_classes,))
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    demo = android_java.java_sources(tf1_tree / treegen.DEMO_SOURCES_DIR)
    assert [path.relative_to(tf1_tree).as_posix() for path in demo] == sorted(treegen.DEMO_SOURCES)
    compiled = android_java.javac(demo, tmp_path / "demo-classes", (api_classes, stub_classes))
    assert compiled.returncode == 0, compiled.stderr[-4000:]
    assert (tmp_path / "demo-classes/org/tensorflow/demo/TensorFlowYoloDetector.class").is_file()
    # The example LabelImage, left out of the Android build, compiles against the API too.
    examples = android_java.javac(android_java.java_sources(tf1_tree / treegen.JAVA_EXAMPLES_DIR),
                                  tmp_path / "example-classes", (api_classes,))
    assert examples.returncode == 0, examples.stderr[-4000:]


@pytest.mark.android_ndk
def test_the_jni_sources_compile_with_the_ndk_for_arm64(tf1_tree, tmp_path, mini_ndk):
    clang = mini_ndk / "toolchains/llvm/prebuilt/linux-x86_64/bin/aarch64-linux-android21-clang++"
    recipe = read_recipe(tf1_tree)
    flags = [flag for flag in recipe.cxx_flags if flag not in ARM_ONLY_FLAGS]
    for source in recipe.sources:
        done = _run([str(clang), *flags, "-c", str(source), "-o", str(tmp_path / f"{source.stem}.o"),
                     *(f"-I{directory}" for directory in recipe.include_dirs)])
        assert done.returncode == 0, f"{source}: {done.stderr[-3000:]}"
    # Without IS_SLIM_BUILD too: r1.9's c_api.cc guards on the compiler's __ANDROID__.
    without = [flag for flag in flags if flag != "-DIS_SLIM_BUILD"]
    c_api = tf1_tree / "tensorflow/c/c_api.cc"
    done = _run([str(clang), *without, "-c", str(c_api), "-o", str(tmp_path / "c_api_mobile.o"), f"-I{tf1_tree}"])
    assert done.returncode == 0, done.stderr[-3000:]
