"""Compiling an app's custom-op sources into an op library, plain or selective.

An app with custom ops ships them as a library: a shared object loaded with
``tf.load_op_library`` on the host, or a static archive linked into a mobile binary. Under
SELECTIVE_REGISTRATION the same sources compile to a library that registers only the ops and
kernel classes ``ops_to_register.h`` selects, so the rest is never instantiated.

This module only plans: :func:`plan_ops_library` turns an :class:`OpsLibrarySpec` into an
:class:`OpsLibraryPlan` (every command as an argv tuple) without running anything, so the same
plan can run here (:func:`~tfbuild.pipeline.op_library.build.build_ops_library`, through the
executor as a local :class:`~tfbuild.pipeline.planning.plan.BuildPlan`) or, with a cross compiler's name
and flags, as :class:`~tfbuild.pipeline.planning.plan.Step` s inside a toolchain container
(:meth:`OpsLibraryPlan.build_steps`). Both compile against :func:`installed_tensorflow`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal, TypedDict, Unpack

from tfbuild.errors import ConfigError, ToolchainError
from tfbuild.flavour import Flavour
from tfbuild.model.header import HEADER_NAME
from tfbuild.pipeline.planning.opt_level import one_optimisation_level
from tfbuild.pipeline.planning.plan import BuildPlan, Step

LibraryKind = Literal["shared", "static"]

BASE_CFLAGS = ("-O2", "-fPIC")
"""-fPIC for static archives too, so their objects can also end up in a shared library."""

CXX_STANDARD_FLAG = "-std=c++17"

_STD_FLAG = re.compile(r"^--?std=")


@dataclass(frozen=True)
class InstalledTensorFlow:
    """The TensorFlow wheel op libraries compile against: its package directory (headers under
    ``include/``, ``libtensorflow_framework``), version, and ``tf.sysconfig``'s flags."""

    package_dir: Path
    version: str
    compile_flags: tuple[str, ...]
    link_flags: tuple[str, ...]
    git_version: str | None = None  # tf.version.GIT_VERSION, e.g. "v2.21.0-rc1-5-ga481b10260d"


@functools.lru_cache(maxsize=1)
def installed_tensorflow() -> InstalledTensorFlow:
    """The TensorFlow installed in this environment, and the flags that compile and link against it.

    TensorFlow is imported here and only here: the query needs it, ``tfbuild --help`` must not.
    The answer cannot change while the process runs, so it is computed once.
    """
    from tfbuild.tensorflow_import import import_tensorflow

    try:
        tf = import_tensorflow()
    except ImportError as error:
        raise ToolchainError(
            f"TensorFlow is not importable ({error}); op libraries compile against its headers",
            hint="install the tensorflow wheel in the environment that runs tfbuild",
        ) from error
    return InstalledTensorFlow(
        package_dir=Path(tf.sysconfig.get_lib()),
        version=str(tf.__version__),
        compile_flags=tuple(tf.sysconfig.get_compile_flags()),
        link_flags=tuple(tf.sysconfig.get_link_flags()),
        git_version=str(tf.version.GIT_VERSION),
    )


class SpecOptions(TypedDict, total=False):
    """The fields of an :class:`OpsLibrarySpec` besides its sources, output and TensorFlow's flags."""

    kind: LibraryKind
    compiler: str
    archiver: str
    extra_cflags: tuple[str, ...]
    extra_ldflags: tuple[str, ...]
    include_dirs: tuple[Path, ...]
    selective_header: Path | None
    build_dir: Path | None


@dataclass(frozen=True)
class OpsLibrarySpec:
    """What to build: sources, output and toolchain, as plain values.

    ``kind`` "shared" links a ``.so`` with ``compiler`` and ``tf_link_flags``; "static" archives
    the objects with ``archiver`` (``ar rcs``) and links nothing. ``selective_header`` is the
    path of a generated ``ops_to_register.h``; with it the sources compile with
    ``-DSELECTIVE_REGISTRATION`` and see that header. ``tf_compile_flags``/``tf_link_flags`` are
    TensorFlow's own (see :meth:`for_installed_tensorflow`); a cross build passes its target's.
    Objects and compiler logs go to ``build_dir`` (default: ``<output>.objs`` beside the output).
    """

    sources: tuple[Path, ...]
    output: Path
    kind: LibraryKind = "shared"
    compiler: str = "g++"
    archiver: str = "ar"
    extra_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    selective_header: Path | None = None
    tf_compile_flags: tuple[str, ...] = ()
    tf_link_flags: tuple[str, ...] = ()
    build_dir: Path | None = None

    @classmethod
    def for_installed_tensorflow(
        cls, sources: Sequence[Path], output: Path, **options: Unpack[SpecOptions]
    ) -> OpsLibrarySpec:
        """A spec that compiles against the TensorFlow wheel installed here; ``options`` set the
        other fields."""
        tensorflow = installed_tensorflow()
        spec = cls(
            sources=tuple(Path(source) for source in sources),
            output=Path(output),
            tf_compile_flags=tensorflow.compile_flags,
            tf_link_flags=tensorflow.link_flags,
        )
        return dataclasses.replace(spec, **options)


@dataclass(frozen=True)
class CompileStep:
    """One source compiled to one object; the compiler's output is kept in ``log``."""

    source: Path
    object_file: Path
    log: Path
    argv: tuple[str, ...]


@dataclass(frozen=True)
class OpsLibraryPlan:
    """Every command of an op-library build, computed before anything runs.

    The link (or archive) command writes ``staging_output``; only a successful build renames it
    to ``output``, so a failed build never leaves a library that looks finished.
    """

    spec: OpsLibrarySpec
    compiler: str
    cflags: tuple[str, ...]
    build_dir: Path
    compile_steps: tuple[CompileStep, ...]
    link_argv: tuple[str, ...]
    staging_output: Path
    output: Path

    @property
    def kind(self) -> LibraryKind:
        return self.spec.kind

    @property
    def tools(self) -> tuple[str, ...]:
        """The programs the plan runs, to check before running any of them."""
        return (self.compiler,) if self.kind == "shared" else (self.compiler, self.spec.archiver)

    @property
    def link_log(self) -> Path:
        """Where a build on this machine keeps the link (or archive) command's output. Source
        logs are ``<stem>.log``; this name is none of them."""
        return self.build_dir / f"{self.output.name}.{self._link_verb}.log"

    @property
    def _link_verb(self) -> str:
        return "link" if self.kind == "shared" else "archive"

    def build_steps(self, workdir: PurePosixPath) -> tuple[Step, ...]:
        """The plan as :class:`~tfbuild.pipeline.planning.plan.Step` s for a container build (paths as given
        in the spec, i.e. as the container sees them), ending with the rename into place."""
        mkdir = Step("mkdir objects", ("mkdir", "-p", str(self.build_dir)), workdir)
        return (mkdir, *self._steps(workdir, on_host=False))

    def host_plan(self, workdir: Path) -> BuildPlan:
        """The plan as a build on this machine, for :func:`~tfbuild.pipeline.planning.executor.execute_plan`:
        the sources compile in parallel, each keeping its compiler output in its own log, and the
        build's log goes to ``build_dir``. ``workdir`` is where relative spec paths start."""
        return BuildPlan(
            target=self.output.name,
            flavour=Flavour.OPS_LIBRARY,
            image=None,
            mounts=(),
            steps=self._steps(PurePosixPath(workdir.as_posix()), on_host=True),
            generated_files=(),
            artifacts=(),  # the last step moves the library into place itself
            output_dir=self.build_dir,
        )

    def _steps(self, workdir: PurePosixPath, *, on_host: bool) -> tuple[Step, ...]:
        """Compile, link or archive, publish; on the host each compile and the link keep a log."""
        compiles = tuple(
            Step(
                f"compile {step.source.name}",
                step.argv,
                workdir,
                log=step.log if on_host else None,
                parallel=on_host,
            )
            for step in self.compile_steps
        )
        link_log = self.link_log if on_host else None
        link = Step(f"{self._link_verb} {self.output.name}", self.link_argv, workdir, log=link_log)
        publish = Step("publish", ("mv", "-f", str(self.staging_output), str(self.output)), workdir)
        return (*compiles, link, publish)


def plan_ops_library(spec: OpsLibrarySpec) -> OpsLibraryPlan:
    """Compute the compile and link/archive commands for ``spec``; runs and touches nothing."""
    if not spec.sources:
        raise ConfigError(
            "an op library needs at least one source file", hint="pass the app's .cc files"
        )
    if spec.kind not in ("shared", "static"):
        raise ConfigError(f"unknown op library kind {spec.kind!r}", hint="use 'shared' or 'static'")
    build_dir = spec.build_dir or spec.output.with_name(spec.output.name + ".objs")
    cflags = _compile_flags(spec)
    compile_steps = tuple(
        _compile_step(spec.compiler, source, build_dir, cflags) for source in spec.sources
    )
    _check_unique_objects(compile_steps)
    staging = spec.output.with_name(f".{spec.output.name}.partial")
    objects = tuple(str(step.object_file) for step in compile_steps)
    if spec.kind == "shared":
        link_argv = (
            spec.compiler, "-shared", *objects, "-o", str(staging),
            *spec.tf_link_flags, *spec.extra_ldflags,
        )
    else:
        link_argv = (spec.archiver, "rcs", str(staging), *objects)
    return OpsLibraryPlan(
        spec=spec,
        compiler=spec.compiler,
        cflags=cflags,
        build_dir=build_dir,
        compile_steps=compile_steps,
        link_argv=link_argv,
        staging_output=staging,
        output=spec.output,
    )


def _compile_flags(spec: OpsLibrarySpec) -> tuple[str, ...]:
    """Flags in override order: ours, the app's includes, selection, TensorFlow's, the app's extras
    last (so an ``-Os`` in ``extra_cflags`` replaces our ``-O2``: one level per line)."""
    flags = list(BASE_CFLAGS)
    if not any(_STD_FLAG.match(flag) for flag in (*spec.tf_compile_flags, *spec.extra_cflags)):
        flags.append(CXX_STANDARD_FLAG)
    for include_dir in spec.include_dirs:
        flags += ["-I", str(include_dir)]
    if spec.selective_header is not None:
        if spec.selective_header.name != HEADER_NAME:
            raise ConfigError(
                f"{spec.selective_header}: a selective build needs the header to be named "
                f"{HEADER_NAME}",
                hint="write the generated header under that name; TensorFlow includes it by name",
            )
        flags += ["-DSELECTIVE_REGISTRATION", "-I", str(spec.selective_header.parent)]
    return one_optimisation_level((*flags, *spec.tf_compile_flags, *spec.extra_cflags))


def _compile_step(
    compiler: str, source: Path, build_dir: Path, cflags: tuple[str, ...]
) -> CompileStep:
    object_file = build_dir / f"{source.stem}.o"
    return CompileStep(
        source=source,
        object_file=object_file,
        log=object_file.with_suffix(".log"),
        argv=(compiler, "-c", str(source), "-o", str(object_file), *cflags),
    )


def _check_unique_objects(steps: tuple[CompileStep, ...]) -> None:
    seen: dict[Path, Path] = {}
    for step in steps:
        if step.object_file in seen:
            raise ConfigError(
                f"{seen[step.object_file]} and {step.source} would both compile to "
                f"{step.object_file.name}",
                hint="give op source files distinct names",
            )
        seen[step.object_file] = step.source
