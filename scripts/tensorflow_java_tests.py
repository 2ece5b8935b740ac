"""Run a TensorFlow tree's own Java unit tests against the JNI library of a tfbuild build.

    python scripts/tensorflow_java_tests.py --out-dir OUT --source TREE [--work DIR]

OUT is a linux build made with ``--java-api tensorflow`` (its ``libtensorflow_inference.so`` runs
on this machine's Java VM). The script compiles the tree's Java API
(``tensorflow/java/src/main/java``, the examples left out) and its tests
(``tensorflow/java/src/test/java``) with ``javac --release 8`` against Debian's JUnit 4, then runs
every ``*Test`` class with ``org.junit.runner.JUnitCore`` in the tree's directory (some tests read
test data by a path relative to it), the library found under both names TensorFlow's Java loads
(``tensorflow_jni`` for ``org.tensorflow.NativeLibrary``, ``tensorflow_inference`` for the
Android interface). A test file that imports a library Debian's JUnit does not bring (Google's
compile-testing) is not compiled, and the output says so. It prints one line per class and every
failure with its first message line, then ``N passed, N failed``; exit 0 only when none failed.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

JUNIT = Path("/usr/share/java/junit4.jar")
MAIN = "tensorflow/java/src/main/java"
TESTS = "tensorflow/java/src/test/java"
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
        print(f"not compiled: {path.relative_to(tree)} (imports {missing}, which Debian's JUnit does not bring)")

    passed = failed = 0
    for path in tests:
        if not path.name.endswith("Test.java"):
            continue
        name = path.relative_to(tree / TESTS).with_suffix("").as_posix().replace("/", ".")
        done = subprocess.run(
            ["java", f"-Djava.library.path={libs}", "-cp", ":".join(map(str, (work / "api", work / "tests", JUNIT))),
             "org.junit.runner.JUnitCore", name], capture_output=True, text=True, cwd=tree, timeout=600, check=False)
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
