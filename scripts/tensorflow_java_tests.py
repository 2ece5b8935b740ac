"""Run a TensorFlow tree's own Java unit tests against the JNI library of a tfbuild build.

    python scripts/tensorflow_java_tests.py --out-dir OUT --source TREE [--work DIR]

OUT is a linux build made with ``--java-api tensorflow`` (its ``libtensorflow_inference.so`` runs
on this machine's Java VM). The script compiles the tree's Java API
(``tensorflow/java/src/main/java``, the examples left out) and its tests
(``tensorflow/java/src/test/java``) with ``javac --release 8`` against Debian's JUnit 4, then runs
every ``*Test`` class with ``org.junit.runner.JUnitCore``, the library found under both names
TensorFlow's Java loads (``tensorflow_jni`` for ``org.tensorflow.NativeLibrary``,
``tensorflow_inference`` for the Android interface).

The tests run where TensorFlow's Bazel runs them, in a directory shaped as the tree (some read test
data by a path relative to it, ``tensorflow/cc/saved_model/testdata``): links to the tree's files,
and beside them the custom-op libraries ``tensorflow/java/BUILD`` declares with
``tf_custom_op_library`` (``tensorflow/java/my_test_op.so``, which ``TensorFlowTest.loadLibrary``
loads). Each is built here from its sources as Bazel builds one, against the tree's headers and
linked to the JNI library, as Bazel's is to ``libtensorflow_framework.so``: the JNI library of a
desktop build exports TensorFlow's C++ API, so the op registers in its registry. The tree is not
written to.

A test file that imports a library no Debian package brings is not compiled, and the output says
so: ``OperatorProcessorTest`` needs Google's compile-testing, which Debian does not package (it
has truth, guava and auto-common). It prints one line per class and every failure with its first
message line, then ``N passed, N failed``; exit 0 only when none failed.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tfbuild.pipeline.outputs.linkflags import HEADER_DIRS

JUNIT = Path("/usr/share/java/junit4.jar")
MAIN = "tensorflow/java/src/main/java"
TESTS = "tensorflow/java/src/test/java"
JAVA_PACKAGE = "tensorflow/java"
OP_LIBRARY_FLAGS = ("-std=c++11", "-O2", "-DNDEBUG", "-fPIC", "-shared")
"""How a custom-op library compiles (``tf_custom_op_library``: C++11, position independent)."""
_IMPORT = re.compile(r"^import\s+(?:static\s+)?([\w.]+)\s*;", re.MULTILINE)
_KNOWN = ("java.", "javax.", "org.junit.", "org.hamcrest.", "org.tensorflow.")
_RESULT = re.compile(r"^Tests run: (\d+),\s+Failures: (\d+)", re.MULTILINE)
_OK = re.compile(r"^OK \((\d+) tests?\)", re.MULTILINE)
_FAILURE = re.compile(r"^\d+\) (\w+)\((\S+)\)\n(.*)$", re.MULTILINE)


def _javac(sources: list[Path], out: Path, classpath: list[Path]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    argv = ["javac", "--release", "8", "-encoding", "UTF-8", "-nowarn", "-Xlint:-options", "-proc:none",
            "-d", str(out), "-cp", ":".join(map(str, classpath)), *map(str, sources)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"javac failed: {done.stderr.strip().splitlines()[0] if done.stderr.strip() else done.returncode}")


def _compilable(path: Path) -> str | None:
    """None when every import is of a library the run has; else the first one it lacks."""
    return next((name for name in _IMPORT.findall(path.read_text(encoding="utf-8")) if not name.startswith(_KNOWN)),
                None)


def custom_op_libraries(tree: Path) -> dict[str, list[str]]:
    """The ``tf_custom_op_library`` rules of ``tensorflow/java/BUILD``: each library's path in the
    tree as Bazel writes it (package/name) and its sources (tree paths)."""
    build = tree / JAVA_PACKAGE / "BUILD"
    if not build.is_file():
        return {}
    libraries: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(build.read_text(encoding="utf-8"), str(build))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tf_custom_op_library":
            words = {keyword.arg: keyword.value for keyword in node.keywords}
            name, srcs = words.get("name"), words.get("srcs")
            if isinstance(name, ast.Constant) and isinstance(srcs, ast.List):
                libraries[f"{JAVA_PACKAGE}/{name.value}"] = [
                    f"{JAVA_PACKAGE}/{item.value}" for item in srcs.elts if isinstance(item, ast.Constant)]
    return libraries


def build_op_library(tree: Path, sources: list[str], library: Path, jni_library: Path) -> None:
    """``library`` from ``sources``, against the tree's headers, linked to ``jni_library`` (whose
    TensorFlow symbols it uses; ``--no-undefined`` proves the library exports them all)."""
    library.parent.mkdir(parents=True, exist_ok=True)
    argv = ["g++", *OP_LIBRARY_FLAGS, *(f"-I{tree / directory}" for directory in HEADER_DIRS),
            "-o", str(library), *(str(tree / source) for source in sources if source.endswith(".cc")),
            str(jni_library), "-Wl,--no-undefined"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{library.name}: the build failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")


def run_directory(tree: Path, run: Path, built: dict[str, Path]) -> None:
    """``run`` shaped as ``tree``: a link to each of its entries, except the directories on the
    way to a ``built`` file, which are made with links to their own entries; the built files
    are linked at their tree paths."""
    def fill(directory: Path, relative: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        inside = {Path(path).parts[len(relative.parts)] for path in built if Path(path).parts[:len(relative.parts)]
                  == relative.parts}
        for entry in sorted((tree / relative).iterdir()):
            if entry.name not in inside and not (directory / entry.name).is_symlink():
                (directory / entry.name).symlink_to(entry)
        for name in sorted(inside):
            target = relative / name
            if target.as_posix() in built:
                (directory / name).unlink(missing_ok=True)
                (directory / name).symlink_to(built[target.as_posix()])
            else:
                fill(directory / name, target)
    fill(run, Path())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    out, tree = args.out_dir.resolve(), args.source.resolve()
    record = json.loads((out / "manifest.json").read_text()).get("android_jni") or {}
    if record.get("java_api") != "tensorflow":
        sys.exit(f"{out}: not a build of TensorFlow's Java API "
                 "(tfbuild build --target linux-x86_64 --java-api tensorflow)")
    work = args.work or Path(tempfile.mkdtemp(prefix="tf-java-tests-"))
    libs = work / "libs"
    libs.mkdir(parents=True, exist_ok=True)
    for name in ("libtensorflow_jni.so", "libtensorflow_inference.so"):
        (libs / name).unlink(missing_ok=True)
        (libs / name).symlink_to(out / record["library"])

    main_sources = sorted(path for path in (tree / MAIN).rglob("*.java") if "examples" not in path.parts)
    _javac(main_sources, work / "api", [])
    tests, skipped = [], []
    for path in sorted((tree / TESTS).rglob("*.java")):
        missing = _compilable(path)
        (skipped.append((path, missing)) if missing else tests.append(path))
    _javac(tests, work / "tests", [work / "api", JUNIT])
    for path, missing in skipped:
        print(f"not compiled: {path.relative_to(tree)} (imports {missing}, which no Debian package brings)")

    built = {}
    for relative, sources in custom_op_libraries(tree).items():
        built[relative] = work / "op_libraries" / relative
        build_op_library(tree, sources, built[relative], out / record["library"])
        print(f"built {relative} from {', '.join(sources)}, linked to {record['library']}")
    run = work / "run"
    run_directory(tree, run, built)

    passed = failed = 0
    for path in tests:
        if not path.name.endswith("Test.java"):
            continue
        name = path.relative_to(tree / TESTS).with_suffix("").as_posix().replace("/", ".")
        done = subprocess.run(
            ["java", f"-Djava.library.path={libs}", "-cp", ":".join(map(str, (work / "api", work / "tests", JUNIT))),
             "org.junit.runner.JUnitCore", name], capture_output=True, text=True, cwd=run, timeout=600, check=False)
        ok, result = _OK.search(done.stdout), _RESULT.search(done.stdout)
        if ok:
            ran, failures = int(ok.group(1)), 0
        elif result:
            ran, failures = int(result.group(1)), int(result.group(2))
        else:
            ran, failures = 0, 1
        passed, failed = passed + ran - failures, failed + failures
        print(f"{name}: {ran - failures} passed, {failures} failed")
        for method, _, message in _FAILURE.findall(done.stdout):
            print(f"  FAILED {method}: {message.strip()[:300]}")
        if not ok and not result:
            print(f"  (no JUnit result; exit {done.returncode}) {done.stderr.strip()[-300:]}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
