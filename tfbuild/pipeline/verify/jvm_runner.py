"""The Java VM runner: ``TensorFlowInferenceInterface`` itself, run on this machine's Java VM over
the JNI library a Linux build made with ``--java-api tensorflow``.

An Android ``.so`` cannot be loaded here (no bionic loader), but the same JNI sources built for
Linux can, so this runs the very Java an app runs (the tree's ``org.tensorflow`` classes and
``TensorFlowInferenceInterface``, copied into the build's ``java/`` directory) with the run-time
``android.*`` stand-ins of ``templates/android/stand_ins/`` (:file:`README.md` there). The runner
(``templates/verify/JvmRunner.java.j2``) feeds the verification's inputs, runs, and fetches every
tensor the reference wrote, with its dtype, into the tensor-file format the comparison reads.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild import __version__
from tfbuild.errors import InputFileError, ToolchainError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.planning.plan import AndroidJniRecord, BuildPlan, GeneratedFile, Step
from tfbuild.pipeline.verify.tensor_file import MAGIC
from tfbuild.resources import templates_dir
from tfbuild.templating import render

COMPILE_STEP = "compile the Java VM runner"
RUNNER_CLASS = "JvmRunner"
STAND_INS = "android/stand_ins"
JVM_DIR = "jvm"


@dataclass(frozen=True)
class JvmJob:
    name: str
    graph: Path
    inputs: Path
    outputs: Path
    expected: Path
    """The reference's run: the tensors to fetch and their dtypes."""


def check_jvm_build(out: Path, record: AndroidJniRecord | None) -> AndroidJniRecord:
    """The build's JNI library of TensorFlow's Java API, or a one-line reason it has none to run."""
    if record is None or record.java_api != "tensorflow":
        raise ToolchainError(
            f"{out}: the build made no JNI library of TensorFlow's Java API",
            hint="build the tree for linux-x86_64 with --java-api tensorflow, then verify --runner jvm",
        )
    if not (out / record.library).is_file():
        raise InputFileError(f"{out / record.library}: the JNI library the manifest names is missing", hint="rebuild")
    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            raise ToolchainError(f"{tool}: not on PATH", hint="install a JDK (Debian: default-jdk-headless)")
    return record


def plan_jvm_runner(out: Path, work: Path, record: AndroidJniRecord, jobs: Sequence[JvmJob]) -> BuildPlan:
    """Compile the runner with the build's Java API and the stand-ins, then run it once per job."""
    jvm = work / JVM_DIR
    stand_ins = templates_dir() / STAND_INS
    generated = [
        GeneratedFile(jvm / "src" / path.relative_to(stand_ins), path.read_text(encoding="utf-8"))
        for path in sorted(stand_ins.rglob("*.java"))
    ]
    generated.append(GeneratedFile(jvm / "src" / f"{RUNNER_CLASS}.java", render(
        "verify/JvmRunner.java.j2", tfbuild_version=__version__, magic=MAGIC.decode("ascii"))))
    classes = jvm / "classes"
    sources = (*(file.path for file in generated), *(out / source for source in record.java_sources))
    compile_argv = ("javac", "--release", "8", "-encoding", "UTF-8", "-nowarn", "-Xlint:-options",
                    "-d", str(classes), *map(str, sources))
    workdir = PurePosixPath(work.as_posix())
    steps = [Step(COMPILE_STEP, compile_argv, workdir)]
    for job in jobs:
        steps.append(Step(job.name, (
            "java", f"-Djava.library.path={out}", "-cp", str(classes), RUNNER_CLASS,
            str(job.graph), str(job.inputs), str(job.outputs), str(job.expected)), workdir))
    return BuildPlan(
        target=f"verify-{record.library}-jvm", flavour=Flavour.MAKEFILE, image=None, mounts=(),
        steps=tuple(steps), generated_files=tuple(generated), artifacts=(), output_dir=work,
    )


def describe(record: AndroidJniRecord) -> str:
    return (f"{record.java_package}.{record.java_class} on this machine's Java VM over the build's "
            f"{record.library} (TensorFlow's Java API, --java-api tensorflow)")
