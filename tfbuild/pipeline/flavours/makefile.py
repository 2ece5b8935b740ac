"""The contrib Makefile flavour (TensorFlow 1.x to 2.0): the steps the ``build_all_*.sh`` scripts
run, made explicit and selective.

In order: ``download_dependencies.sh`` (skipped when ``downloads/`` is already filled, so an
offline CI can pre-seed it), with ``--protobuf-rename`` the rename of the downloaded protobuf and
TensorFlow's sources to ``google::protobuf3`` (a step tfbuild does itself on this machine,
:class:`RenameProtobuf`), protobuf for the target (the target's ``compile_*_protobuf.sh``, or
protobuf's own configure for cross targets TensorFlow has no script for), nsync for the host
and the target (``compile_nsync.sh``), then ``make -f tensorflow/contrib/makefile/Makefile``
with the profile's variables. Selection rides on ``OPTFLAGS``, the one variable the Makefile
folds into ``CXXFLAGS`` that a command line may replace without losing the Makefile's own flags
(as ``compile_ios_tensorflow.sh -f`` uses it): ``-DSELECTIVE_REGISTRATION
-DSUPPORT_SELECTIVE_REGISTRATION -I<header dir>``, where TensorFlow's
``selective_registration.h`` finds ``ops_to_register.h``. ``ANDROID_TYPES`` is the type set
chosen from the models (:mod:`tfbuild.tree.mobile_types`): the slim set only when every kernel
they need is still registered with it, else the full set, as ``build_all_ios.sh -g`` sets it.

Android: which NDK adapter builds the target is chosen from the NDK
(:mod:`tfbuild.pipeline.outputs.android.ndk_clang`): the Makefile's own GCC section for NDK r17
and older, or, for a clang-only NDK, tfbuild's adapter, which gives make the NDK's clang and the
complete flag set on its command line and cross-builds protobuf and nsync with the same clang.

A size profile (:mod:`tfbuild.pipeline.declarations.size_profiles`) adds its flags for every object to
``OPTFLAGS`` too, after the target's own and before ``--extra-cflag``; of the ``-O`` levels only
the last stays (the profile's, or ``--extra-cflag``'s), so each compile line names one level.
Its per-file and link flags go into ``tfbuild-profile.mk``, written into the output directory
(``/out`` in the container) and read after TensorFlow's Makefile (``make -f Makefile -f
tfbuild-profile.mk``), which stays unedited: a target-specific ``private override CXXFLAGS :=
$(filter-out -O%,$(CXXFLAGS)) -O2`` for each hot kernel's object (``$(OBJDIR)tensorflow/core/kernels/conv_ops.o``, the
Makefile's own object names) and ``override LDFLAGS += ...`` for the benchmark's link.
Target-specific ``OPTFLAGS`` would not do: ``CXXFLAGS`` is a simple variable that took
``OPTFLAGS``' value when the Makefile was read. ``override`` is what beats a ``CXXFLAGS`` or
``LDFLAGS`` on make's command line (pi-armv7 and linux-aarch64 pass ``LDFLAGS`` there). The
profile covers TensorFlow's objects and the benchmark; protobuf and nsync keep their scripts' flags.

In the container, ccache (a named volume per target) stands in front of the compiler, with the
fleet's remote storage and distcc workers behind it when they are configured
(:mod:`tfbuild.pipeline.caches.remote`): TensorFlow's make step starts with zeroed statistics and the
plan ends by printing them, the hit counts the manifest records.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.flavour import Flavour
from tfbuild.pipeline.caches.remote import CCACHE_STATS_FILE, makefile_remote
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.declarations.size_profiles import apply_size_profile
from tfbuild.pipeline.flavours.fixups import apply_fixups, make_flags
from tfbuild.pipeline.flavours.layout import (
    BuildLayout,
    PlanRequest,
    Preparation,
    container_layout,
    header_file,
    local_layout,
    require_path,
    toolchain_image,
    tree_header_file,
)
from tfbuild.pipeline.flavours.per_file_selection import APP_SELECTION_SOURCE, SELECTION_DIR, SELECTION_MAKEFILE
from tfbuild.pipeline.outputs.android.jni_library import (
    JNI_DIR,
    HostJniRequest,
    JniLibraryPlan,
    JniLibraryRequest,
    choose_java_api,
    plan_host_jni_library,
    plan_jni_library,
)
from tfbuild.pipeline.outputs.android.ndk_clang import (
    CLANG_STL,
    CLANG_TAG,
    MAKEFILE_NDK_API_LEVEL,
    NSYNC_ANDROID_TAG,
    ClangToolchain,
    NdkAdapter,
    choose_adapter,
    clang_toolchain,
    fixup_values,
    make_variables,
    nsync_make_variables,
    protobuf_configure,
)
from tfbuild.pipeline.planning.notes import Note
from tfbuild.pipeline.planning.opt_level import one_optimisation_level
from tfbuild.pipeline.planning.plan import (
    AndroidNdkUse,
    AppliedFixup,
    AppliedSizeProfile,
    Artifact,
    BuildPlan,
    GeneratedFile,
    Step,
    TreeLeftover,
)
from tfbuild.pipeline.planning.protobuf_runtime import (
    BENCHMARK_OBJECT,
    GIVEN_UP,
    LITE,
    LITE_DEFINE,
    LITE_MAKEFILE,
    LITE_TEXT_PROTO_HEADER,
    check_lite,
    left_out,
    needs_text_proto_overload,
    profile_for,
)
from tfbuild.pipeline.planning.reproducible import Reproducibility, deterministic_ar_flags, prefix_maps
from tfbuild.templating import render
from tfbuild.toolchain.android_ndk import CONTAINER_HOST, build_machine_host, inspect_ndk
from tfbuild.toolchain.targets import Linker, MakefileProfile, Platform, TargetProfile, fill
from tfbuild.toolchain.tf_versions import ndk_majors_text, tree_requirements
from tfbuild.tree.build_files.op_files_list import OP_FILES_LIST
from tfbuild.tree.contrib_makefile import makefile_variables
from tfbuild.tree.facts import MAKEFILE, MAKEFILE_DIR, TreeFacts
from tfbuild.tree.git_version import (
    DESCRIBE_GIT_DIR,
    GEN_GIT_SOURCE,
    describe,
    describe_git_dir,
    runs_gen_git_source,
    tree_commits,
)
from tfbuild.tree.java_api import TreeJavaApi, full_runtime_uses, missing_eager_api
from tfbuild.tree.makefile_inputs import require_makefile_inputs
from tfbuild.tree.protobuf_pin import read_protobuf_pin
from tfbuild.tree.protobuf_rename import NAMESPACE, PROTOBUF_SRC, apply_protobuf_rename, plan_protobuf_rename

__all__ = [
    "DOWNLOAD_STEP", "FORGET_STEP", "MAKEFILE", "MAKEFILE_NDK_API_LEVEL", "PROFILE_MAKEFILE", "PROTOBUF_RENAME_STEP",
    "RenameProtobuf", "check", "plan", "prepare",
]

DOWNLOADS = f"{MAKEFILE_DIR}/downloads"
HOST_PROTOBUF_PREFIX = "gen/protobuf-host"
PROTOBUF_CROSS_TAG = "protobuf-cross"
"""The tag of a step that configures protobuf for another host from a copy of its sources."""
NSYNC_TAG = "nsync"
"""The tag of a ``compile_nsync.sh`` step, for host or target: its archive is reused only when the
same command (after fix-ups) made it (:func:`_forget_stale_nsync`)."""
NSYNC_FLAGS_STAMP = ".tfbuild-flags.sha256"
"""Appended to an nsync build directory's path: the file beside it that holds the digest of the
command that built it."""
PROTOBUF_PROGRAMS = ("autoreconf", "libtoolize", "automake", "make")
"""What building protobuf from source runs: its ``autogen.sh`` (autotools), then make."""
DOWNLOAD_STEP = "download dependencies"
PROTOBUF_RENAME_STEP = "rename protobuf to google::protobuf3"
_RENAMED_PROTOBUF = TreeLeftover(
    f"{PROTOBUF_SRC}/google/{NAMESPACE}",
    f"renamed protobuf to google::{NAMESPACE} in {MAKEFILE_DIR}/downloads (the build's downloaded dependencies: "
    "the revert leaves them; delete that directory for the original)",
)
SELECTIVE_FLAGS = ("-DSELECTIVE_REGISTRATION", "-DSUPPORT_SELECTIVE_REGISTRATION")
FULL_TYPES = "-D__ANDROID_TYPES_FULL__"
HOST_JNI_FLAGS = ("--std=c++11", "-DNDEBUG")
"""The contrib Makefile's language level and release define, for a JNI library built beside it."""
PROFILE_MAKEFILE = "tfbuild-profile.mk"
GEN_DIR = "gen"
SELECTION_BASE = f"{MAKEFILE_DIR}/{GEN_DIR}/{SELECTION_DIR}"
"""Per-file selection headers, relative to the tree's root (the Makefile's git-ignored gen/)."""
FLAGS_STAMP = "tfbuild-build-flags.sha256"
FORGET_STEP = "forget objects built with other flags"
BUILT_WITH_TARGET_FLAGS = ("obj", "dep", "lib", "bin", "proto")
"""What the Makefile builds under ``gen/`` with the target's flags (every target's, below
these), and the target's protos (``proto``: generated for the full or the lite runtime).
Host tools (``host_obj``, ``proto_text``), protobuf and nsync stay."""
_MAKE_SAFE_SOURCE = re.compile(r"[A-Za-z0-9_./+-]+\.cc\Z")
"""A source name that can stand in a make rule as it is (no spaces, ``$``, ``:``, ``%``, ``#``)."""


def check(options: BuildOptions, profile: TargetProfile, tree: TreeFacts | None) -> None:
    """A tree without the contrib Makefile (TF 2.1 and later) cannot be built by it, one missing
    inputs its lists name would fail at make's "No rule to make target" an hour in (named, all
    of them, now: :mod:`tfbuild.tree.makefile_inputs`), and lite protos need a tree whose
    sources switch to them."""
    if tree is not None and not tree.has_makefile:
        raise SourceTreeError(
            f"{tree.root}: TensorFlow {tree.version} has no {MAKEFILE_DIR} (removed in 2.1)",
            hint="build it with --flavour bazel",
        )
    if tree is not None:
        require_makefile_inputs(tree.root)
    if tree is not None and options.protobuf_runtime == LITE:
        check_lite(tree.root, str(tree.version), target=profile.name, platform=profile.platform,
                   renamed=options.protobuf_rename)


def prepare(options: BuildOptions) -> Preparation:
    """Nothing to prepare before the analysis: the tree is the build's only input."""
    del options
    return Preparation()


def plan(request: PlanRequest) -> BuildPlan:
    request = dataclasses.replace(request, profile=profile_for(request.profile, request.options.protobuf_runtime))
    profile = request.profile.makefile
    assert profile is not None
    assert request.tree is not None
    dockerfile = None if request.options.local else profile.dockerfile
    host = CONTAINER_HOST if dockerfile is not None else build_machine_host()
    adapter = _android_adapter(request, profile, host)
    layout = container_layout(request, ccache_volume=True) if dockerfile is not None else local_layout(request)
    image = toolchain_image(request, dockerfile) if dockerfile is not None else None
    env = {"CCACHE_DIR": str(layout.ccache)} if layout.ccache else {}
    remote = makefile_remote(request.options.remote, has_ccache=layout.ccache is not None,
                             in_container=layout.in_container, scratch=layout.scratch, jobs=request.options.jobs)
    artifacts = tuple(
        Artifact(path=_makefile_path(layout, spec.path), name=spec.name, kind=spec.kind) for spec in profile.artifacts
    )
    clang = _ndk_clang(adapter, layout, host)
    size = _size_profile(request, clang.build.linker if clang else profile.linker)
    profile_mk = _profile_makefile(request, size)
    lite = _lite_files(request, layout)
    makefile = _Makefile(request, profile, layout, adapter, clang, host, remote.env)
    steps, fixups = _with_fixups(
        makefile, makefile.steps(size, profile_mk, layout.out / PROFILE_MAKEFILE if profile_mk else None, lite),
        _fixup_values(clang, layout, request.profile.arch))
    steps = _forget_stale_nsync(steps)
    version = makefile.version
    generated = (header_file(request), tree_header_file(request), *((profile_mk,) if profile_mk else ()),
                 *(lite.files if lite else ()), *_selection_files(request), *(version.files if version else ()))
    makefile.notes += [version.note] if version is not None else []
    jni = _jni_library(request, makefile, size, artifacts, has_clang=clang is not None)
    if jni is not None:
        steps, generated = (*steps, *jni.steps), (*generated, *jni.generated_files)
        artifacts = (*artifacts, jni.artifact)
    if layout.ccache is not None:
        steps = (*steps, _ccache_statistics(layout, request))
    return BuildPlan(
        target=request.profile.name,
        flavour=Flavour.MAKEFILE,
        image=image,
        mounts=layout.mounts,
        steps=steps,
        generated_files=generated,
        artifacts=artifacts,
        output_dir=request.options.output_dir,
        env={**env, **({"ZERO_AR_DATE": "1"} if request.profile.platform is Platform.IOS else {})},
        fixups=fixups,
        size_profile=size,
        reproducibility=makefile.reproducibility(),
        notes=(*(adapter.notes if adapter else ()), *makefile.notes, *_selection_notes(request), *_lite_notes(lite),
               *_mobile_types_notes(request), *(jni.notes if jni else ()), *remote.notes),
        android_ndk=_ndk_use(adapter, profile),
        link_dirs=(f"{MAKEFILE_DIR}/{GEN_DIR}",),
        mobile_types=request.mobile_types,
        android_jni=jni.record if jni else None,
        secret_env=remote.secret_env,
        network=remote.network,
        protobuf_runtime=request.options.protobuf_runtime,
        page_size=profile.ndk_clang.page_size if clang is not None and profile.ndk_clang is not None else None,
        tree_leftovers=(_RENAMED_PROTOBUF,) if makefile.renames_protobuf() else (),
    )


def _ndk_clang(adapter: NdkAdapter | None, layout: BuildLayout, host: str) -> ClangToolchain | None:
    """The NDK's clang as the build runs it, when the adapter builds with clang (None: no NDK, or
    an old NDK's GCC)."""
    if adapter is None or adapter.clang is None:
        return None
    assert layout.ndk is not None
    return clang_toolchain(layout.ndk, host, adapter.clang, "ccache" if layout.ccache else None)


def _with_fixups(makefile: _Makefile, steps: tuple[Step, ...],
                 values: dict[str, str]) -> tuple[tuple[Step, ...], tuple[AppliedFixup, ...]]:
    """``steps`` with the fix-ups for this tree, chosen and explained by what the tree's protobuf
    does (:mod:`tfbuild.tree.protobuf_pin`), which the plan notes."""
    tree = makefile.request.tree
    assert tree is not None
    protobuf = read_protobuf_pin(tree.root)
    fixed = apply_fixups(
        steps, tree.version, tree_facts=protobuf.facts(),
        values={**values, "protobuf": protobuf.name, "protobuf_subdirs": protobuf.subdirs or "its googletest or gmock"},
    )
    left_out = "" if protobuf.facts() else "; the fix-ups for a protobuf that downloads it are left out"
    makefile.notes.append(Note("protobuf", protobuf.line() + left_out))
    return fixed


def _fixup_values(clang: ClangToolchain | None, layout: BuildLayout, arch: str) -> dict[str, str]:
    """What the fix-ups of a clang adapter build fill their templates with; none without clang."""
    if clang is None:
        return {}
    makefile_dir = layout.tree_src / MAKEFILE_DIR
    return {
        **fixup_values(clang, makefile_dir, arch),
        "host_protobuf_lib": str(makefile_dir / HOST_PROTOBUF_PREFIX / "lib"),
    }


def _ccache_statistics(layout: BuildLayout, request: PlanRequest) -> Step:
    return Step("ccache statistics", ("ccache", "--print-stats"), layout.tree_src,
                log=request.options.output_dir / CCACHE_STATS_FILE)


@dataclass(frozen=True)
class _Version:
    """The git directory the make step describes, and the plan's note on what it names."""

    files: tuple[GeneratedFile, ...]
    note: Note


@dataclass(frozen=True)
class _LiteProtos:
    """A lite-protos build's makefile (``files[0]``) and, for a tree whose ``env.h`` lacks the
    lite ``ReadTextProto``, the header the benchmark's object includes; ``makefile`` is the
    makefile's path as make sees it."""

    files: tuple[GeneratedFile, ...]
    makefile: PurePosixPath


def _lite_files(request: PlanRequest, layout: BuildLayout) -> _LiteProtos | None:
    """What ``--protobuf-runtime lite`` adds to the build (:mod:`tfbuild.pipeline.planning.protobuf_runtime`)."""
    if request.options.protobuf_runtime != LITE:
        return None
    assert request.tree is not None
    out = request.options.output_dir
    overload = needs_text_proto_overload(request.tree.root)
    content = render("protobuf_lite.mk.j2", benchmark_object=BENCHMARK_OBJECT,
                     left_out=left_out(request.kernel_files), makefile=str(layout.out / LITE_MAKEFILE),
                     text_proto_header=str(layout.out / LITE_TEXT_PROTO_HEADER) if overload else "")
    files = [GeneratedFile(path=out / LITE_MAKEFILE, content=content)]
    if overload:
        files.append(GeneratedFile(path=out / LITE_TEXT_PROTO_HEADER, content=render("lite_text_proto.h.j2")))
    return _LiteProtos(tuple(files), layout.out / LITE_MAKEFILE)


def _lite_notes(lite: _LiteProtos | None) -> tuple[Note, ...]:
    if lite is None:
        return ()
    return (Note("protobuf-runtime", f"TensorFlow's protos for the lite protobuf runtime ({LITE_MAKEFILE}, "
                 f"{LITE_DEFINE}, libprotobuf-lite.a): {GIVEN_UP}"),)


def _mobile_types_notes(request: PlanRequest) -> tuple[Note, ...]:
    return (Note("mobile-types", request.mobile_types.description()),) if request.mobile_types else ()


def _ndk_use(adapter: NdkAdapter | None, profile: MakefileProfile) -> AndroidNdkUse | None:
    """What the manifest records of the NDK: the clang adapter compiles against libc++, the
    Makefile's own GCC section against the runtime the profile names (gnustl)."""
    if adapter is None:
        return None
    if adapter.clang is not None:
        return AndroidNdkUse(str(adapter.ndk.path.absolute()), adapter.ndk.revision, "clang", CLANG_STL)
    return AndroidNdkUse(str(adapter.ndk.path.absolute()), adapter.ndk.revision, "gcc", profile.ndk_gcc_stl)


def _size_profile(request: PlanRequest, linker: Linker) -> AppliedSizeProfile:
    """The size profile for the build's linker, with the hot sources a make rule can name."""
    hot = tuple(source for source in request.hot_files if _MAKE_SAFE_SOURCE.match(source))
    size = apply_size_profile(request.options.size_profile, linker=linker, hot_files=hot)
    skipped = sorted(set(request.hot_files) - set(hot))
    if skipped and size.hot_files:
        note = f"not compiled apart (no make rule can name them): {', '.join(skipped)}"
        size = dataclasses.replace(size, notes=(*size.notes, note))
    return size


def _selection_notes(request: PlanRequest) -> tuple[Note, ...]:
    if request.selection is None:
        return ()
    count = len(request.selection.files)
    return (Note("per-file-selection", f"{count} kernel and op sources each see only their own selection "
            f"({SELECTION_BASE}/, {MAKEFILE_DIR}/{GEN_DIR}/{SELECTION_MAKEFILE}); the tree's "
            "ops_to_register.h dispatches to them and names no op, so it is the same for every app; "
            f"the app's op list, asked at run time, is {SELECTION_BASE}/{APP_SELECTION_SOURCE}"),)


def _selection_files(request: PlanRequest) -> tuple[GeneratedFile, ...]:
    """Under per-file selection: each source's header beside the build's, the app's op list for
    run time, and the makefile of per-object flags (:mod:`tfbuild.pipeline.flavours.per_file_selection`)."""
    selection = request.selection
    if selection is None:
        return ()
    assert request.tree is not None
    headers = selection.headers(request.tree.root, SELECTION_BASE)
    return (
        *(GeneratedFile(path=path, content=text) for path, text in headers.items()),
        GeneratedFile(path=request.tree.root / SELECTION_BASE / APP_SELECTION_SOURCE, content=selection.app_source()),
        GeneratedFile(path=request.tree.root / MAKEFILE_DIR / GEN_DIR / SELECTION_MAKEFILE,
                      content=selection.makefile(SELECTION_BASE)),
    )


def _profile_makefile(request: PlanRequest, size: AppliedSizeProfile) -> GeneratedFile | None:
    """``tfbuild-profile.mk`` in the output directory, when the profile has per-file or link flags."""
    if not size.hot_files and not size.ldflags:
        return None
    content = render(
        "size_profile.mk.j2",
        profile=size.name,
        hot_cflags=size.hot_cflags,
        hot_objects=tuple(source.removesuffix(".cc") + ".o" for source in size.hot_files),
        ldflags=size.ldflags,
    )
    return GeneratedFile(path=request.options.output_dir / PROFILE_MAKEFILE, content=content)


@dataclass(frozen=True)
class RenameProtobuf:
    """The protobuf rename as a step's :attr:`~tfbuild.pipeline.planning.plan.Step.host_action`: planned
    when the step runs, on the tree as the download step left it (:mod:`tfbuild.tree.protobuf_rename`),
    and applied, its tracked rewrites committed on tfbuild's work branch."""

    root: Path

    def run(self) -> tuple[str, ...]:
        renamed = apply_protobuf_rename(plan_protobuf_rename(self.root))
        return tuple(renamed.summary_lines())


class _Makefile:
    """The steps of one Makefile plan: the target's profile, and for Android the NDK adapter
    (with the clang toolchain when it is the clang adapter). ``notes`` collects what the plan
    should say about choices made on the way."""

    def __init__(
        self,
        request: PlanRequest,
        profile: MakefileProfile,
        layout: BuildLayout,
        adapter: NdkAdapter | None,
        clang: ClangToolchain | None,
        host: str,
        remote_env: Mapping[str, str],
    ) -> None:
        self.request, self.profile, self.layout = request, profile, layout
        self.adapter, self.clang, self.host = adapter, clang, host
        self.notes: list[Note] = []
        self.src = layout.tree_src
        self.mk = self.src / MAKEFILE_DIR
        self.env = {"NDK_ROOT": str(layout.ndk)} if layout.ndk is not None else {}
        self.env.update(remote_env)
        self.tags = frozenset({CLANG_TAG}) if clang is not None else frozenset()

    def steps(
        self, size: AppliedSizeProfile, profile_mk_file: GeneratedFile | None, profile_mk: PurePosixPath | None,
        lite: _LiteProtos | None,
    ) -> tuple[Step, ...]:
        steps = [
            Step(DOWNLOAD_STEP, (f"{MAKEFILE_DIR}/download_dependencies.sh",), self.src,
                 skip_if_exists=self.src / DOWNLOADS),
            *self._rename_steps(),
            *self._protobuf_steps(),
            Step(
                "build nsync (host)",
                (f"{MAKEFILE_DIR}/compile_nsync.sh",),
                self.src,
                skip_if_exists=self.mk / self.profile.nsync.host_lib,
                tags=frozenset({NSYNC_TAG}),
            ),
        ]
        if self.profile.nsync.lib != self.profile.nsync.host_lib:
            steps.append(self._target_nsync_step())
        argv = self._make_argv(size, profile_mk, lite.makefile if lite else None)
        made_by = "".join(file.content for file in (profile_mk_file, *(lite.files if lite else ())) if file)
        steps.append(_forget_stale_objects(argv, made_by, self.src))
        if "DISTCC_DIR" in self.env:  # distcc makes its lock directory there, not the parents
            steps.append(Step("distcc: state directory", ("mkdir", "-p", self.env["DISTCC_DIR"]), self.src))
        if self.layout.ccache is not None:
            # The statistics the plan's last step prints are this build's (the volume outlives it).
            steps.append(Step("ccache: zero the statistics", ("ccache", "--zero-stats"), self.src))
        steps.append(Step(f"build TensorFlow ({self.request.profile.name})", argv, self.src,
                          env={**self.env, **self._version_env()}, tags=self.tags, dry_run=("-n",)))
        return tuple(steps)

    def _version_env(self) -> dict[str, str]:
        """``GIT_DIR`` for the make step when the Makefile writes version_info.cc with the tree's
        gen_git_source.sh (:mod:`tfbuild.tree.git_version`): the user's commit is described."""
        return {"GIT_DIR": DESCRIBE_GIT_DIR} if self.version is not None else {}

    @functools.cached_property
    def version(self) -> _Version | None:
        """What the built library's ``tf_git_version()`` will name, when the build decides it."""
        tree = self.request.tree
        assert tree is not None
        if tree.commit is None or not runs_gen_git_source(self._makefile_text):
            return None
        commits = tree_commits(tree.root, tree.commit)
        files = tuple(GeneratedFile(path=tree.root / path, content=content)
                      for path, content in describe_git_dir(tree.root, commits.user).items())
        described = describe(tree.root, commits.user) or "unknown"
        note = Note("version", (
            f"the library's tf_git_version() names {described}, your commit {commits.user[:12]} as "
            f"{GEN_GIT_SOURCE} describes it (git describe --long --tags), not tfbuild's work commit: its make "
            f"step runs with GIT_DIR={DESCRIBE_GIT_DIR}, whose HEAD is your commit"))
        return _Version(files, note)

    def _target_nsync_step(self) -> Step:
        profile, env = self.profile, dict(self.env)
        tags = {*self.tags, NSYNC_TAG}
        if self.request.profile.platform is Platform.ANDROID:
            tags.add(NSYNC_ANDROID_TAG)
        if self.clang is not None:
            # compile_nsync.sh's Android Makefile calls the NDK's GCC; command-line definitions
            # in MAKEFLAGS override its assignments.
            env["MAKEFLAGS"] = make_flags(nsync_make_variables(self.clang))
        elif profile.nsync.cc is not None:
            # compile_nsync.sh has no option for a cross compiler; its generated Makefile sets
            # CC, which a command-line definition in MAKEFLAGS overrides.
            env["MAKEFLAGS"] = f"CC={profile.nsync.cc}"
        return Step(
            f"build nsync ({self.request.profile.name})",
            (f"{MAKEFILE_DIR}/compile_nsync.sh", *profile.nsync.args),
            self.src,
            env=env,
            skip_if_exists=self.mk / profile.nsync.lib,
            tags=frozenset(tags),
        )

    def renames_protobuf(self) -> bool:
        """Whether the plan renames protobuf (``--protobuf-rename``) in the tree's downloads."""
        return self.request.options.protobuf_rename and self.request.tree is not None

    def _rename_steps(self) -> list[Step]:
        """With ``--protobuf-rename``: the rename, once the download step has filled ``downloads/``,
        done by tfbuild on this machine's tree (shown as the command that does it by hand)."""
        tree = self.request.tree
        if not self.renames_protobuf() or tree is None:
            return []
        root = tree.root.absolute()
        argv = ("tfbuild", "protobuf", "rename", "--source", str(root))
        return [Step(PROTOBUF_RENAME_STEP, argv, PurePosixPath(root.as_posix()), host_action=RenameProtobuf(root))]

    def _protobuf_steps(self) -> list[Step]:
        protobuf = self.profile.protobuf
        installed = self.mk / protobuf.prefix / "lib" / "libprotobuf.a"
        if self.clang is not None:
            # compile_android_protobuf.sh calls the NDK's GCC: protobuf's configure, cross, instead.
            cxx, extra = protobuf_configure(self.clang)
            return self._cross_protobuf(self.clang.build.abi_triple, cxx, extra, installed)
        if protobuf.script is not None:
            return [
                Step(
                    f"build protobuf ({protobuf.script})",
                    (f"{MAKEFILE_DIR}/{protobuf.script}", *protobuf.args),
                    self.src,
                    env=self.env,
                    skip_if_exists=installed,
                    programs=PROTOBUF_PROGRAMS,
                    makes=(self.mk / protobuf.prefix / "bin" / "protoc",),
                )
            ]
        # Without a script, ProtobufBuild has a configure host and a compiler (checked when loaded).
        assert protobuf.configure_host is not None
        assert protobuf.cxx is not None
        return self._cross_protobuf(protobuf.configure_host, protobuf.cxx, (), installed)

    def _cross_protobuf(
        self, configure_host: str, cxx: str, extra: tuple[str, ...], installed: PurePosixPath
    ) -> list[Step]:
        host_protoc = self.mk / HOST_PROTOBUF_PREFIX / "bin" / "protoc"
        return [
            Step(
                "build protobuf (host, for protoc)",
                (f"{MAKEFILE_DIR}/compile_linux_protobuf.sh",),
                self.src,
                skip_if_exists=host_protoc,
                programs=PROTOBUF_PROGRAMS,
                makes=(host_protoc,),
            ),
            Step(
                f"build protobuf ({configure_host})",
                (
                    "bash", "-c", render("steps/cross_protobuf.sh"), "bash",
                    str(self.mk / "downloads" / "protobuf"),
                    str(self.mk / self.profile.protobuf.prefix),
                    configure_host,
                    cxx,
                    str(host_protoc),
                    str(self.request.options.jobs),
                    *extra,
                ),
                self.src,
                skip_if_exists=installed,
                tags=self.tags | {PROTOBUF_CROSS_TAG},
                programs=PROTOBUF_PROGRAMS,
            ),
        ]

    def _make_argv(
        self, size: AppliedSizeProfile, profile_mk: PurePosixPath | None, lite_mk: PurePosixPath | None
    ) -> tuple[str, ...]:
        options, layout, profile = self.request.options, self.layout, self.profile
        values = {
            "makefile_dir": str(self.mk),
            "ndk": str(layout.ndk) if layout.ndk is not None else "",
            "ndk_api_level": str(options.android.ndk_api_level or ""),
        }
        variables = {name: fill(value, **values) for name, value in profile.variables.items()}
        # ccache in front of the compiler; with distcc workers ccache hands its misses to distcc
        # (CCACHE_PREFIX), or distcc stands in front itself when there is no ccache (--local).
        prefix = "ccache" if layout.ccache is not None else "distcc" if options.remote.distcc_hosts else None
        if prefix is not None:
            variables.setdefault("CC_PREFIX", prefix)
            if "CXX" in variables:
                variables["CXX"] = f"{prefix} {variables['CXX']}"
        if self.clang is not None:
            variables.update(self._clang_variables())
        variables.update(
            HOST_NSYNC_LIB=f"{MAKEFILE_DIR}/{profile.nsync.host_lib}",
            TARGET_NSYNC_LIB=f"{MAKEFILE_DIR}/{profile.nsync.lib}",
            ANDROID_TYPES=self._android_types(),
            OPTFLAGS=" ".join(self._optflags(size)),
        )
        ar_flags = self._ar_flags()
        if ar_flags is not None:
            variables["ARFLAGS"] = ar_flags
        makefiles: tuple[str, ...] = ("-f", MAKEFILE)
        for path in (profile_mk, lite_mk):
            makefiles = (*makefiles, "-f", str(path)) if path is not None else makefiles
        if self.request.selection is not None:
            makefiles = (*makefiles, "-f", f"{MAKEFILE_DIR}/{GEN_DIR}/{SELECTION_MAKEFILE}")
        return ("make", *makefiles, f"-j{options.jobs}", *(f"{name}={value}" for name, value in variables.items()))

    def _optflags(self, size: AppliedSizeProfile) -> tuple[str, ...]:
        """``OPTFLAGS``: the target's, the size profile's, selection, the header, the prefix
        maps, --extra-cflag."""
        options = self.request.options
        # Under per-file selection the sources find their headers through -I. (the tree's
        # root) and the build's header directory stays off the command line: it is in the
        # output directory, which differs from app to app, and a new command line rebuilds all.
        header = () if self.request.selection is not None else (f"-I{self.layout.header_dir}",)
        lite = (LITE_DEFINE,) if options.protobuf_runtime == LITE else ()
        return one_optimisation_level((*self.profile.optflags, *size.cflags, *SELECTIVE_FLAGS, *lite, *header,
                                       *self._prefix_maps(), *options.extra_cflags))

    @functools.cached_property
    def _makefile_text(self) -> str:
        """The tree's contrib Makefile, read once for the variables derived from it."""
        assert self.request.tree is not None
        return (self.request.tree.root / MAKEFILE).read_text(encoding="utf-8", errors="replace")

    @property
    def _gcc_ndk(self) -> bool:
        """The old-NDK plan: the NDK's GCC 4.9, which has no ``-ffile-prefix-map``."""
        return self.adapter is not None and self.clang is None

    def _prefix_maps(self) -> tuple[str, ...]:
        """The tree's root as ``.`` and the header's directory as ``tfbuild-header`` in every
        ``__FILE__`` and debug path (:mod:`tfbuild.pipeline.planning.reproducible`)."""
        if self._gcc_ndk:
            return ()
        if self.request.selection is not None:
            return prefix_maps({self.src: "."})
        return prefix_maps({self.src: ".", self.layout.header_dir: "tfbuild-header"})

    def reproducibility(self) -> Reproducibility:
        """What this plan does for reproducible artifacts; the build's time is chosen later."""
        not_identical = []
        if self._gcc_ndk:
            not_identical.append("objects keep the tree's path in __FILE__: the NDK's GCC 4.9 has no -ffile-prefix-map")
        ar_flags = self._ar_flags()
        if ar_flags is None:
            not_identical.append("archives on Apple platforms: Apple's ar has no D modifier (ZERO_AR_DATE=1 is set)")
        return Reproducibility(prefix_maps=self._prefix_maps(), ar_flags=ar_flags, not_identical=tuple(not_identical))

    def _ar_flags(self) -> str | None:
        """The tree's ``ARFLAGS`` for this target with ``D``; None on Apple platforms."""
        if self.request.profile.platform is Platform.IOS:
            return None
        tree = self.request.tree
        assert tree is not None
        text = self._makefile_text
        given = {name: value for name, value in self.profile.variables.items() if name in ("TARGET", "ANDROID_ARCH")}
        return deterministic_ar_flags(makefile_variables(text, given, ("ARFLAGS",))["ARFLAGS"])

    def _android_types(self) -> str:
        return self.request.mobile_types.flag if self.request.mobile_types else FULL_TYPES

    @property
    def _host_protoc(self) -> PurePosixPath:
        """The protoc that runs on this machine: the one of the target's protobuf when a script
        builds it here (Linux x86_64), else the host protobuf's, built for cross targets."""
        protobuf = self.profile.protobuf
        if protobuf.script is not None and protobuf.configure_host is None:
            return self.mk / protobuf.prefix / "bin" / "protoc"
        return self.mk / HOST_PROTOBUF_PREFIX / "bin" / "protoc"

    def host_jni_library(self, size: AppliedSizeProfile, artifacts: tuple[Artifact, ...],
                         api: TreeJavaApi) -> JniLibraryPlan:
        """The tree's Java API's JNI library for a Linux Java VM, with the target's compiler and
        the build's optimisation flags."""
        tree = self.request.tree
        assert tree is not None
        by_name = {artifact.name: artifact.path for artifact in artifacts}
        link, profile = self.request.profile.link, self.request.profile
        compiler = profile.ops_library.compiler if profile.ops_library is not None else "g++"
        op_files = tree.root / OP_FILES_LIST
        return plan_host_jni_library(HostJniRequest(
            api=api, cxx=compiler, cxxflags=(*HOST_JNI_FLAGS, *self._optflags(size)), target=profile.name,
            arch=profile.arch, work_dir=self.request.options.output_dir / JNI_DIR,
            work_dir_seen=self.layout.out / JNI_DIR, tree_src=self.src, tree_root=tree.root,
            whole_archive=tuple(by_name[name] for name in link.whole_archive if name in by_name),
            archives=tuple(by_name[name] for name in link.libs if name in by_name),
            system_libs=link.system_libs,
            op_files_text=op_files.read_text(encoding="utf-8", errors="replace") if op_files.is_file() else "",
            protoc=self._host_protoc,
        ))

    def jni_library(self, size: AppliedSizeProfile, artifacts: tuple[Artifact, ...],
                    tree_api: TreeJavaApi | None) -> JniLibraryPlan:
        """The JNI library's steps (:mod:`tfbuild.pipeline.outputs.android.jni_library`), from the archives
        the build makes, with the clang adapter's flags (without ccache: it links too)."""
        clang, adapter, tree = self.clang, self.adapter, self.request.tree
        assert clang is not None
        assert adapter is not None
        assert tree is not None
        by_name = {artifact.name: artifact.path for artifact in artifacts}
        link, android = self.request.profile.link, self.request.options.android
        abi, api, host = clang.build.abi_triple, clang.api_level, self.host
        op_files = tree.root / OP_FILES_LIST
        return plan_jni_library(JniLibraryRequest(
            toolchain=dataclasses.replace(clang, launcher=None),
            makefile_text=self._makefile_text,
            android_arch=self.request.profile.arch,
            target=self.request.profile.name,
            references={"OPTFLAGS": " ".join(self._optflags(size)), "MAKEFILE_DIR": str(self.mk),
                        "ANDROID_TYPES": self._android_types()},
            java_package=android.java_package,
            library=android.jni_library,
            work_dir=self.request.options.output_dir / JNI_DIR,
            work_dir_seen=self.layout.out / JNI_DIR,
            tree_src=self.src,
            whole_archive=tuple(by_name[name] for name in link.whole_archive if name in by_name),
            archives=tuple(by_name[name] for name in link.libs if name in by_name),
            size=size,
            library_kinds=lambda name: adapter.ndk.library_kinds(name, abi, api, host),
            op_files_text=op_files.read_text(encoding="utf-8", errors="replace") if op_files.is_file() else "",
            min_sdk=android.ndk_api_level,
            ndk_api_levels=adapter.ndk.api_levels,
            tree_root=tree.root,
            tree_api=tree_api,
            lite_protobuf=self.request.options.protobuf_runtime == LITE,
        ))

    def _clang_variables(self) -> dict[str, str]:
        """The clang adapter's toolchain variables, from the tree's own Makefile."""
        clang, adapter, tree = self.clang, self.adapter, self.request.tree
        assert clang is not None
        assert adapter is not None
        assert tree is not None
        text = self._makefile_text
        abi, api, host = clang.build.abi_triple, clang.api_level, self.host
        variables, notes = make_variables(
            clang, text, self.request.profile.arch,
            library_kinds=lambda name: adapter.ndk.library_kinds(name, abi, api, host),
        )
        self.notes += notes
        return variables


def _jni_library(request: PlanRequest, makefile: _Makefile, size: AppliedSizeProfile,
                 artifacts: tuple[Artifact, ...], *, has_clang: bool) -> JniLibraryPlan | None:
    """The JNI library the build links, if any (``--java-api``: :func:`choose_java_api`): for
    Android with the clang adapter, for a Linux Java VM with TensorFlow's API; refused in one line
    where it cannot be built as asked."""
    assert request.tree is not None
    android = request.options.android
    tree_api, wants_jni, note = choose_java_api(android.java_api, request.profile.platform, request.tree.root,
                                                library=android.jni_library)
    eager = missing_eager_api(request.tree.root, tree_api) if tree_api is not None else None
    if tree_api is not None and eager is not None:
        raise SourceTreeError(
            f"{request.tree.root / eager}: calls TensorFlow's eager C API (TFE_*), which neither "
            f"{tree_api.recipe} nor the contrib Makefile builds: the recipe is older than this tree's Java API",
            hint="build --java-api tfbuild (tfbuild's own class) for this tree")
    if tree_api is not None and request.options.protobuf_runtime == LITE:
        uses = full_runtime_uses(request.tree.root, tree_api, android=request.profile.platform is Platform.ANDROID)
        if uses:
            raise SourceTreeError(
                f"{request.tree.root / uses[0]}: TensorFlow's Java API here takes protobuf's full Message, which "
                "--protobuf-runtime lite leaves out (only MessageToBuffer's is adapted)",
                hint="build it with the full protobuf runtime, or --java-api tfbuild with lite")
    jni = None
    if wants_jni and has_clang:
        jni = makefile.jni_library(size, artifacts, tree_api)
    elif tree_api is not None and request.profile.platform is Platform.LINUX:
        jni = makefile.host_jni_library(size, artifacts, tree_api)
    elif wants_jni and request.profile.platform is Platform.ANDROID and android.java_api != "auto":
        raise ConfigError(f"--java-api {android.java_api}: a JNI library is linked with an NDK's clang (r19 and "
                          "newer), not this NDK's GCC", hint="give a newer NDK, or --java-api none")
    if note is not None and jni is not None:
        makefile.notes.append(note)
    return jni


def _forget_stale_objects(make_argv: tuple[str, ...], made_by: str, src: PurePosixPath) -> Step:
    """A step that removes the tree's objects, archives and programs when they were built with
    other flags: make's dependency files track sources and headers, not the command line, so
    a new size profile or header directory would otherwise relink the old objects. ccache
    makes the rebuild cheap when only the stamp, not the flags, changed."""
    flags = tuple(arg for arg in make_argv if not arg.startswith("-j"))  # the job count changes no object
    gen = f"{MAKEFILE_DIR}/{GEN_DIR}"
    return _forget_step(FORGET_STEP, f"{gen}/{FLAGS_STAMP}", (*flags, made_by),
                        tuple(f"{gen}/{name}" for name in BUILT_WITH_TARGET_FLAGS), src)


def _forget_step(name: str, stamp: str, made_by: tuple[str, ...], built: tuple[str, ...],
                 workdir: PurePosixPath) -> Step:
    """The step that removes ``built`` unless ``stamp`` holds the digest of ``made_by`` (what
    made them: command line, environment), and then records it."""
    digest = hashlib.sha256("\0".join(made_by).encode()).hexdigest()
    return Step(name, ("bash", "-c", render("steps/forget_stale_objects.sh"), "bash", stamp, digest, *built), workdir)


def _forget_stale_nsync(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """``steps`` with a forget step before each nsync build: ``compile_nsync.sh`` is skipped when
    its ``nsync.a`` exists, and its make reuses the objects in the build directory, so an nsync
    built by another command (another compiler, or before the ``-fPIC`` a Java-VM library links
    needs) would be linked as it is. The step's command and environment after fix-ups are the
    digest; another digest, or none recorded (an nsync built by TensorFlow's script or an older
    tfbuild), removes the build directory, 13 sources to compile again."""
    planned: list[Step] = []
    for step in steps:
        if NSYNC_TAG in step.tags and step.skip_if_exists is not None:
            builds = step.skip_if_exists.parent
            made_by = (*step.argv, *(f"{name}={value}" for name, value in sorted(step.env.items())))
            built = step.name.partition(" [fix-up: ")[0].removeprefix("build ")  # named as planned, not as fixed
            planned.append(_forget_step(f"forget {built} built with other flags", f"{builds}{NSYNC_FLAGS_STAMP}",
                                        made_by, (str(builds),), step.workdir))
        planned.append(step)
    return tuple(planned)


def _makefile_path(layout: BuildLayout, relative: str) -> PurePosixPath:
    return layout.tree_src / MAKEFILE_DIR / relative


def _android_adapter(request: PlanRequest, profile: MakefileProfile, host: str) -> NdkAdapter | None:
    """For a target that needs an NDK: read it and choose how the Makefile builds with it,
    before anything else is planned (:func:`~tfbuild.pipeline.outputs.android.ndk_clang.choose_adapter`)."""
    if "ndk" not in request.profile.requires:
        return None
    assert request.tree is not None
    android = request.options.android
    path = require_path(android.ndk, "--ndk", request.profile, origin=android.ndk_origin)
    majors = tree_requirements(request.tree).android_ndk_majors()
    tree_ndks = f"NDK {ndk_majors_text(majors.value)} ({majors.source})"
    return choose_adapter(
        inspect_ndk(path, origin=android.ndk_origin), request.profile, profile, host=host, tree_ndks=tree_ndks
    )
