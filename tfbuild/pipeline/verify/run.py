"""``tfbuild verify``: the flow, from a finished build's manifest to a verdict and its record.

manifest.json (target, flavour, artifacts, models, toolchain) -> each model as a binary GraphDef,
its probe and its inputs (:mod:`.probe`) -> the reference run in this environment's TensorFlow
(:mod:`.tf_runner`) -> the target's run (the C++ runner for a Makefile build, :mod:`.cpp_runner`;
the op library loaded into TensorFlow for an op-library build) -> for a model with dequantized
weights, the reference run again, fed the target's weights -> the tensors compared
(:mod:`.compare`) -> a ``verify`` section in manifest.json, pass or fail.

Every file of the verification is under ``<out>/verify/``: the graphs, the inputs, both runners'
outputs (tensor files a later look can read with :func:`~.tensor_file.read_tensor_file`), the
C++ runner, and the runs' logs. The reference of an op library's custom ops is the build's own
stock (non-selective) compile of the same sources for this machine, which the build made for
its analysis, or a library the user trusts (``--reference-op-library``): the stock build shows
what selection and the target's compile changed, a trusted library also what the sources did.
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from tfbuild.errors import ConfigError, InputFileError, ToolchainError, VerificationError
from tfbuild.fileio import MODEL_SIZE_LIMIT, atomic_write_bytes, read_input_bytes, sha256_file
from tfbuild.flavour import Flavour
from tfbuild.pipeline.flavours.ops_library import host_library_path
from tfbuild.pipeline.outputs.manifest import MANIFEST_NAME, FileRecord, Manifest, update_manifest
from tfbuild.pipeline.planning.executor import StepFailed, execute_plan
from tfbuild.pipeline.planning.plan import AndroidJniRecord, AndroidNdkUse, BuildPlan, ImageSpec, Step
from tfbuild.pipeline.verify.compare import DEFAULT_TOLERANCE, TOLERANCE_RULE, TensorDiff, compare_run
from tfbuild.pipeline.verify.cpp_runner import COMPILE_STEP, CppRunnerRequest, RunnerJob, plan_cpp_runner
from tfbuild.pipeline.verify.jvm_runner import COMPILE_STEP as JVM_COMPILE_STEP
from tfbuild.pipeline.verify.jvm_runner import JvmJob, check_jvm_build, plan_jvm_runner
from tfbuild.pipeline.verify.jvm_runner import describe as describe_jvm
from tfbuild.pipeline.verify.probe import MAX_INTERMEDIATES, OUTPUTS_FOUND, Feed, Probe, make_inputs, plan_probe
from tfbuild.pipeline.verify.tensor_file import DTYPES, Array, read_tensor_file, write_tensor_file
from tfbuild.pipeline.verify.tf_runner import runner_argv
from tfbuild.toolchain.android_ndk import CLANG_ONLY_MAJOR, NdkInfo, inspect_ndk
from tfbuild.toolchain.targets import Platform, TargetProfile, get_target

if TYPE_CHECKING:
    from rich.console import Console

DIRECTORY = "verify"
SECTION = "verify"
RUNNER_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}
"""The Python runners' TensorFlow: quiet, with its Eigen kernels (oneDNN's fused ones round
differently, and the builds being checked compile Eigen's). They run on the CPU
(:mod:`.tf_runner` hides any GPU)."""


@dataclass(frozen=True)
class VerifyOptions:
    """What ``tfbuild verify`` was asked: the build (``out_dir``) and how to check it."""

    out_dir: Path
    models: tuple[Path, ...] = ()
    """Default: the models the build was made for (its manifest's)."""
    tolerance: float = DEFAULT_TOLERANCE
    seed: int = 0
    input_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    """Tensors to compare as outputs, instead of each graph's likely outputs (:mod:`.probe`)."""
    max_intermediates: int = MAX_INTERMEDIATES
    local: bool | None = None
    """Run the C++ runner on this machine (True) or in the build's container (False); None: as
    the build ran."""
    reference_op_library: Path | None = None
    timeout: float | None = None
    ndk: Path | None = None
    """The Android NDK to compile the C++ runner with (``--ndk``); default: the one the build
    recorded in its manifest (``android_ndk``)."""
    runner: Literal["cpp", "jvm"] = "cpp"
    """``jvm``: run the models through TensorFlow's ``TensorFlowInferenceInterface`` on this
    machine's Java VM (a Linux build with ``--java-api tensorflow``; :mod:`.jvm_runner`)."""


@dataclass(frozen=True)
class ModelVerdict:
    """One model: what it was fed and every tensor compared, and where the outputs compared came
    from (each feed says where its shape did)."""

    model: Path
    sha256: str
    feeds: tuple[Feed, ...]
    diffs: tuple[TensorDiff, ...]
    outputs: tuple[str, ...] = ()
    outputs_from: str = OUTPUTS_FOUND
    weights_fed: tuple[str, ...] = ()
    """The dequantized weights whose target values the second reference run was fed."""

    @property
    def passed(self) -> bool:
        return all(diff.passed for diff in self.diffs)


@dataclass(frozen=True)
class VerifyResult:
    target: str
    flavour: Flavour
    models: tuple[ModelVerdict, ...]
    tolerance: float
    reference: str
    runner: str
    manifest: Path
    work_dir: Path

    @property
    def passed(self) -> bool:
        return all(model.passed for model in self.models)


def check_finite(flag: str, value: float | None) -> None:
    """Refuse a ``--tolerance`` or ``--timeout`` of NaN or infinity (a :class:`ConfigError`): no
    difference is within NaN, and an infinite time limit is none (leave the flag out)."""
    if value is not None and not math.isfinite(value):
        raise ConfigError(f"{flag} {value}: expected a finite number", hint=f"leave {flag} out for its default")


def require_pass(result: VerifyResult) -> None:
    """Raise :class:`VerificationError` naming the first differing tensor (outputs first)."""
    failures = [(model, diff) for model in result.models for diff in model.diffs if not diff.passed]
    if not failures:
        return
    failures.sort(key=lambda failure: failure[1].role != "output")
    model, diff = failures[0]
    more = f"; {len(failures) - 1} more tensor(s) differ" if len(failures) > 1 else ""
    raise VerificationError(
        f"{model.model.name}: {diff.describe()}{more}",
        hint=f"every tensor compared is in {result.manifest} (verify), the runs' files in {result.work_dir}",
    )


@dataclass(frozen=True)
class _Build:
    """What verification needs from the build's manifest."""

    out: Path
    target: str
    flavour: Flavour
    artifacts: Mapping[str, str]  # name -> kind
    models: tuple[FileRecord, ...]
    image: ImageSpec | None
    source: Path | None
    android_ndk: AndroidNdkUse | None = None
    android_jni: AndroidJniRecord | None = None

    @classmethod
    def read(cls, out: Path) -> _Build:
        manifest = Manifest.read(out)
        toolchain = manifest.toolchain
        image = ImageSpec(toolchain.dockerfile, dict(toolchain.build_args), toolchain.image_tag) if toolchain else None
        source = manifest.tensorflow.source
        return cls(out, manifest.target, manifest.flavour, {item.name: str(item.kind) for item in manifest.artifacts},
                   manifest.models, image, Path(source) if source else None, manifest.android_ndk,
                   manifest.android_jni)


@dataclass(frozen=True)
class _Model:
    """One model, ready to run: its files under the verification directory and its probe."""

    path: Path
    sha256: str
    graph: Path
    inputs: Path
    reference: Path
    target: Path
    probe: Probe
    fed_inputs: Path
    """The inputs with the target's dequantized weights added (a model with weights)."""
    fed_reference: Path
    """What the reference computed fed those weights."""
    package: Path | None = None
    """A memmapped package's copy, which the target's C++ runner reads as an app does; ``graph``
    then holds its graph with the constants back in place, for TensorFlow's Python runtime."""


def run_verify(options: VerifyOptions, *, console: Console | None = None) -> VerifyResult:
    """Run the build's models on the reference and on the target, compare, record; raises only for
    what stops the comparison (a runner that cannot run a model, a bad option). The caller
    decides about a failed comparison (:func:`require_pass`)."""
    out = options.out_dir.resolve()
    build = _Build.read(out)
    profile = get_target(build.target)
    work = out / DIRECTORY
    target = _choose_target(build, profile, options)  # before anything runs: can it run at all?
    reference = _reference_libraries(build, options)
    models = _prepare_models(build, options, work)
    reference_text = f"TensorFlow {_tensorflow_version()} (this environment's wheel)" + "".join(
        f" with {library}" for library in reference
    )
    calls = [_RunnerCall(f"reference {model.path.name}", model.graph, model.inputs, model.reference,
                         _reference_fetches(model.probe), model.probe.intermediates) for model in models]
    _run(_python_plan("verify-reference", build.flavour, work, calls, reference), console, options, side="reference")
    expected = [read_tensor_file(model.reference) for model in models]
    runner_text = target.describe()
    try:
        _run(_target_plan(target, build, work, models, expected), console, options, side="target", runner=runner_text)
    except VerificationError as error:
        update_manifest(out, SECTION, _record(options, models, (), reference_text, runner_text, error.message))
        raise
    got = [read_tensor_file(model.target) for model in models]
    fed = [_feed_weights(model, wanted, values) for model, wanted, values in zip(models, expected, got, strict=True)]
    fed_calls = [
        _RunnerCall(f"reference {model.path.name}, fed the target's weights", model.graph, model.fed_inputs,
                    model.fed_reference, tuple(name for name in wanted if name not in names))
        for model, wanted, names in zip(models, expected, fed, strict=True) if names
    ]
    if fed_calls:
        _run(_python_plan("verify-reference-fed", build.flavour, work, fed_calls, reference), console, options,
             side="reference")
    verdicts = tuple(
        ModelVerdict(model.path, model.sha256, model.probe.feeds,
                     compare_run(wanted, values, options.tolerance, outputs=model.probe.outputs,
                                 eight_bit=model.probe.eight_bit, weights=model.probe.weights,
                                 fed_expected=read_tensor_file(model.fed_reference) if names else None),
                     model.probe.outputs, model.probe.outputs_from, names)
        for model, wanted, values, names in zip(models, expected, got, fed, strict=True)
    )
    manifest = update_manifest(out, SECTION, _record(options, models, verdicts, reference_text, runner_text, None))
    return VerifyResult(
        build.target, build.flavour, verdicts, options.tolerance, reference_text, runner_text, manifest, work
    )


def _prepare_models(build: _Build, options: VerifyOptions, work: Path) -> list[_Model]:
    """Each model as a binary GraphDef with its probe and inputs (and a memmapped package's copy
    for the target's runner); stale run outputs removed."""
    from tfbuild.model.formats import ModelFormat, load_model  # imports TensorFlow's protos
    from tfbuild.model.memmapped import read_package, unpacked_graph

    runnable = (ModelFormat.GRAPHDEF, ModelFormat.GRAPHDEF_TEXT, ModelFormat.MEMMAPPED)

    paths = list(options.models) or [_manifest_model(build, record) for record in build.models]
    if not paths:
        raise InputFileError(f"{build.out}/manifest.json names no model", hint="pass --model")
    graphs = []
    for path in paths:
        loaded = load_model(path)
        if loaded.format not in runnable or len(loaded.graph_defs) != 1:
            raise InputFileError(
                f"{path}: verify runs GraphDefs (frozen .pb or .pbtxt) and memmapped packages; "
                f"this is a {loaded.format.value}",
                hint="freeze the model to a GraphDef and pass it with --model",
            )
        graphs.append((Path(path), loaded.sha256, loaded.graph_defs[0], loaded.format is ModelFormat.MEMMAPPED))
    _check_names_exist([{node.name for node in graph.node} for _, _, graph, _ in graphs], options)
    models = []
    for index, (path, sha256, graph_def, memmapped) in enumerate(graphs):
        names = {node.name for node in graph_def.node}
        probe = plan_probe(
            graph_def,
            where=str(path),
            shapes={name: shape for name, shape in options.input_shapes.items() if name in names},
            outputs=[name for name in options.outputs if name.rsplit(":", 1)[0] in names],
            max_intermediates=options.max_intermediates,
        )
        stem = f"{index}-{path.name.split('.')[0] or 'model'}"
        model = _Model(
            path=path,
            sha256=sha256,
            graph=work / f"{stem}.graph.pb",
            inputs=work / f"{stem}.inputs.tensors",
            reference=work / f"{stem}.reference.tensors",
            target=work / f"{stem}.target.tensors",
            probe=probe,
            fed_inputs=work / f"{stem}.fed-inputs.tensors",
            fed_reference=work / f"{stem}.fed-reference.tensors",
        )
        reference_graph = graph_def
        if memmapped:
            data = read_input_bytes(path, limit=MODEL_SIZE_LIMIT)
            package = work / f"{stem}.package"
            atomic_write_bytes(package, data)
            model = replace(model, package=package)
            reference_graph = unpacked_graph(read_package(path, data), data)
        atomic_write_bytes(model.graph, reference_graph.SerializeToString())
        write_tensor_file(model.inputs, make_inputs(probe.feeds, seed=options.seed))
        for stale in (model.reference, model.target, model.fed_inputs, model.fed_reference):
            stale.unlink(missing_ok=True)
        models.append(model)
    return models


def _check_names_exist(node_names: Sequence[set[str]], options: VerifyOptions) -> None:
    """Each ``--input-shape`` and ``--output-tensor`` name must be a node of some model (the models of
    one build may have different inputs; each model takes the names it has)."""
    known = set().union(*node_names)
    for flag, given in (("--input-shape", list(options.input_shapes)), ("--output-tensor", list(options.outputs))):
        unknown = [name for name in given if name.rsplit(":", 1)[0] not in known]
        if unknown:
            raise ConfigError(f"{flag} {', '.join(unknown)}: no such node in the models", hint="check the names")


def _manifest_model(build: _Build, record: FileRecord) -> Path:
    path = Path(record.path or record.name)
    if not path.exists():
        raise InputFileError(f"{path}: the build's model is gone", hint="pass the model with --model")
    if path.is_file() and record.sha256 and sha256_file(path) != record.sha256:
        raise InputFileError(
            f"{path}: changed since the build (its digest differs from the manifest's)",
            hint="rebuild for the model as it is now, or pass the model the build was made for with --model",
        )
    return path


def _reference_libraries(build: _Build, options: VerifyOptions) -> tuple[Path, ...]:
    """The op libraries the reference loads: none for a TensorFlow build; for an op library, the
    user's trusted one or the build's stock compile of the same sources."""
    if build.flavour != Flavour.OPS_LIBRARY:
        if options.reference_op_library is not None:
            raise ConfigError("--reference-op-library is for op-library builds", hint="drop it")
        return ()
    if options.reference_op_library is not None:
        library = options.reference_op_library.resolve()
    else:
        name = _built_library(build)[0].name
        library = host_library_path(build.out, name.removeprefix("lib").rsplit(".", 1)[0])
    if not library.is_file():
        raise InputFileError(
            f"{library}: no stock build of the op library to run the reference with",
            hint="rebuild (the build makes it for its analysis), or pass --reference-op-library",
        )
    return (library,)


def _built_library(build: _Build) -> tuple[Path, str]:
    for name, kind in build.artifacts.items():
        if kind in ("shared-lib", "static-lib"):
            return build.out / name, kind
    raise InputFileError(f"{build.out}/manifest.json lists no op library", hint="rebuild")


@dataclass(frozen=True)
class _Target:
    """How the target side runs, chosen and checked before anything runs: an op library loaded
    into TensorFlow (``library``), or the C++ runner for ``profile``, in ``image`` (None: here)."""

    profile: TargetProfile
    library: Path | None = None
    image: ImageSpec | None = None
    ndk: NdkInfo | None = None
    jvm: AndroidJniRecord | None = None

    def describe(self) -> str:
        if self.jvm is not None:
            return describe_jvm(self.jvm)
        if self.library is not None:
            return f"TensorFlow {_tensorflow_version()} with {self.library.name} (the build) loaded"
        assert self.profile.launcher is not None  # _choose_target refuses a profile without one
        how = " ".join(self.profile.launcher[:1]) or "directly"
        where = f"in {self.image.tag}" if self.image is not None else "on this machine"
        made = f", compiled with {self.ndk.name}'s clang, linked -static" if self.ndk is not None else ""
        return f"the C++ runner linked against the build's libtensorflow-core.a{made}, run {how} {where}"


def _choose_target(build: _Build, profile: TargetProfile, options: VerifyOptions) -> _Target:
    if build.flavour == Flavour.OPS_LIBRARY:
        library, kind = _built_library(build)
        if kind != "shared-lib":
            raise ToolchainError(
                f"{library}: an op library for {build.target} is a static archive; no TensorFlow here can load it",
                hint="verify the op library's linux-x86_64 build (a shared object tf.load_op_library loads)",
            )
        return _Target(profile, library=library)
    if build.flavour != Flavour.MAKEFILE:
        raise ToolchainError(
            f"verify runs Makefile and op-library builds; this one is {build.flavour.value}",
            hint="link the build into your app and compare by hand, or verify a Makefile build",
        )
    if profile.makefile is None or profile.run is None:
        raise ToolchainError(
            f"target {profile.name} has no way to run its programs here",
            hint="verify runs the targets whose profile has a [run] table (tfbuild targets)",
        )
    if build.source is None:
        raise InputFileError(f"{build.out}/manifest.json names no source tree", hint="rebuild")
    if options.runner == "jvm":
        if profile.platform is not Platform.LINUX or profile.launcher != ():
            raise ConfigError(f"--runner jvm runs builds for this machine's Java VM; this one is for {build.target}",
                              hint="build linux-x86_64 with --java-api tensorflow for the Java VM runner")
        return _Target(profile, jvm=check_jvm_build(build.out, build.android_jni))
    local = options.local if options.local is not None else build.image is None
    if not local and build.image is None:
        raise ConfigError(
            "the build ran on this machine, so there is no toolchain container to run in", hint="use --local"
        )
    ndk = _android_ndk(build, options) if "ndk" in profile.requires else None
    if ndk is None and options.ndk is not None:
        raise ConfigError(f"--ndk is for Android builds; this one is for {build.target}", hint="drop it")
    return _Target(profile, image=None if local else build.image, ndk=ndk)


def _android_ndk(build: _Build, options: VerifyOptions) -> NdkInfo:
    """The NDK the runner is compiled with: ``--ndk``, else the one the manifest records; it must
    be the build's revision, and the build must be the clang adapter's (the Makefile's own GCC
    section's archives need gnustl and the GCC toolchains, which tfbuild does not link here)."""
    recorded = build.android_ndk
    manifest = build.out / MANIFEST_NAME
    if recorded is not None and recorded.adapter != "clang":
        raise ToolchainError(
            f"{manifest}: built by the contrib Makefile's own Android section (the NDK's GCC, gnustl), "
            "which tfbuild cannot run here",
            hint=f"verify runs builds of tfbuild's clang adapter: rebuild with NDK r{CLANG_ONLY_MAJOR} or newer",
        )
    if options.ndk is None and recorded is None:
        raise InputFileError(
            f"{manifest}: records no Android NDK (android_ndk), so verify cannot tell which clang built it",
            hint="pass --ndk with the NDK the build used, or rebuild (tfbuild records it)",
        )
    if options.ndk is not None:
        ndk = inspect_ndk(options.ndk, origin="--ndk")
    else:
        assert recorded is not None
        ndk = inspect_ndk(Path(recorded.path), origin=f"{manifest}: android_ndk")
    if recorded is not None and ndk.revision != recorded.revision:
        raise ConfigError(
            f"{ndk.where}: {ndk.name}, but the build used Android NDK {recorded.revision} ({recorded.path})",
            hint="pass --ndk with the NDK the build used: the runner must be compiled like the libraries",
        )
    if ndk.major < CLANG_ONLY_MAJOR:
        raise ToolchainError(
            f"{ndk.where}: {ndk.name} builds {build.target} with the contrib Makefile's own GCC section",
            hint=f"verify runs Android builds of tfbuild's clang adapter (NDK r{CLANG_ONLY_MAJOR} or newer)",
        )
    return ndk


def _target_plan(
    target: _Target, build: _Build, work: Path, models: Sequence[_Model], expected: Sequence[Mapping[str, Array]]
) -> BuildPlan:
    """The plan that runs the models on what the build made, fetching what the reference wrote."""
    fetch = [tuple(wanted) for wanted in expected]
    if target.jvm is not None:
        return plan_jvm_runner(build.out, work, target.jvm, [
            JvmJob(f"run {model.path.name} on the Java VM", model.graph, model.inputs, model.target, model.reference)
            for model in models])
    if target.library is not None:
        calls = [_RunnerCall(f"run {model.path.name}", model.graph, model.inputs, model.target, names)
                 for model, names in zip(models, fetch, strict=True)]
        return _python_plan(f"verify-{build.target}", build.flavour, work, calls, (target.library,))
    assert build.source is not None  # _choose_target checked
    jobs = tuple(
        RunnerJob(f"run {model.path.name}", model.package or model.graph, model.inputs, model.target, names,
                  memmapped=model.package is not None)
        for model, names in zip(models, fetch, strict=True)
    )
    return plan_cpp_runner(
        CppRunnerRequest(target.profile, build.out, build.source, work, target.image, jobs, ndk=target.ndk)
    )


@dataclass(frozen=True)
class _RunnerCall:
    """One run of the Python runner: ``graph`` fed ``inputs``; the tensors it must fetch
    (``required``) and those it may (``optional``) written to ``output``."""

    title: str
    graph: Path
    inputs: Path
    output: Path
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()


def _python_plan(
    name: str, flavour: Flavour, work: Path, calls: Sequence[_RunnerCall], libraries: Sequence[Path]
) -> BuildPlan:
    """One Python runner step per call, on this machine, with ``libraries`` loaded: the
    reference's runs, or an op library's."""
    steps = tuple(
        Step(call.title,
             runner_argv(sys.executable, graph=call.graph, inputs=call.inputs, output=call.output,
                         libraries=libraries, fetch=call.required, probe=call.optional),
             PurePosixPath(work.as_posix()), env=RUNNER_ENV)
        for call in calls
    )
    return BuildPlan(
        target=name, flavour=flavour, image=None, mounts=(), steps=steps,
        generated_files=(), artifacts=(), output_dir=work,
    )


def _reference_fetches(probe: Probe) -> tuple[str, ...]:
    """What the reference must fetch: the outputs and every dequantized weight."""
    return (*probe.outputs, *(name for name in probe.weights if name not in probe.outputs))


def _feed_weights(model: _Model, expected: Mapping[str, Array], got: Mapping[str, Array]) -> tuple[str, ...]:
    """Write ``model``'s inputs with the target's dequantized weights added, for the reference's
    second run; the weights fed (those the target wrote with the reference's dtype and shape:
    the others fail their comparison anyway)."""
    weights = {
        name: got[name] for name in model.probe.weights
        if name in got and name in expected and got[name].dtype == expected[name].dtype
        and got[name].shape == expected[name].shape
    }
    if weights:
        write_tensor_file(model.fed_inputs, {**read_tensor_file(model.inputs), **weights})
    return tuple(weights)


def _run(
    plan: BuildPlan,
    console: Console | None,
    options: VerifyOptions,
    *,
    side: Literal["reference", "target"],
    runner: str = "",
) -> None:
    """Execute ``plan``. A model step that fails on the reference side means the model cannot
    run as verify feeds it (an input problem); on the target side, that what the build made
    cannot run the model (a verification failure). A failed compile of the C++ runner stays a
    build failure."""
    try:
        execute_plan(plan, console=console, timeout=options.timeout, jobs=1, label=side)
    except StepFailed as failed:
        if failed.step.name in (COMPILE_STEP, JVM_COMPILE_STEP):
            raise
        reason = _runner_reason(failed)
        if side == "reference":
            raise InputFileError(
                f"TensorFlow {_tensorflow_version()} itself cannot run the model ({failed.step.name}): {reason}",
                hint=f"give its inputs' shapes (--input-shape) or the outputs (--output-tensor); "
                f"log: {failed.log_path}",
            ) from failed
        raise VerificationError(
            f"{failed.step.name}: {runner} failed: {reason}", hint=f"log: {failed.log_path}"
        ) from failed


def _runner_reason(failed: StepFailed) -> str:
    prefix = "tfbuild verify runner: "
    lines = [line.strip() for line in failed.tail if line.strip()]
    line = next((line for line in reversed(lines) if line.startswith(prefix)), None)
    if line is not None:
        return line.removeprefix(prefix)[:500]
    return (lines[-1] if lines else "no output")[:500]


def _record(
    options: VerifyOptions,
    models: Sequence[_Model],
    verdicts: Sequence[ModelVerdict],
    reference: str,
    runner: str,
    error: str | None,
) -> dict[str, object]:
    """The manifest's ``verify`` section."""
    by_path = {verdict.model: verdict for verdict in verdicts}
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return {
        "created": now,
        "passed": error is None and bool(verdicts) and all(verdict.passed for verdict in verdicts),
        "error": error,
        "tolerance": options.tolerance,
        "rule": TOLERANCE_RULE,
        "seed": options.seed,
        "reference": reference,
        "runner": runner,
        "models": [
            {
                "path": str(model.path),
                "sha256": model.sha256,
                "inputs": [
                    {"tensor": feed.tensor, "dtype": str(DTYPES[feed.dtype]), "shape": list(feed.shape),
                     "shape_from": feed.shape_from}
                    for feed in model.probe.feeds
                ],
                "outputs": list(model.probe.outputs),
                "outputs_from": model.probe.outputs_from,
                "weights_fed": list(by_path[model.path].weights_fed) if model.path in by_path else [],
                "tensors": [_diff_record(diff) for diff in by_path[model.path].diffs] if model.path in by_path else [],
            }
            for model in models
        ],
    }


def _diff_record(diff: TensorDiff) -> dict[str, object]:
    worst = None
    if diff.worst is not None:
        worst = {
            "index": list(diff.worst.index),
            "got": _number(diff.worst.got),
            "expected": _number(diff.worst.expected),
        }
    return {
        "tensor": diff.tensor,
        "role": diff.role,
        "dtype": diff.dtype,
        "shape": list(diff.shape),
        "passed": diff.passed,
        "max_abs_diff": _number(diff.max_abs_diff),
        "max_rel_diff": _number(diff.max_rel_diff),
        "mismatched": diff.mismatched,
        "worst": worst,
        "problem": diff.problem,
        "bound": diff.bound,
        "step": diff.step,
    }


def _number(value: float | int | bool) -> float | int | bool | str:
    """JSON has no NaN or infinity: those are written as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _tensorflow_version() -> str:
    try:
        return metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        return "(not installed)"


