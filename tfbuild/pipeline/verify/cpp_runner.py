"""The C++ runner: a small program linked against a Makefile build's libraries, compiled and run
as a :class:`~tfbuild.pipeline.planning.plan.BuildPlan`.

Its source is rendered from ``templates/verify/runner.cc.j2`` and ``tensor_file.h.j2`` into the
verification's directory. It is compiled with the target's compiler and its own flags (the
profile's ``CXX`` and ``optflags``: ``-march``, float ABI), against the headers of the tree that
was built (the include directories ``tfbuild linkflags`` gives apps), and linked as an app links
the libraries: ``libtensorflow-core.a`` whole, then protobuf, nsync and the system libraries,
and the link flags of the build's size profile (:func:`~tfbuild.pipeline.outputs.linkflags.link_inputs`).
For Android (a Makefile build of the clang adapter), the compiler is the NDK's clang the build
used (the manifest's ``android_ndk``, or ``--ndk``) with the adapter's ``CXX`` and ``CXXFLAGS``
(``--target``, the NDK's sysroot, libc++, the ABI's flags), and the runner is linked ``-static``
as the benchmark is: the build's liblog stub (fix-up android-static-liblog) and the system
libraries the NDK has as archives. Each model then runs as one more step, through the target's
launcher, as its architecture's record says (``toolchains/architectures``): directly on x86_64,
under its qemu-user program (with the cross sysroot for the glibc targets; a static Android
runner needs none).

Everything runs in the toolchain container the build ran in (the tree mounted read-only at
``/src``, the build's output directory at ``/out``), or on this machine with ``--local``; the
build executor runs the plan either way, so logs, time limits and Ctrl-C behave as in a build.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild import __version__
from tfbuild.errors import ConfigError, InputFileError, ToolchainError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.flavours.layout import CONTAINER_NDK, CONTAINER_OUT, CONTAINER_SRC
from tfbuild.pipeline.flavours.makefile import FULL_TYPES
from tfbuild.pipeline.outputs.android.ndk_clang import clang_toolchain, fixup_values, static_app
from tfbuild.pipeline.outputs.linkflags import HEADER_DIRS, link_inputs
from tfbuild.pipeline.planning.plan import BuildPlan, GeneratedFile, ImageSpec, Mount, Step
from tfbuild.pipeline.verify.tensor_file import MAGIC, MAX_NAME_BYTES, MAX_RANK
from tfbuild.templating import render
from tfbuild.toolchain.android_ndk import CONTAINER_HOST, NdkInfo, build_machine_host
from tfbuild.toolchain.targets import TargetProfile
from tfbuild.tree.facts import MAKEFILE, MAKEFILE_DIR

RUNNER_SOURCE = "runner.cc"
TENSOR_FILE_HEADER = "tensor_file.h"
CXX_FLAGS = ("--std=c++11", "-DNDEBUG")
"""The contrib Makefile's language level, and its release define."""
COMPILE_STEP = "compile the C++ runner"


@dataclass(frozen=True)
class RunnerJob:
    """One model run: its files on this machine (under the build's output directory) and the
    tensors to fetch."""

    name: str
    graph: Path
    inputs: Path
    outputs: Path
    fetch: tuple[str, ...]
    memmapped: bool = False
    """``graph`` is a memmapped package: the runner reads it through a ``MemmappedEnv``."""


@dataclass(frozen=True)
class CppRunnerRequest:
    """What the runner is built from and runs: the build's output directory (its libraries; the
    verification's files live below it), the tree it was built from (headers), where the runner's
    files go, and the image to run in (None: this machine)."""

    profile: TargetProfile
    artifacts_dir: Path
    source: Path
    work_dir: Path
    image: ImageSpec | None
    jobs: tuple[RunnerJob, ...]
    ndk: NdkInfo | None = None
    """The Android NDK the build used (its clang adapter): the runner is compiled with its clang."""


def runner_sources(
    directory: Path, profile: TargetProfile, *, memmapped: bool = False
) -> tuple[GeneratedFile, ...]:
    """The runner's source and the tensor file header, rendered for ``profile``; ``memmapped``:
    the runner also reads memmapped packages (it then needs the tree's ``MemmappedEnv``)."""
    header = render(
        "verify/tensor_file.h.j2",
        tfbuild_version=__version__,
        magic=MAGIC.decode("ascii"),
        magic_size=len(MAGIC),
        max_name_bytes=MAX_NAME_BYTES,
        max_rank=MAX_RANK,
    )
    runner = render("verify/runner.cc.j2", tfbuild_version=__version__, target=profile.name, memmapped=memmapped)
    return (
        GeneratedFile(directory / RUNNER_SOURCE, runner),
        GeneratedFile(directory / TENSOR_FILE_HEADER, header),
    )


def plan_cpp_runner(request: CppRunnerRequest) -> BuildPlan:
    """Compile the runner, then run it once per job; computes, runs nothing."""
    profile = request.profile
    makefile, launcher = profile.makefile, profile.launcher
    if makefile is None or launcher is None:
        raise ToolchainError(
            f"target {profile.name} has no Makefile build or no way to run its programs here",
            hint="verify runs Makefile builds of targets whose profile has a [run] table (tfbuild targets)",
        )
    if not request.work_dir.is_relative_to(request.artifacts_dir):
        raise ConfigError(f"{request.work_dir}: the runner's directory must be inside {request.artifacts_dir}")
    seen = _Paths(request)
    inputs = link_inputs(profile, request.artifacts_dir, source=request.source)
    if inputs.missing:
        raise InputFileError(
            f"{request.artifacts_dir}: the build left no {', '.join(inputs.missing)}",
            hint="verify links the runner against the build's libraries: build first",
        )
    binary = seen.out(request.work_dir / f"runner-{profile.name}")
    compiler = _android_compiler(request, seen) if request.ndk is not None else _Compiler(
        (makefile.variables.get("CXX", "g++"),), (*CXX_FLAGS, *makefile.optflags), (), profile.link.system_libs
    )
    compile_argv = (
        *compiler.cxx,
        *compiler.flags, *(f"-D{define}" for define in inputs.defines),  # lite protos: TENSORFLOW_LITE_PROTOS
        f"-I{seen.out(request.work_dir)}",
        *(f"-I{seen.tree(request.source / directory)}" for directory in HEADER_DIRS),
        str(seen.out(request.work_dir / RUNNER_SOURCE)),
        "-o", str(binary),
        *compiler.ldflags,
        "-Wl,--whole-archive",
        *(str(seen.out(request.artifacts_dir / name)) for name in inputs.whole_archive),
        "-Wl,--no-whole-archive",
        *(str(seen.out(request.artifacts_dir / name)) for name in inputs.libs),
        *(f"-l{lib}" for lib in compiler.system_libs),
        *inputs.ldflags,  # the size profile's, as an app's link takes them (the gcc driver's order is free)
    )
    workdir = seen.out(request.work_dir)
    steps = [Step(COMPILE_STEP, compile_argv, workdir, notes=compiler.notes)]
    for job in request.jobs:
        files = (seen.out(job.graph), seen.out(job.inputs), seen.out(job.outputs))
        flag = ("--memmapped",) if job.memmapped else ()
        steps.append(Step(job.name, (*launcher, str(binary), *flag, *map(str, files), *job.fetch), workdir))
    mounts: tuple[Mount, ...] = ()
    if request.image is not None:
        mounts = (
            Mount(target=CONTAINER_SRC, source=request.source, read_only=True),
            Mount(target=CONTAINER_OUT, source=request.artifacts_dir),
            *((Mount(target=CONTAINER_NDK, source=request.ndk.path, read_only=True),) if request.ndk else ()),
        )
    return BuildPlan(
        target=f"verify-{profile.name}",
        flavour=Flavour.MAKEFILE,
        image=request.image,
        mounts=mounts,
        steps=tuple(steps),
        generated_files=runner_sources(request.work_dir, profile, memmapped=any(job.memmapped for job in request.jobs)),
        artifacts=(),  # the runs write into the output directory, mounted in the container
        output_dir=request.work_dir,
    )


@dataclass(frozen=True)
class _Compiler:
    """The runner's compiler driver and flags, the flags before the libraries, the system
    libraries after them, and notes for the log."""

    cxx: tuple[str, ...]
    flags: tuple[str, ...]
    ldflags: tuple[str, ...]
    system_libs: tuple[str, ...]
    notes: tuple[str, ...] = ()


def _android_compiler(request: CppRunnerRequest, seen: _Paths) -> _Compiler:
    """The clang adapter's compiler and flags for the NDK the build used, where the plan runs
    it (``/opt/android-ndk`` in the container), linked ``-static`` with the build's liblog stub."""
    ndk, profile = request.ndk, request.profile
    assert ndk is not None
    assert profile.makefile is not None
    build = profile.makefile.ndk_clang
    host = CONTAINER_HOST if request.image is not None else build_machine_host()
    if build is None or ndk.prebuilt(host) is None:
        raise ToolchainError(
            f"{ndk.where}: {ndk.name} has no clang for {host}, or {profile.name} has no clang adapter",
            hint="verify compiles its runner with the NDK's clang, as the build did: pass --ndk with that NDK",
        )
    toolchain = clang_toolchain(CONTAINER_NDK if request.image is not None else PurePosixPath(ndk.path.as_posix()),
                                host, build, None)
    makefile_dir = request.source / MAKEFILE_DIR
    stub = Path(fixup_values(toolchain, PurePosixPath(makefile_dir.as_posix()), profile.arch)["fixups_dir"])
    app = static_app(
        toolchain,
        (request.source / MAKEFILE).read_text(encoding="utf-8", errors="replace"),
        profile.arch,
        references={"OPTFLAGS": " ".join(profile.makefile.optflags), "ANDROID_TYPES": FULL_TYPES,
                    "MAKEFILE_DIR": str(seen.tree(makefile_dir))},
        system_libs=profile.link.system_libs,
        library_kinds=lambda name: ndk.library_kinds(name, build.abi_triple, toolchain.api_level, host),
        log_stub=seen.tree(stub) if (stub / "liblog.a").is_file() else None,
    )
    return _Compiler((app.cxx,), app.cxxflags, app.ldflags, app.system_libs, app.notes)


class _Paths:
    """Host paths as the plan's commands see them: the same on this machine, under ``/out`` and
    ``/src`` in the container."""

    def __init__(self, request: CppRunnerRequest) -> None:
        self._request = request

    def out(self, path: Path) -> PurePosixPath:
        if self._request.image is None:
            return PurePosixPath(path.as_posix())
        return CONTAINER_OUT / path.relative_to(self._request.artifacts_dir).as_posix()

    def tree(self, path: Path) -> PurePosixPath:
        if self._request.image is None:
            return PurePosixPath(path.as_posix())
        return CONTAINER_SRC / path.relative_to(self._request.source).as_posix()
