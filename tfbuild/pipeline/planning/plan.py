"""A build as data: what image, which mounts, which commands, which files to generate, what comes out.

Flavour modules (Makefile, Bazel, ops-library) compute a :class:`BuildPlan` without touching
Docker, so ``tfbuild build --dry-run`` and golden tests can show every command; the executor runs
the same plan in a toolchain container (or locally with ``--local``). Keeping the two apart is
what makes the Android and iOS plans testable on a machine that has neither an NDK nor Xcode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal, Protocol

from tfbuild.flavour import Flavour
from tfbuild.pipeline.planning.notes import Note, NoteKind
from tfbuild.pipeline.planning.protobuf_runtime import FULL, ProtobufRuntime
from tfbuild.pipeline.planning.reproducible import Reproducibility
from tfbuild.toolchain.image_spec import ImageSpec, Mount
from tfbuild.tree.mobile_types import MobileTypes

__all__ = [
    "AndroidNdkUse", "AppliedFixup", "AppliedSizeProfile", "Artifact", "BuildPlan", "GeneratedFile", "HostAction",
    "ImageSpec", "Mount", "Note", "NoteKind", "Step",
]

class HostAction(Protocol):
    """What a step does in tfbuild's own process on this machine instead of running its command
    (the protobuf rename, which rewrites the tree with :mod:`tfbuild.tree.protobuf_rename`). The
    step's argv is then the command that does the same by hand, for the plan's text."""

    def run(self) -> tuple[str, ...]:
        """Do it; returns the lines for the build log. Raises a :class:`~tfbuild.errors.TfbuildError`."""
        ...


@dataclass(frozen=True)
class Step:
    """One command of the build, as an argv list (never a shell string built from user input)."""

    name: str
    argv: tuple[str, ...]
    workdir: PurePosixPath
    env: Mapping[str, str] = field(default_factory=dict)
    skip_if_exists: PurePosixPath | None = None
    """Skip the step when this path already exists (e.g. a filled ``downloads/`` for offline CI)."""
    log: Path | None = None
    """A file on this machine that gets this step's output on its own (one compiler log per
    source), besides the build's log, which gets every step's."""
    parallel: bool = False
    """The step may run at the same time as the parallel steps next to it (one compile per source)."""
    notes: tuple[str, ...] = ()
    """Lines the log gets before the step runs, e.g. the reason of a fix-up it carries."""
    tags: frozenset[str] = frozenset()
    """What kind of step this is beyond its name, for the fix-ups that select steps by it
    (``ndk-clang``: planned by the Makefile flavour's clang adapter for Android)."""
    dry_run: tuple[str, ...] = ()
    """Options that make the step's command print the commands it would run without running
    them (make's ``-n``): the executor runs that first and counts the compiler command lines,
    the total of the progress bar ("12/773 objects")."""
    programs: tuple[str, ...] = ()
    """Programs the step's script runs besides its command (protobuf's ``autogen.sh`` runs
    autoreconf and libtoolize): a ``--local`` build checks them before it starts."""
    host_action: HostAction | None = None
    """Set for a step tfbuild does itself, on this machine, between the other steps (whether
    those run in a container or not); ``argv`` is then only what the plan shows."""
    makes: tuple[PurePosixPath, ...] = ()
    """Programs the step makes that later steps run (the tree's host ``protoc``): a ``--local``
    build does not look for them before it starts."""


@dataclass(frozen=True)
class GeneratedFile:
    """A file tfbuild writes on the host before the build (header, WORKSPACE block, ...)."""

    path: Path
    content: str


@dataclass(frozen=True)
class Artifact:
    """A build output: where the build leaves it, and the name it gets in the output directory."""

    path: PurePosixPath
    name: str
    kind: str  # "static-lib", "shared-lib", "aar", "header", ...


@dataclass(frozen=True)
class AppliedFixup:
    """A toolchain fix-up (:mod:`tfbuild.pipeline.flavours.fixups`) as a plan carries it: which, why, and
    the step it went into."""

    name: str
    why: str
    step: str


@dataclass(frozen=True)
class AppliedSizeProfile:
    """A size profile (:mod:`tfbuild.pipeline.declarations.size_profiles`) as a plan applies it: the flags it
    adds for this target and flavour, the files it compiles apart, and how it was decided."""

    name: str
    description: str = ""
    cflags: tuple[str, ...] = ()
    """Added to every object's compile, after the target's own flags."""
    ldflags: tuple[str, ...] = ()
    """Added to the link (the ones this target's linker has)."""
    hot_cflags: tuple[str, ...] = ()
    """Added after ``cflags`` for ``hot_files``."""
    hot_files: tuple[str, ...] = ()
    """Tree sources registering the model's hot kernels, repository-relative."""
    notes: tuple[str, ...] = ()
    """What was left out and why (a linker without ICF, a static archive that is not linked)."""

    @property
    def adds_flags(self) -> bool:
        return bool(self.cflags or self.ldflags or self.hot_cflags)


@dataclass(frozen=True)
class AndroidNdkUse:
    """The Android NDK a plan builds with, as the manifest records it for the commands that
    compile against the build later (``tfbuild verify``'s C++ runner, ``tfbuild linkflags``):
    its directory on this machine, its revision, which adapter of the Makefile flavour built
    with it (``gcc``: the Makefile's own Android section; ``clang``: tfbuild's clang adapter),
    and the C++ runtime the archives were compiled against, as an app's build names it."""

    path: str
    revision: str
    adapter: Literal["gcc", "clang"]
    stl: str | None


@dataclass(frozen=True)
class TreeLeftover:
    """A change a plan's step makes in the tree that ``tfbuild edit --revert`` leaves (the
    Makefile flavour's protobuf rename in its downloaded dependencies): when ``path``
    (repository-relative) is there after the build ran, ``note`` says so."""

    path: str
    note: str


@dataclass(frozen=True)
class AndroidJniRecord:
    """The JNI library an Android build links: its file, the Java class whose native methods it
    implements (``tfbuild aar`` compiles that class against it), and what it exports."""

    library: str
    """The file name, ``lib<name>.so``."""
    java_package: str
    java_class: str
    exports: tuple[str, ...]
    abi: str
    min_sdk: int
    """The API level it was built for: the AAR's ``minSdkVersion``."""
    link_map: str | None = None
    """The linker's map of the library, relative to the output directory: which object each of
    its bytes came from, for the size report (the library itself may be stripped)."""
    java_api: str = "tfbuild"
    """``tensorflow``: the tree's own Java API (``java_sources`` are its files, copied into the
    output directory); ``tfbuild``: tfbuild's generated class."""
    java_sources: tuple[str, ...] = ()
    """The Java API's sources, relative to the output directory (``java/org/tensorflow/Graph.java``)."""
    jni_classes: tuple[str, ...] = ()
    """The Java classes the native code looks up by name: the AAR's ``proguard.txt`` keeps them."""
    recipe: str | None = None
    """The tree's recipe the library was built as (``tensorflow/contrib/android/cmake/CMakeLists.txt``)."""


@dataclass(frozen=True)
class BuildPlan:
    """Everything needed to run one target's build, computed before anything runs."""

    target: str
    flavour: Flavour
    image: ImageSpec | None  # None for --local builds
    mounts: tuple[Mount, ...]
    steps: tuple[Step, ...]
    generated_files: tuple[GeneratedFile, ...]
    artifacts: tuple[Artifact, ...]
    output_dir: Path
    env: Mapping[str, str] = field(default_factory=dict)
    fixups: tuple[AppliedFixup, ...] = ()
    """The toolchain fix-ups folded into the steps (their notes say how)."""
    size_profile: AppliedSizeProfile | None = None
    """The size profile the steps apply (None: a plan no profile applies to, e.g. a host tool)."""
    notes: tuple[Note, ...] = ()
    """What the planner chose and why, when the plan alone does not say (which NDK adapter)."""
    android_ndk: AndroidNdkUse | None = None
    android_sdk: Path | None = None
    """The Android SDK directory the build uses (Bazel's Android WORKSPACE); None: none."""
    link_dirs: tuple[str, ...] = ()
    """Directories of the tree (repository-relative) whose absolute links the build follows (the
    contrib Makefile's ``gen/``, where its scripts link protobuf): checked to lead somewhere
    where the build runs."""
    mobile_types: MobileTypes | None = None
    """The type set of a mobile (Android, iOS) build of a tree, and why it was chosen."""
    reproducibility: Reproducibility | None = None
    """What the plan does for reproducible artifacts (:mod:`tfbuild.pipeline.planning.reproducible`)."""
    android_jni: AndroidJniRecord | None = None
    """The JNI library an Android build links and what it exports (None: not an Android build)."""
    secret_env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Variables the build gets that may hold credentials (the remote cache URL,
    :mod:`tfbuild.pipeline.caches.remote`): given to the container or local build only; plans, logs and
    the manifest name them and never show their values."""
    network: str | None = None
    """The container's network: None for Docker's bridge, ``host`` when a cache or distcc
    worker is on this machine's loopback."""
    protobuf_runtime: ProtobufRuntime = FULL
    """The protobuf runtime TensorFlow's protos were generated for
    (:mod:`tfbuild.pipeline.planning.protobuf_runtime`)."""
    page_size: int | None = None
    """The LOAD alignment every ELF the plan links has (the clang adapter's Android builds),
    which the build checks its artifacts against; None: no alignment asked for."""
    tree_leftovers: tuple[TreeLeftover, ...] = ()
    """What the steps change in the tree that the revert leaves, for the build's notes."""
