"""The JNI library of an Android build: ``lib<name>.so``, what an app's Java code loads.

It is linked by two steps at the end of a Makefile build with the NDK's clang (the clang
adapter, :mod:`tfbuild.pipeline.outputs.android.ndk_clang`), from what that build made:

- the native side of the AAR's Java class (``templates/android/jni_inference.cc.j2``: create a
  Session from a GraphDef, run it, close it), compiled with the build's own ``CXXFLAGS``
  (target, sysroot, libc++, the ABI's flags, ``OPTFLAGS``) against the tree's headers;
- linked ``-shared`` with ``libtensorflow-core.a`` inside ``--whole-archive``, because nothing
  calls a kernel by name: TensorFlow finds kernels through the registrars of their static
  initializers, which only a whole archive keeps. protobuf and nsync follow as plain archives.
- ``--gc-sections`` with a version script exporting only ``JNI_OnLoad`` and the ``Java_*``
  methods (:data:`~tfbuild.pipeline.outputs.exports.JNI`): every other symbol is local, so the linker can
  drop what neither the exports nor the registrars reach. The registrars themselves are never
  hidden or dropped: ``.init_array`` is a GC root.
- libc++ linked statically (``-static-libstdc++``) with its symbols kept out of the dynamic
  table (``--exclude-libs`` for libc++_static, libc++abi and libunwind): an app may load
  several such libraries, each with its own C++ runtime, and none must leak it.
- a linker map beside it (``-Map``): which object every byte of the library came from, which
  the size report reads because a size profile strips the library itself at link time;
- ``--no-undefined``, so a missing symbol fails here and not in ``System.loadLibrary`` on a
  device, and ``--as-needed`` with bionic's libraries only (``libc``, ``libm``, ``libdl``,
  ``liblog``): the library's ``NEEDED`` entries are those the app's process already has.

A tree whose ``tf_op_files.txt`` lists a file twice (TF 1.12 lists
``segment_reduction_ops.cc`` twice) has that object twice in the archive; the whole-archive link
then sees its symbols twice, and the link takes ``--allow-multiple-definition`` with a note
naming the files. The step's commands are argument vectors (no shell): the names in them come
from options checked by :mod:`.names`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tfbuild import __version__
from tfbuild.errors import ConfigError, ToolchainError
from tfbuild.pipeline.outputs.android.names import JAVA_CLASS, TENSORFLOW_JNI_LIBRARY, JavaApi, jni_prefix
from tfbuild.pipeline.outputs.android.ndk_clang import ClangToolchain, static_app
from tfbuild.pipeline.outputs.exports import JNI, ExportList, render_export_file
from tfbuild.pipeline.outputs.linkflags import HEADER_DIRS
from tfbuild.pipeline.planning.notes import Note
from tfbuild.pipeline.planning.opt_level import one_optimisation_level
from tfbuild.pipeline.planning.plan import AndroidJniRecord, AppliedSizeProfile, Artifact, GeneratedFile, Step
from tfbuild.pipeline.planning.reproducible import FILE_PREFIX_MAP, prefix_maps
from tfbuild.templating import render
from tfbuild.toolchain.targets import Platform
from tfbuild.tree.build_files.op_files_list import listed_paths
from tfbuild.tree.facts import MAKEFILE_DIR
from tfbuild.tree.java_api import LITE_MESSAGE_NOTE, TreeJavaApi, find_java_api, lite_adapted, read_java_api

JNI_DIR = "jni"
JNI_HEADER_DIRS = (*HEADER_DIRS, f"{MAKEFILE_DIR}/gen/proto_text")
"""What the JNI sources compile against: an app's header directories, and the Makefile's
``pb_text`` headers, which TensorFlow's own C API sources include (``device.h``) and an app's
code does not."""
JAVA_DIR = "java"
"""Where a build keeps the tree's Java API sources beside its library, for ``tfbuild aar``."""
JDK_INCLUDE_DIR = "jdk-include"
SOURCE = "jni_inference.cc"
BIONIC_LIBS = ("log", "dl", "m")
"""Bionic's libraries besides libc (which the driver adds): all the JNI library may need."""
STATIC_RUNTIME = ("libc++_static.a", "libc++abi.a", "libunwind.a")
"""The C++ runtime's archives the NDK's clang links with ``-static-libstdc++``: linked in,
their symbols excluded from the dynamic table."""
_DROPPED_LINK_FLAGS = frozenset({"-static"})
PACKED_RELOCATIONS_API = 23
"""Android's loader reads packed relocations (``DT_ANDROID_RELA``, lld's
``--pack-dyn-relocs=android``) from API 23. Position-independent C++ has one relative relocation
per pointer in its vtables and tables, 24 bytes each on arm64 unpacked: 11% of MobileNetV2's JNI
library from the r1.9 tree at the ``small`` profile (590,472 of 5,362,728 bytes), 86,252 bytes
packed."""
PACKED_RELOCATIONS = "-Wl,--pack-dyn-relocs=android"


@dataclass(frozen=True)
class JniLibraryRequest:
    """Everything the JNI library's steps are made from. Paths named ``*_dir`` on the host are
    where generated files are written; the ``PurePosixPath`` ones are how the build sees them."""

    toolchain: ClangToolchain
    makefile_text: str
    android_arch: str
    target: str
    references: Mapping[str, str]
    """Makefile variables left as ``$(NAME)`` in the adapter's flags, and their values."""
    java_package: str
    library: str
    work_dir: Path
    work_dir_seen: PurePosixPath
    tree_src: PurePosixPath
    whole_archive: tuple[PurePosixPath, ...]
    archives: tuple[PurePosixPath, ...]
    size: AppliedSizeProfile
    library_kinds: Callable[[str], frozenset[str]]
    op_files_text: str = ""
    min_sdk: int | None = None
    """The lowest API level the app supports (``--ndk-api-level``; None: the toolchain's, 21). At
    :data:`PACKED_RELOCATIONS_API` and above the link packs the library's relocations."""
    ndk_api_levels: tuple[int, ...] = ()
    """The API levels whose bionic stubs the NDK has: the library links against ``min_sdk``'s
    when it is among them, else against the toolchain's."""
    tree_root: Path | None = None
    """The tree on this machine (its Java files are read from there)."""
    tree_api: TreeJavaApi | None = None
    """The tree's own Java API (``--java-api tensorflow``): its recipe's sources are compiled
    instead of tfbuild's generated native methods."""
    lite_protobuf: bool = False
    """The build links protobuf's lite runtime: the tree's sources that take the full ``Message``
    where the lite one serves compile from an adapted copy."""


@dataclass(frozen=True)
class JniLibraryPlan:
    steps: tuple[Step, ...]
    generated_files: tuple[GeneratedFile, ...]
    artifact: Artifact
    record: AndroidJniRecord
    notes: tuple[Note, ...]


def plan_jni_library(request: JniLibraryRequest) -> JniLibraryPlan:
    """The compile and link steps of ``lib<library>.so``, the files they read, and the artifact."""
    file_name = f"lib{request.library}.so"
    app = static_app(
        request.toolchain, request.makefile_text, request.android_arch, references=request.references,
        system_libs=(), library_kinds=request.library_kinds, log_stub=None,
    )
    exports = render_export_file(JNI, "lld", stem=request.library)
    # tfbuild's JNI export list also for the tree's API: it exports what the tree's version_script.lds
    # does (Java_*, JNI_OnLoad, JNI_OnUnload), but names the two hooks as patterns, since no source
    # of TensorFlow's API defines them and lld 16 and later refuse a version script naming a symbol
    # the library lacks.
    seen = request.work_dir_seen
    library = seen / file_name
    link_map = f"{file_name}.map"
    cxxflags = one_optimisation_level((*app.cxxflags, *(("-fPIC",) if "-fPIC" not in app.cxxflags else ())))
    copies: dict[str, str] = {}
    notes: list[str] = []
    if request.tree_api is not None and request.tree_root is not None:
        copies, copy_notes = adapted_copies(request.tree_api, request.tree_root, android=True,
                                            lite=request.lite_protobuf)
        notes += copy_notes
    sources = _sources(request.tree_api, request.tree_src, seen, request.java_package, request.library,
                       request.target, copies=copies)
    compiles = _compile_steps(app.cxx, cxxflags, request.tree_src, sources, request.target)
    min_sdk = max(request.toolchain.api_level, request.min_sdk or request.toolchain.api_level)
    packed, note = _relocations(min_sdk)
    notes.append(note)
    link_api = _link_api_level(request, min_sdk, notes)
    allow, duplicate_note = _duplicate_objects(request.op_files_text)
    notes += [duplicate_note] if duplicate_note else []
    link_argv = (
        app.cxx, *_link_target_flags(app.cxxflags, link_api), "-shared", "-fPIC", "-o", str(library), *sources.objects,
        f"-Wl,-soname,{file_name}", f"-Wl,-Map={seen / link_map}",
        "-Wl,--whole-archive", *map(str, request.whole_archive), "-Wl,--no-whole-archive",
        *map(str, request.archives),
        "-static-libstdc++", *(f"-Wl,--exclude-libs,{archive}" for archive in STATIC_RUNTIME),
        exports.link_flag(seen / exports.file_name),  # the tree's version_script.lds exports the same
        "-Wl,--gc-sections", "-Wl,--no-undefined", "-Wl,--as-needed", *allow, *packed,
        *request.toolchain.build.page_size_flags,
        *(flag for flag in request.size.ldflags if flag not in _DROPPED_LINK_FLAGS and flag != "-Wl,--gc-sections"),
        *(f"-l{name}" for name in BIONIC_LIBS),
    )
    steps = (
        *compiles,
        Step(f"link {file_name} ({request.target})", link_argv, seen, notes=tuple(f"JNI library {n}" for n in notes)),
    )
    generated = (
        *sources.generated(request.work_dir),
        *(GeneratedFile(request.work_dir / _copy_name(source), text) for source, text in copies.items()),
        GeneratedFile(request.work_dir / exports.file_name, exports.text),
        *java_files(request.tree_api, request.tree_root, request.work_dir.parent),
    )
    record = _record(request.tree_api, file_name, request.java_package, request.android_arch, min_sdk,
                     f"{JNI_DIR}/{link_map}")
    what = (f"{file_name} for {record.java_package}.{record.java_class}{sources.what}, exporting only "
            f"{', '.join((*JNI.optional, *JNI.symbols))}; libc++ static and hidden; NEEDED only bionic's "
            f"(lib{', lib'.join(BIONIC_LIBS)}, libc)")
    plan_notes = (Note("jni-library", what), *(Note("jni-library", note) for note in notes))
    return JniLibraryPlan(steps, generated, Artifact(library, file_name, "shared-lib"), record, plan_notes)


def _record(api: TreeJavaApi | None, file_name: str, java_package: str, abi: str, min_sdk: int,
            link_map: str | None, exports: ExportList = JNI) -> AndroidJniRecord:
    if api is None:
        return AndroidJniRecord(library=file_name, java_package=java_package, java_class=JAVA_CLASS,
                                exports=JNI.patterns(), abi=abi, min_sdk=min_sdk, link_map=link_map)
    package, _, java_class = api.inference_class.rpartition(".")
    return AndroidJniRecord(
        library=file_name, java_package=package, java_class=java_class, exports=exports.patterns(), abi=abi,
        min_sdk=min_sdk, link_map=link_map, java_api="tensorflow",
        java_sources=tuple(f"{JAVA_DIR}/{source.path}" for source in api.java_sources),
        jni_classes=api.jni_classes, recipe=api.recipe,
    )


def choose_java_api(mode: JavaApi, platform: Platform, root: Path, *,
                    library: str) -> tuple[TreeJavaApi | None, bool, Note | None]:
    """What the build's JNI library implements: the tree's API (its sources), tfbuild's class
    (None, True), or nothing (None, False); and the plan's note on why.

    ``auto`` takes the tree's API for Android when the tree has TensorFlow's recipe, else
    tfbuild's class, and builds nothing for other platforms. ``tensorflow`` on a tree without the
    recipe is a :class:`~tfbuild.errors.SourceTreeError`; a JNI library for a platform with no
    Java VM tfbuild can build for (iOS), or tfbuild's class off Android, a :class:`ConfigError`."""
    android = platform is Platform.ANDROID
    if mode == "none" or (mode == "auto" and not android):
        return None, False, None
    if mode == "tfbuild" or (mode == "auto" and find_java_api(root) is None):
        if not android:
            raise ConfigError(f"--java-api tfbuild is for Android targets, not {platform}",
                              hint="give --java-api tensorflow for the tree's own API on a Java VM")
        why = ("the tree has no TensorFlow Android Java API recipe, so the library implements tfbuild's own class"
               if mode == "auto" else "the library implements tfbuild's own class (--java-api tfbuild)")
        return None, True, Note("java-api", why)
    if platform not in (Platform.ANDROID, Platform.LINUX):
        raise ConfigError(f"a JNI library is built for Android and Linux targets, not {platform}",
                          hint="leave --java-api unset (or none) for this target")
    api = read_java_api(root)
    if library != api.library:
        raise ConfigError(
            f"--jni-library: {library} is not lib{api.library}.so, which "
            f"{api.inference_class} loads",
            hint=f"leave the JNI library name unset with --java-api tensorflow (it is {TENSORFLOW_JNI_LIBRARY})",
        )
    kept = (f"; {', '.join(api.in_library)} left out, since the contrib Makefile compiles them into "
            "libtensorflow-core.a itself" if api.in_library else "")
    return api, True, Note("java-api", (
        f"the library implements the tree's own Java API ({api.inference_class} over org.tensorflow), built "
        f"from {len(api.sources_for(android=android))} sources as {api.recipe} builds it{kept}; "
        f"{len(api.java_sources)} Java files go into the AAR's classes.jar"))


@dataclass(frozen=True)
class _Sources:
    """The JNI library's C++ sources as the build sees them, their objects, and the generated ones."""

    compiled: tuple[tuple[str, str], ...]
    """(source, object) as the build sees them."""
    defines: tuple[str, ...]
    generated_source: str | None
    what: str
    copied_from: Mapping[str, str] = field(default_factory=dict)
    """An adapted copy (as the build sees it) -> the tree source it stands for."""

    @property
    def objects(self) -> tuple[str, ...]:
        return tuple(obj for _, obj in self.compiled)

    def generated(self, work_dir: Path) -> tuple[GeneratedFile, ...]:
        if self.generated_source is None:
            return ()
        return (GeneratedFile(work_dir / SOURCE, self.generated_source),)


def _sources(api: TreeJavaApi | None, tree_src: PurePosixPath, seen: PurePosixPath, java_package: str,
             library: str, target: str, *, android: bool = True,
             copies: Mapping[str, str] | None = None) -> _Sources:
    """What the library compiles: tfbuild's generated native methods, or the tree's recipe
    sources for ``android`` or not, those in ``copies`` from their adapted copy in ``seen``."""
    if api is None:
        return _Sources(((str(seen / SOURCE), str(seen / "jni_inference.o")),), (),
                        jni_source(java_package, library, target), "")
    copies = copies or {}
    compiled = tuple(
        (str(seen / _copy_name(source)) if source in copies else str(tree_src / source),
         str(seen / (_copy_name(source).removesuffix(".cc") + ".o")))
        for source in api.sources_for(android=android)
    )
    copied_from = {str(seen / _copy_name(source)): source for source in api.sources_for(android=android)
                   if source in copies}
    return _Sources(compiled, api.defines, None, f" (the tree's, from {api.recipe})", copied_from)


def _copy_name(source: str) -> str:
    """The file name of a tree source's adapted copy in the library's directory (and, without
    ``.cc``, of its object)."""
    return source.replace("/", "__")


def adapted_copies(api: TreeJavaApi, tree_root: Path, *, android: bool, lite: bool
                   ) -> tuple[dict[str, str], tuple[str, ...]]:
    """The recipe sources that compile from an adapted copy, with their text, and a note for
    each: off Android, ``__ANDROID__`` guards that hold for ``IS_SLIM_BUILD`` too
    (:func:`_slim_guards`); for the lite protobuf runtime, ``MessageToBuffer`` over
    ``MessageLite`` (:func:`~tfbuild.tree.java_api.lite_adapted`). The tree is never edited."""
    copies: dict[str, str] = {}
    notes: list[str] = []
    for source in api.sources_for(android=android):
        original = (tree_root / source).read_text(encoding="utf-8", errors="replace")
        text = original
        if not android and _ANDROID_GUARD.search(text):
            text = _slim_guards(text, includes=api.host_includes, functions=api.host_functions)
            kept = (f" (except {', '.join(api.host_functions)}: a library for a desktop Java VM keeps its "
                    "non-Android code, and compiles what it needs)" if api.host_functions else "")
            notes.append(f"{source} leaves out what the contrib Makefile's library lacks (the cc/ gradients, while "
                         "loops) only under __ANDROID__: compiled from a copy whose guards hold for IS_SLIM_BUILD "
                         f"too, as later TensorFlow's own guards do{kept}")
        if lite and lite_adapted(text) != text:
            text = lite_adapted(text)
            notes.append(f"{source} {LITE_MESSAGE_NOTE}")
        if text != original:
            copies[source] = text
    return copies, tuple(notes)


def _compile_steps(cxx: str, cxxflags: tuple[str, ...], tree_src: PurePosixPath, sources: _Sources,
                   target: str) -> tuple[Step, ...]:
    """One compile per source, side by side; the tree's sources see the recipe's defines and
    the headers an app compiles against."""
    steps = []
    maps_paths = any(flag.startswith(FILE_PREFIX_MAP) for flag in cxxflags)
    for source, obj in sources.compiled:
        # an adapted copy lives in the output directory: its __FILE__ names the tree's source, as
        # the tree's root maps to "." (reproducible.py), or the output's path would be in the object
        as_tree = (prefix_maps({PurePosixPath(source): f"./{sources.copied_from[source]}"})
                   if maps_paths and source in sources.copied_from else ())
        argv = (cxx, *cxxflags, *as_tree, *sources.defines,
                *(f"-I{tree_src / directory}" for directory in JNI_HEADER_DIRS), "-c", source, "-o", obj)
        # an adapted copy's name is the tree path with "__" for "/": its last part is the file's name
        what = "native methods" if sources.generated_source is not None else PurePosixPath(source).name.split("__")[-1]
        steps.append(Step(f"compile the JNI library's {what} ({target})", argv, PurePosixPath(obj).parent,
                          parallel=len(sources.compiled) > 1))
    return tuple(steps)


def java_files(api: TreeJavaApi | None, tree_root: Path | None, out_dir: Path) -> tuple[GeneratedFile, ...]:
    """The tree's Java API sources, copied beside the build's library (``java/<package path>``), so
    ``tfbuild aar`` compiles the classes of the very tree the library was built from."""
    if api is None or tree_root is None:
        return ()
    return tuple(
        GeneratedFile(out_dir / JAVA_DIR / source.path,
                      (tree_root / source.tree_path).read_text(encoding="utf-8", errors="replace"))
        for source in api.java_sources
    )


def _duplicate_objects(op_files_text: str) -> tuple[tuple[str, ...], str | None]:
    """``--allow-multiple-definition`` and the note saying why, when ``tf_op_files.txt`` lists a
    file twice (its objects are then twice in the whole archive); nothing otherwise."""
    duplicates = sorted(path for path, count in Counter(listed_paths(op_files_text)).items() if count > 1)
    if not duplicates:
        return (), None
    return ("-Wl,--allow-multiple-definition",), (
        f"linked with --allow-multiple-definition: tf_op_files.txt lists {', '.join(duplicates)} twice, so its "
        "objects are twice in libtensorflow-core.a")


def _link_api_level(request: JniLibraryRequest, min_sdk: int, notes: list[str]) -> int:
    """The API level whose bionic stubs the library links against: ``min_sdk`` when the NDK has
    them, else the objects' own (a note in ``notes`` says so)."""
    if min_sdk in request.ndk_api_levels or min_sdk == request.toolchain.api_level:
        return min_sdk
    notes.append(f"linked against API {request.toolchain.api_level}'s bionic stubs, the objects' level: the NDK has "
                 f"none for API {min_sdk}")
    return request.toolchain.api_level


def _relocations(min_sdk: int) -> tuple[tuple[str, ...], str]:
    """The link flags that pack the library's relocations where the app's minSdk reads them,
    and the note that says so (or what packing would save)."""
    if min_sdk >= PACKED_RELOCATIONS_API:
        return (PACKED_RELOCATIONS,), (
            f"relocations packed ({PACKED_RELOCATIONS}), which Android reads from API {PACKED_RELOCATIONS_API}: "
            f"the library needs API {min_sdk}, as --ndk-api-level says")
    return (), (f"relocations not packed, since API {min_sdk} cannot read packed ones; an app whose minSdk is "
                f"{PACKED_RELOCATIONS_API} or more saves about a tenth of the library with --ndk-api-level "
                f"{PACKED_RELOCATIONS_API}")


def jni_source(java_package: str, library: str, target: str) -> str:
    """The native methods of ``<java_package>.TensorFlowInference`` for ``lib<library>.so``."""
    return render(
        "android/jni_inference.cc.j2", tfbuild_version=__version__, java_package=java_package,
        java_class=JAVA_CLASS, library=library, target=target, jni_prefix=jni_prefix(java_package),
    )


_TARGET_WORD = re.compile(r"--target=|--sysroot=|-stdlib=|-march=|-mfloat-abi=|-mfpu=|-mthumb|-marm")


def _target_flags(cxxflags: tuple[str, ...]) -> tuple[str, ...]:
    """The words of the compile flags that a link needs too: target, sysroot, C++ library, ABI."""
    return tuple(word for word in cxxflags if _TARGET_WORD.match(word))


_API_SUFFIX = re.compile(r"(--target=[a-z0-9_]+-linux-androideabi|--target=[a-z0-9_]+-linux-android)\d+\Z")


def _link_target_flags(cxxflags: tuple[str, ...], min_sdk: int) -> tuple[str, ...]:
    """:func:`_target_flags` for the library's link, clang's target at ``min_sdk``: the objects are
    compiled for the Makefile's API level, but the library is linked against the bionic stubs of
    the lowest API level the app supports, as an app's own build does. That is where a function
    bionic has only from a later level resolves (``__cxa_thread_atexit_impl``, from API 23, which
    an NDK's libc++abi may reference strongly)."""
    return tuple(_API_SUFFIX.sub(lambda found: f"{found.group(1)}{min_sdk}", word) for word in _target_flags(cxxflags))


@dataclass(frozen=True)
class HostJniRequest:
    """A JNI library of the tree's Java API for a Linux target's Java VM (``--java-api tensorflow``
    on ``linux-*``): the same sources an Android build compiles, against the JDK's ``jni.h``, so
    TensorFlow's own Java tests and ``TensorFlowInferenceInterface`` run on a desktop JVM."""

    api: TreeJavaApi
    cxx: str
    cxxflags: tuple[str, ...]
    target: str
    arch: str
    work_dir: Path
    work_dir_seen: PurePosixPath
    tree_src: PurePosixPath
    tree_root: Path
    whole_archive: tuple[PurePosixPath, ...]
    archives: tuple[PurePosixPath, ...]
    system_libs: tuple[str, ...]
    op_files_text: str = ""
    protoc: PurePosixPath | None = None
    """The tree's host ``protoc`` (the Makefile's), for the protos the API's needs add
    (:attr:`~tfbuild.tree.java_api.TreeJavaApi.host_protos`)."""


PROTO_DIR = "proto"
"""Where a host JNI library's build generates the protos its needs add, under its directory."""


def host_exports(api: TreeJavaApi) -> ExportList:
    """What a JNI library for a desktop Java VM exports: the JNI methods and what TensorFlow's own
    ``libtensorflow.so`` exports (the layout's ``host_exports``), so that a custom-op library
    linked against it registers in its op registry when ``TF_LoadLibrary`` loads it."""
    if not api.host_exports:
        return JNI
    return ExportList(
        "JNI, and TensorFlow's C and C++ API", (*JNI.symbols, *api.host_exports), JNI.optional,
        why=f"{JNI.why} Custom-op libraries loaded with TensorFlow.loadLibrary (TF_LoadLibrary) link against "
        "TensorFlow's C and C++ API, which this library exports as TensorFlow's own libtensorflow.so does.")


def _proto_steps(request: HostJniRequest) -> tuple[tuple[Step, ...], tuple[tuple[str, str], ...]]:
    """protoc's steps for the API's host protos (run in the tree, as the Makefile runs it), and
    the generated sources with their objects, as the build sees them."""
    protos = request.api.host_protos
    if not protos:
        return (), ()
    if request.protoc is None:
        raise ToolchainError(f"{', '.join(protos)}: no protoc to generate them with",
                             hint="build the tree's host protobuf first (the Makefile flavour does)")
    out = request.work_dir_seen / PROTO_DIR
    steps = tuple(
        Step(f"generate {PurePosixPath(proto).name}'s C++ for the JNI library ({request.target})",
             (str(request.protoc), proto, "--cpp_out", str(out)), request.tree_src)
        for proto in protos
    )
    compiled = tuple(
        (str(out / proto.removesuffix(".proto")) + ".pb.cc",
         str(request.work_dir_seen / _copy_name(proto.removesuffix(".proto") + ".pb.o")))
        for proto in protos
    )
    return steps, compiled


def plan_host_jni_library(request: HostJniRequest, jdk_headers: dict[str, Path] | None = None) -> JniLibraryPlan:
    """The compile and link steps of ``lib<library>.so`` for a Linux JVM. The JDK's ``jni.h`` and
    ``jni_md.h`` are copied into the build's directory, so the compile sees them in a container too."""
    api = request.api
    file_name = f"lib{api.library}.so"
    headers = jdk_headers or find_jdk_headers()
    seen = request.work_dir_seen
    exports = render_export_file(host_exports(api), "bfd", stem=api.library)
    copies, copy_notes = adapted_copies(api, request.tree_root, android=False, lite=False)
    sources = _sources(api, request.tree_src, seen, "", api.library, request.target, android=False, copies=copies)
    proto_steps, proto_sources = _proto_steps(request)
    # the generated protos compile as the Makefile compiles the archive's own (no recipe defines)
    protos = _Sources(proto_sources, (), None, "")
    proto_include = (f"-I{seen / PROTO_DIR}",) if proto_sources else ()
    cxxflags = (*request.cxxflags, "-fPIC", f"-I{seen / JDK_INCLUDE_DIR}", *proto_include)
    allow, duplicate_note = _duplicate_objects(request.op_files_text)
    link_argv = (
        request.cxx, "-shared", "-fPIC", "-o", str(seen / file_name), *protos.objects, *sources.objects,
        f"-Wl,-soname,{file_name}",
        "-Wl,--whole-archive", *map(str, request.whole_archive), "-Wl,--no-whole-archive",
        *map(str, request.archives), exports.link_flag(seen / exports.file_name),
        "-Wl,--no-undefined", *allow, *(f"-l{name}" for name in request.system_libs),
    )
    steps = (
        *proto_steps,
        *_compile_steps(request.cxx, cxxflags, request.tree_src, protos, request.target),
        *_compile_steps(request.cxx, cxxflags, request.tree_src, sources, request.target),
        Step(f"link {file_name} ({request.target}, for a Java VM)", link_argv, seen),
    )
    generated = (
        *((GeneratedFile(request.work_dir / PROTO_DIR / "README", _PROTO_README),) if proto_sources else ()),
        *(GeneratedFile(request.work_dir / JDK_INCLUDE_DIR / name, path.read_text(encoding="utf-8"))
          for name, path in headers.items()),
        GeneratedFile(request.work_dir / exports.file_name, exports.text),
        *(GeneratedFile(request.work_dir / _copy_name(source), text) for source, text in copies.items()),
        *java_files(api, request.tree_root, request.work_dir.parent),
    )
    record = _record(api, file_name, "", request.arch, 0, None, host_exports(api))
    note = Note("jni-library", f"{file_name} for {api.inference_class} on a Java VM ({request.target}), built "
                f"from {len(sources.compiled)} sources as {api.recipe} builds them, against the JDK's jni.h "
                f"({headers['jni.h'].parent})")
    notes = (note, *((Note("jni-library", duplicate_note),) if duplicate_note else ()),
             *(Note("jni-library", text) for text in copy_notes),
             *((Note("jni-library", f"{', '.join(api.host_protos)} generated with the tree's protoc and compiled "
                     f"in: {', '.join(api.off_android)} include(s) it, and tf_proto_files.txt does not list it"),)
               if proto_sources else ()),
             *((Note("jni-library", f"exports TensorFlow's C and C++ API too ({', '.join(api.host_exports)}, as "
                     "TensorFlow's libtensorflow.so does), so custom-op libraries linked against it load with "
                     "TensorFlow.loadLibrary"),) if api.host_exports else ()))
    return JniLibraryPlan(steps, generated, Artifact(seen / file_name, file_name, "shared-lib"), record, notes)


_PROTO_README = ("Generated by tfbuild: the C++ code of the protos the JNI library's sources include that the "
                 "contrib Makefile does not generate, written here by the tree's protoc.\n")

_ANDROID_GUARD = re.compile(
    r"^[ \t]*#[ \t]*(ifdef|ifndef)[ \t]+__ANDROID__\b"
    r"|^[ \t]*#[ \t]*if[ \t]+(!?)[ \t]*defined\(__ANDROID__\)[ \t]*$",
    re.MULTILINE,
)


_SLIM_NOT_ANDROID = "#if !defined(__ANDROID__) && !defined(IS_SLIM_BUILD)"
_FUNCTION_END = re.compile(r"^}", re.MULTILINE)
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|else|elif|endif)\b")


def _slim_guards(text: str, *, includes: tuple[str, ...] = (), functions: tuple[str, ...] = ()) -> str:
    """``text`` with each ``#ifdef __ANDROID__`` (and ``#ifndef``, ``#if [!]defined(__ANDROID__)``)
    holding for ``IS_SLIM_BUILD`` too: a build of the Makefile's slim library off Android. The
    guards inside ``functions`` stay as they are (their non-Android code is compiled), and each
    of ``includes`` under a widened ``#ifndef`` moves to a ``#ifndef __ANDROID__`` of its own
    right after that block."""
    def replace(match: re.Match[str]) -> str:
        if _inside_function(text, match.start(), functions):
            return match.group(0)
        negated = match.group(1) == "ifndef" or match.group(2) == "!"
        return _SLIM_NOT_ANDROID if negated else "#if defined(__ANDROID__) || defined(IS_SLIM_BUILD)"
    widened = _ANDROID_GUARD.sub(replace, text)
    return _kept_includes(widened, includes) if includes else widened


def _inside_function(text: str, position: int, functions: tuple[str, ...]) -> bool:
    """Whether ``position`` is in the body of one of ``functions``: its definition comes after the
    last top-level ``}`` before ``position``."""
    if not functions:
        return False
    start = max((found.end() for found in _FUNCTION_END.finditer(text, 0, position)), default=0)
    return any(re.search(rf"\b{re.escape(name)}\s*\(", text[start:position]) for name in functions)


def _kept_includes(text: str, includes: tuple[str, ...]) -> str:
    """``text`` with each ``#include "<one of includes>"`` that sits in the first branch of a
    widened ``#ifndef`` moved after that block's ``#endif``, guarded by ``__ANDROID__`` alone."""
    wanted = {f'#include "{name}"' for name in includes}
    out: list[str] = []
    stack: list[tuple[bool, list[str]]] = []  # (a widened #ifndef in its first branch, includes kept)
    for line in text.splitlines(keepends=True):
        directive = _CONDITIONAL.match(line)
        kind = directive.group(1) if directive else None
        if kind in ("if", "ifdef", "ifndef"):
            stack.append((line.strip().startswith(_SLIM_NOT_ANDROID), []))
        elif kind in ("else", "elif") and stack:
            stack[-1] = (False, stack[-1][1])
        elif kind == "endif" and stack:
            _, kept = stack.pop()
            out.append(line)
            if kept:
                out += ["#ifndef __ANDROID__\n", *kept, "#endif  // __ANDROID__\n"]
            continue
        elif stack and stack[-1][0] and line.strip() in wanted:
            stack[-1][1].append(line)
            continue
        out.append(line)
    return "".join(out)


def find_jdk_headers() -> dict[str, Path]:
    """This machine's JDK's ``jni.h`` and Linux ``jni_md.h`` by name (``$JAVA_HOME``, else the JDK
    of ``javac`` on PATH); a :class:`ToolchainError` when there is none."""
    homes = [Path(home) for home in (os.environ.get("JAVA_HOME"),) if home]
    javac = shutil.which("javac")
    if javac:
        homes.append(Path(javac).resolve().parents[1])
    for home in homes:
        headers = {"jni.h": home / "include" / "jni.h", "jni_md.h": home / "include" / "linux" / "jni_md.h"}
        if all(path.is_file() for path in headers.values()):
            return headers
    raise ToolchainError("no JDK with jni.h found ($JAVA_HOME, or javac on PATH)",
                         hint="install a JDK (Debian: default-jdk-headless)")
