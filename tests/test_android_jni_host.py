"""The JNI library's two halves, the generated native methods and the AAR's Java class, run
together in a real Java VM. An Android ``.so`` cannot be loaded here (no bionic linker), so the
same sources are built for this machine: the native side compiled with g++ against a
``linux-x86_64`` Makefile build of the generated TF 1.x tree and the JDK's ``jni.h``, linked as
the Android library is (the archive whole, only the JNI symbols exported), and the Java class
compiled by ``javac``. A small Java program then runs a GraphDef through it.

What this proves: the JNI names and signatures of the two templates agree, the float arrays and
shapes cross the boundary intact, and TensorFlow's errors come back as Java exceptions. What it
does not: kernel arithmetic (the tree's stand-in session forwards Identity itself).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.pipeline.outputs.android.aar import java_source
from tfbuild.pipeline.outputs.android.jni_library import jni_source
from tfbuild.pipeline.outputs.android.names import JAVA_CLASS
from tfbuild.pipeline.outputs.exports import JNI, render_export_file
from tfbuild.pipeline.outputs.linkflags import HEADER_DIRS, link_inputs
from tfbuild.toolchain.targets import get_target

pytestmark = [pytest.mark.compiler, pytest.mark.android_packaging, pytest.mark.tensorflow]

PACKAGE = "com.example.hostcheck"
MAIN = """
import com.example.hostcheck.TensorFlowInference;
import java.nio.file.Files;
import java.nio.file.Paths;

public class Main {
  public static void main(String[] args) throws Exception {
    byte[] graph = Files.readAllBytes(Paths.get(args[0]));
    try (TensorFlowInference tf = new TensorFlowInference(graph)) {
      float[][] out = tf.run(new String[] {"x"}, new float[][] {{1.5f, -2f, 3f, 4f, 5.25f, -6f}},
                             new long[][] {{2, 3}}, new String[] {"y:0"});
      StringBuilder line = new StringBuilder("y:");
      for (float value : out[0]) line.append(' ').append(value);
      System.out.println(line);
      try {
        tf.run(new String[] {"x"}, new float[][] {{1f, 2f}}, new long[][] {{2, 3}}, new String[] {"y:0"});
      } catch (IllegalArgumentException e) {
        System.out.println("refused: " + e.getMessage());
      }
    } catch (RuntimeException e) {
      System.out.println("failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
"""


def binary_graph(path: Path, op: str) -> Path:
    """A binary GraphDef: a float [2, 3] placeholder ``x`` and ``y = op(x)``."""
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    text = ('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }\n'
            '  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }\n'
            f'node {{ name: "y" op: "{op}" input: "x" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}\n')
    path.write_bytes(text_format.Parse(text, graph_pb2.GraphDef()).SerializeToString())
    return path


def test_the_java_class_runs_a_graph_through_the_native_methods(tf1_tree, tmp_path, capsys):
    model = tmp_path / "ops.json"
    model.write_text(json.dumps([["Placeholder", "PlaceholderOp"], ["Identity", "IdentityOp"]]))
    out = tmp_path / "out"
    code = main(["build", "--source", str(tf1_tree), "--model", str(model), "--out", str(out),
                 "--target", "linux-x86_64", "--flavour", "makefile", "--local", "--jobs", "2"])
    assert code == 0, capsys.readouterr().err[-3000:]

    work = tmp_path / "jni"
    work.mkdir()
    (work / "jni_inference.cc").write_text(jni_source(PACKAGE, "hostcheck", "linux-x86_64"))
    exports = render_export_file(JNI, "bfd", stem="hostcheck")
    (work / exports.file_name).write_text(exports.text)
    jdk = Path(shutil.which("javac") or "javac").resolve().parents[1]
    inputs = link_inputs(get_target("linux-x86_64"), out)
    compile_and_link = [
        "g++", "-std=c++11", "-O1", "-shared", "-fPIC", "-o", str(work / "libhostcheck.so"), str(work / "jni_inference.cc"),
        f"-I{jdk / 'include'}", f"-I{jdk / 'include' / 'linux'}",
        *(f"-I{tf1_tree / directory}" for directory in HEADER_DIRS),
        "-Wl,--whole-archive", *(str(out / name) for name in inputs.whole_archive), "-Wl,--no-whole-archive",
        *(str(out / name) for name in inputs.libs), exports.link_flag(work / exports.file_name),
        "-Wl,--no-undefined", "-lpthread",
    ]
    built = subprocess.run(compile_and_link, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    dynamic = subprocess.run(["nm", "-D", "--defined-only", str(work / "libhostcheck.so")], capture_output=True,
                             text=True, check=True).stdout
    exported = {line.split()[-1] for line in dynamic.splitlines() if line.strip()}
    assert {"JNI_OnLoad"} < exported and all(n == "JNI_OnLoad" or n.startswith("Java_com_example_hostcheck_")
                                             for n in exported), exported

    sources = work / "src"
    (sources / "com/example/hostcheck").mkdir(parents=True)
    (sources / "com/example/hostcheck" / f"{JAVA_CLASS}.java").write_text(java_source(PACKAGE, JAVA_CLASS, "hostcheck"))
    (sources / "Main.java").write_text(MAIN)
    classes = work / "classes"
    javac = subprocess.run(["javac", "-d", str(classes), "-sourcepath", str(sources), str(sources / "Main.java")],
                           capture_output=True, text=True)
    assert javac.returncode == 0, javac.stderr

    def java(graph: Path) -> str:
        done = subprocess.run(["java", f"-Djava.library.path={work}", "-cp", str(classes), "Main", str(graph)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    ran = java(binary_graph(tmp_path / "identity.pb", "Identity")).splitlines()
    assert ran[0] == "y: 1.5 -2.0 3.0 4.0 5.25 -6.0"
    assert ran[1] == "refused: x: 2 floats for shape [2,3]"
    missing = java(binary_graph(tmp_path / "sqrt.pb", "Sqrt"))
    # As in TensorFlow, the session takes the graph and the run fails on the kernel it lacks.
    assert missing.strip() == "failed: IllegalStateException: No OpKernel was registered to support Op 'Sqrt' used by node y"
