"""One build's size report as data: each artifact's size against the baseline, and its bytes by
group, kernel file and op.

Everything is read from the build's output directory and what its ``manifest.json`` names: the
artifacts, the header (which says whether the build was selective at all), the source tree and
its kernel index (the same cached index the build used). Nothing here writes; :mod:`.write`
does. An artifact whose symbols cannot be read (no ``nm`` for its machine, not an object file,
missing) keeps its size and says why it has no attribution: a report is still worth having
without one.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, replace
from pathlib import Path

from tfbuild.errors import InputFileError, TfbuildError
from tfbuild.model.benchmark import PROGRAM, BenchmarkCommand, benchmark_command
from tfbuild.model.header import parse_header
from tfbuild.pipeline.outputs.manifest import FileRecord, Manifest
from tfbuild.pipeline.report.attribution import Attribution, SourceMap, attribute, source_map
from tfbuild.pipeline.report.baseline import (
    ArtifactFigures,
    Baseline,
    BaselineKey,
    BuildFigures,
    figures_from_dict,
    mismatches,
    recorded_baseline,
)
from tfbuild.pipeline.report.linker_map import LinkMapError, attribute_link_map, read_link_map
from tfbuild.pipeline.report.objects import object_kind
from tfbuild.pipeline.report.symbols import read_symbols
from tfbuild.tree.kernel_index import build_kernel_index
from tfbuild.tree.work_branch import base_commit

REPORT_JSON = "report.json"
BENCHMARK = "benchmark"
"""The benchmark program a Makefile build leaves in its output directory."""
_NOT_CODE = ("header", "aar")


@dataclass(frozen=True)
class ArtifactReport:
    """One artifact: its size now, the baseline's, and where its bytes are."""

    name: str
    kind: str | None
    size: int
    sha256: str | None
    baseline: ArtifactFigures | None = None
    attribution: Attribution | None = None
    note: str | None = None
    """Why there is no attribution, when there is none."""

    @property
    def saved(self) -> int | None:
        return None if self.baseline is None else self.baseline.size - self.size

    @property
    def outside_symbols(self) -> int | None:
        """Bytes of the file in no sized symbol: headers, symbol and string tables, relocations,
        unwind tables, padding."""
        return None if self.attribution is None else self.size - self.attribution.symbol_bytes

    def figures(self) -> ArtifactFigures:
        attribution = self.attribution
        return ArtifactFigures(
            name=self.name,
            size=self.size,
            sha256=self.sha256,
            groups=dict(attribution.groups) if attribution else {},
            files={item.file: item.bytes for item in attribution.files} if attribution else {},
        )


@dataclass(frozen=True)
class ModelSize:
    """A model the app downloads beside the binary: its bytes, and its bytes deflated as an APK
    or a zip download stores it (None when the file is gone since the build); and the benchmark
    program's command that times it (None: gone, or a kind of model the program does not read)."""

    name: str
    size: int
    compressed: int | None
    benchmark: BenchmarkCommand | None = None


@dataclass(frozen=True)
class BuildSizes:
    """What one build measured, before any comparison."""

    output_dir: Path
    target: str
    flavour: str
    tensorflow_version: str
    source: str | None
    commit: str | None
    """The tree's commit before tfbuild's edits (an op library: its TensorFlow's git version)."""
    selection: str
    """What the header registers, in a few words."""
    stock: bool
    """The header registers every kernel: this build is a baseline, not a selection."""
    size_profile: str | None
    created: str | None
    artifacts: tuple[ArtifactReport, ...]
    notes: tuple[str, ...] = ()
    models: tuple[ModelSize, ...] = ()

    @property
    def key(self) -> BaselineKey | None:
        """Whose baseline this build is, or would be if it were stock; None without a commit."""
        return BaselineKey(self.commit, self.target, self.flavour) if self.commit else None

    def figures(self) -> BuildFigures:
        """This build's figures, as a later report reads them for its baseline."""
        return BuildFigures(
            output_dir=str(self.output_dir),
            target=self.target,
            flavour=self.flavour,
            commit=self.commit,
            stock=self.stock,
            created=self.created,
            size_profile=self.size_profile,
            artifacts=tuple(artifact.figures() for artifact in self.artifacts),
        )


@dataclass(frozen=True)
class SizeReport:
    """A build's sizes and what they are compared with. ``baseline`` is None when there is
    nothing to compare with; ``baseline_status`` says, in a sentence the user can act on, where
    the baseline came from or why there is none."""

    build: BuildSizes
    baseline: Baseline | None
    baseline_status: str
    baseline_mismatches: tuple[str, ...] = ()


def make_size_report(
    output_dir: Path, *, baseline_dir: Path | None = None, nm: str | None = None, cache_root: Path | None = None
) -> SizeReport:
    """The size report of the build in ``output_dir``, compared with the build in
    ``baseline_dir`` when given, else with the stock build recorded for its tree, target and
    flavour (see :mod:`.baseline`)."""
    build = measure_build(Path(output_dir), nm=nm)
    if baseline_dir is not None:
        baseline = Baseline(_figures_of(Path(baseline_dir), nm=nm), "given", Path(baseline_dir).resolve())
        status = f"the build in {baseline.where} (--baseline)"
    elif build.key is None:
        return SizeReport(build, None, "none: the build has no tree commit to look one up by; "
                          "pass --baseline OUT_DIR, the output directory of a stock build")
    elif build.stock:
        return SizeReport(build, None, f"this is the stock build of {build.key.describe()}: "
                          "later selective builds of the same key are compared with it")
    else:
        found = recorded_baseline(build.key, root=cache_root)
        if found is None:
            return SizeReport(build, None, (
                f"none: no stock build of {build.key.describe()} is recorded, so only this build's "
                "sizes are shown; build once with --default-ops all to record one, or pass --baseline OUT_DIR"
            ))
        baseline = found
        status = f"the stock build in {found.figures.output_dir}, recorded in {found.where}"
    artifacts = tuple(replace(item, baseline=baseline.figures.artifact(item.name)) for item in build.artifacts)
    build = replace(build, artifacts=artifacts)
    return SizeReport(build, baseline, status, mismatches(build.figures(), baseline.figures))


def measure_build(output_dir: Path, *, nm: str | None = None) -> BuildSizes:
    """The sizes and attribution of the build in ``output_dir`` (see :class:`BuildSizes`)."""
    output_dir = output_dir.resolve()
    manifest = Manifest.read(output_dir)
    source = manifest.tensorflow.source
    notes: list[str] = []
    sources = _source_map(Path(source) if source else None, notes)
    commit = manifest.tensorflow.commit
    if commit and source and Path(source).is_dir():
        commit = base_commit(Path(source), commit)
    stock, selection = _selection(output_dir, manifest.header, notes)
    jni = manifest.android_jni
    link_maps = {jni.library: output_dir / jni.link_map} if jni is not None and jni.link_map else {}
    program = _benchmark_program(output_dir, manifest)
    return BuildSizes(
        output_dir=output_dir,
        target=manifest.target,
        flavour=str(manifest.flavour),
        tensorflow_version=manifest.tensorflow.version,
        source=source,
        commit=commit,
        selection=selection,
        stock=stock,
        size_profile=manifest.size_profile.name if manifest.size_profile else None,
        created=manifest.created,
        artifacts=tuple(
            _artifact(output_dir, record, sources, nm=nm, link_map=link_maps.get(record.name))
            for record in manifest.artifacts
        ),
        notes=tuple(notes),
        models=tuple(model_size(record, program=program) for record in manifest.models),
    )


def _benchmark_program(output_dir: Path, manifest: Manifest) -> str:
    """The build's own benchmark program (a Makefile build makes one), else TensorFlow's."""
    built = any(item.name == BENCHMARK and item.kind == "executable" for item in manifest.artifacts)
    return str(output_dir / BENCHMARK) if built else PROGRAM


def model_size(record: FileRecord, *, program: str = PROGRAM) -> ModelSize:
    """The model of ``record`` as the app ships it: raw, and deflated (zlib level 6, zip's
    default) file by file for a SavedModel directory; with ``program``'s command to time it."""
    path = Path(record.path) if record.path else None
    if path is None or not path.exists():
        return ModelSize(record.name, record.size, None)
    files = sorted(item for item in path.rglob("*") if item.is_file()) if path.is_dir() else [path]
    try:
        size = sum(item.stat().st_size for item in files)
        compressed = sum(_deflated_size(item) for item in files)
    except OSError:
        return ModelSize(record.name, record.size, None)
    return ModelSize(record.name, size, compressed, None if path.is_dir() else _benchmark(path, program))


def _benchmark(path: Path, program: str) -> BenchmarkCommand | None:
    """The benchmark program's command for the model file ``path``, its inputs and outputs what
    summarize_graph finds; None for a model it does not read, or one that no longer loads (the
    report is about sizes: a model changed since the build is the manifest's concern)."""
    from tfbuild.model.formats import load_model
    from tfbuild.model.graph_summary import summarize_graph

    try:
        loaded = load_model(path)
    except TfbuildError:
        return None
    if len(loaded.graph_defs) != 1:
        return None
    return benchmark_command(path, loaded.format, summarize_graph(loaded.graph_defs[0]), program=program)


def _deflated_size(path: Path) -> int:
    """Bytes of ``path`` deflated as a zip entry stores it (raw deflate, no zlib header)."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    total = 0
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            total += len(compressor.compress(chunk))
    return total + len(compressor.flush())


def _figures_of(output_dir: Path, *, nm: str | None) -> BuildFigures:
    """The figures of the build in ``output_dir``: from its report.json when that was made from
    the very artifacts its manifest lists (same digests), else measured now."""
    manifest = Manifest.read(output_dir)
    try:
        data = json.loads((output_dir / REPORT_JSON).read_text(encoding="utf-8"))
        figures = figures_from_dict(data["figures"])
        digests = {item.name: item.sha256 for item in manifest.artifacts}
        if digests == {item.name: item.sha256 for item in figures.artifacts}:
            return figures
    except (OSError, ValueError, RecursionError, KeyError, TypeError, AttributeError):
        pass
    return measure_build(output_dir, nm=nm).figures()


def _source_map(root: Path | None, notes: list[str]) -> SourceMap:
    """The tree's kernel index and sources (empty for an op library, or a tree gone since)."""
    if root is None:
        return SourceMap()
    try:
        return source_map(build_kernel_index(root), root)
    except TfbuildError as error:
        notes.append(f"kernel files and ops not named: {error.one_line()}")
        return SourceMap()


def _selection(output_dir: Path, header: FileRecord, notes: list[str]) -> tuple[bool, str]:
    """Whether the build's header registers everything, and what it registers in words."""
    candidates = [output_dir / header.name, *([Path(header.path)] if header.path else [])]
    path = next((candidate for candidate in candidates if candidate.is_file()), None)
    if path is None:
        notes.append("the build's header is gone, so whether it was selective is not known")
        return False, "unknown (header not found)"
    try:
        contents = parse_header(path)
    except InputFileError as error:
        notes.append(error.one_line())
        return False, "unknown (header not readable)"
    return contents.registers_everything, contents.summary()


def _artifact(
    output_dir: Path, record: FileRecord, sources: SourceMap, *, nm: str | None, link_map: Path | None = None
) -> ArtifactReport:
    """One artifact's sizes: on disk now (the manifest's figure if it is gone), and where its
    bytes come from: by the linker's map when the build wrote one (it holds what a stripped
    library no longer names), else by symbol."""
    name, kind = record.name, record.kind
    candidates = (output_dir / name, *([Path(record.path)] if record.path else []))
    path = next((p for p in candidates if p.is_file()), None)
    base = ArtifactReport(name=name, kind=kind, size=record.size, sha256=record.sha256)
    if path is None:
        return replace(base, note=f"not in {output_dir} any more: the manifest's size is shown")
    base = replace(base, size=path.stat().st_size)
    found = object_kind(path)
    if found.format == "unknown" and found.archive:
        return replace(base, note="an archive of no object files")
    if kind in _NOT_CODE or found.format == "unknown":
        return replace(base, note="not an object file: no symbols to attribute")
    if link_map is not None and link_map.is_file():
        return _by_link_map(base, output_dir, link_map, sources)
    try:
        table = read_symbols(path, nm=nm)
    except TfbuildError as error:
        if nm is not None:  # the nm the user named failed: not a note in a report they asked it for
            raise
        return replace(base, note=error.one_line())
    return replace(base, attribution=attribute(table, sources, artifact=name))


def _by_link_map(base: ArtifactReport, output_dir: Path, link_map: Path, sources: SourceMap) -> ArtifactReport:
    """A linked library's attribution from the map its link wrote (:mod:`.linker_map`)."""
    try:
        mapped = read_link_map(link_map)
    except (OSError, LinkMapError) as error:
        return replace(base, note=f"its linker map cannot be read: {error}")
    shown = link_map.relative_to(output_dir) if link_map.is_relative_to(output_dir) else link_map
    return replace(base, attribution=attribute_link_map(mapped, sources, tool=f"the linker's map, {shown}"))
