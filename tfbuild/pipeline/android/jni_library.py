"""The JNI library of an Android build: ``lib<name>.so``, what an app's Java code loads.

It is linked by two steps at the end of a Makefile build with the NDK's clang (the clang
adapter, :mod:`tfbuild.pipeline.android.ndk_clang`), from what that build made:

- the native side of the AAR's Java class (``templates/android/jni_inference.cc.j2``: create a
  Session from a GraphDef, run it, close it), compiled with the build's own ``CXXFLAGS``
  (target, sysroot, libc++, the ABI's flags, ``OPTFLAGS``) against the tree's headers;
- linked ``-shared`` with ``libtensorflow-core.a`` inside ``--whole-archive``, because nothing
  calls a kernel by name: TensorFlow finds kernels through the registrars of their static
  initializers, which only a whole archive keeps. protobuf and nsync follow as plain archives.
- ``--gc-sections`` with a version script exporting only ``JNI_OnLoad`` and the ``Java_*``
  methods (:data:`~tfbuild.pipeline.exports.JNI`): every other symbol is local, so the linker can
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

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild import __version__
from tfbuild.pipeline.android.names import JAVA_CLASS, jni_prefix
from tfbuild.pipeline.android.ndk_clang import ClangToolchain, static_app
from tfbuild.pipeline.exports import JNI, render_export_file
from tfbuild.pipeline.linkflags import HEADER_DIRS
from tfbuild.pipeline.notes import Note
from tfbuild.pipeline.plan import AndroidJniRecord, AppliedSizeProfile, Artifact, GeneratedFile, Step
from tfbuild.templating import render
from tfbuild.tree.build_files.op_files_list import listed_paths

JNI_DIR = "jni"
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
    source = jni_source(request.java_package, request.library, request.target)
    seen = request.work_dir_seen
    obj, library = seen / "jni_inference.o", seen / file_name
    link_map = f"{file_name}.map"
    compile_argv = (
        app.cxx, *app.cxxflags, *(("-fPIC",) if "-fPIC" not in app.cxxflags else ()),
        *(f"-I{request.tree_src / directory}" for directory in HEADER_DIRS),
        "-c", str(seen / SOURCE), "-o", str(obj),
    )
    notes: list[str] = []
    min_sdk = max(request.toolchain.api_level, request.min_sdk or request.toolchain.api_level)
    packed, note = _relocations(min_sdk)
    notes.append(note)
    duplicates = sorted(path for path, count in Counter(listed_paths(request.op_files_text)).items() if count > 1)
    allow: tuple[str, ...] = ()
    if duplicates:
        allow = ("-Wl,--allow-multiple-definition",)
        notes.append(f"linked with --allow-multiple-definition: tf_op_files.txt lists "
                     f"{', '.join(duplicates)} twice, so its objects are twice in libtensorflow-core.a")
    link_argv = (
        app.cxx, *_target_flags(app.cxxflags), "-shared", "-fPIC", "-o", str(library), str(obj),
        f"-Wl,-soname,{file_name}", f"-Wl,-Map={seen / link_map}",
        "-Wl,--whole-archive", *map(str, request.whole_archive), "-Wl,--no-whole-archive",
        *map(str, request.archives),
        "-static-libstdc++", *(f"-Wl,--exclude-libs,{archive}" for archive in STATIC_RUNTIME),
        exports.link_flag(seen / exports.file_name),
        "-Wl,--gc-sections", "-Wl,--no-undefined", "-Wl,--as-needed", *allow, *packed,
        *request.toolchain.build.page_size_flags,
        *(flag for flag in request.size.ldflags if flag not in _DROPPED_LINK_FLAGS and flag != "-Wl,--gc-sections"),
        *(f"-l{name}" for name in BIONIC_LIBS),
    )
    steps = (
        Step(f"compile the JNI library's native methods ({request.target})", compile_argv, seen),
        Step(f"link {file_name} ({request.target})", link_argv, seen, notes=tuple(f"JNI library {n}" for n in notes)),
    )
    generated = (
        GeneratedFile(request.work_dir / SOURCE, source),
        GeneratedFile(request.work_dir / exports.file_name, exports.text),
    )
    record = AndroidJniRecord(
        library=file_name, java_package=request.java_package, java_class=JAVA_CLASS,
        exports=JNI.patterns(), abi=request.android_arch, min_sdk=min_sdk,
        link_map=f"{JNI_DIR}/{link_map}",
    )
    what = (f"{file_name} for {request.java_package}.{JAVA_CLASS}, exporting only "
            f"{', '.join((*JNI.optional, *JNI.symbols))}; libc++ static and hidden; NEEDED only bionic's "
            f"(lib{', lib'.join(BIONIC_LIBS)}, libc)")
    plan_notes = (Note("jni-library", what), *(Note("jni-library", note) for note in notes))
    return JniLibraryPlan(steps, generated, Artifact(library, file_name, "shared-lib"), record, plan_notes)


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
