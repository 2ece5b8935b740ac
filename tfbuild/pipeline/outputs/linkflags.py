"""Ready-to-use link snippets for an app that links the libraries a build produced.

Getting the link right is where selective builds most often fail on device: the TensorFlow
archive must be linked whole (``-force_load`` on Apple, ``--whole-archive`` elsewhere) because
kernels and ops register themselves from static initializers nothing else refers to, and the
protobuf/nsync archives, system libraries and (Android) C++ runtime must match the build. Each
target profile's ``[link]`` table says what to link; the templates under
``templates/linkflags/`` say how, for the build systems that fit the target's platform (Xcode
``.xcconfig``, CMake, ndk-build, Gradle, plain Make). Paths come from the artifacts directory
and, when it has one, its ``manifest.json`` (source tree, the app's own op libraries, and the
size profile's link flags: the archive's objects were compiled one section per function for
the app's own link to collect, fold and strip), and the C++ runtime an Android build's archives
were compiled against (the manifest's ``android_ndk``).

A shared library the app links (JNI, a plugin) can also export only what its users call
(:mod:`tfbuild.pipeline.outputs.exports`): the export file is written beside the snippets, which add the
flag that uses it to shared-library links only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild import __version__
from tfbuild.errors import ConfigError, InputFileError
from tfbuild.fileio import atomic_write_text
from tfbuild.pipeline.outputs.exports import ExportFile, ExportList, render_export_file
from tfbuild.pipeline.outputs.manifest import MANIFEST_NAME, Manifest
from tfbuild.pipeline.planning.protobuf_runtime import FULL, LITE, LITE_MACRO, link_for, require_generated
from tfbuild.templating import render
from tfbuild.toolchain.targets import Linker, Snippet, TargetProfile
from tfbuild.tree.facts import MAKEFILE_DIR

SNIPPET_FILES: dict[Snippet, tuple[str, str]] = {
    "xcconfig": ("xcconfig.j2", "tensorflow.xcconfig"),
    "cmake": ("cmake.j2", "tensorflow.cmake"),
    "ndk-build": ("ndk-build.j2", "tensorflow-ndk.mk"),
    "gradle": ("gradle.j2", "tensorflow.gradle"),
    "makefile": ("makefile.j2", "tensorflow.mk"),
}

HEADER_DIRS = (
    ".",
    f"{MAKEFILE_DIR}/gen/proto",
    f"{MAKEFILE_DIR}/downloads",
    f"{MAKEFILE_DIR}/downloads/eigen",
    f"{MAKEFILE_DIR}/downloads/protobuf/src",
    f"{MAKEFILE_DIR}/downloads/nsync/public",
    f"{MAKEFILE_DIR}/downloads/absl",
)
"""Where the C++ API's headers are in a tree built with the contrib Makefile, relative to the
tree (as TensorFlow's iOS examples set HEADER_SEARCH_PATHS)."""

UNKNOWN_ROOT = "/path/to/tensorflow"

# Characters each syntax cannot carry inside its quoted (or, for make, unquoted) paths.
_UNSAFE: dict[Snippet, re.Pattern[str]] = {
    "xcconfig": re.compile(r'["\n$]'),
    "cmake": re.compile(r'["\n$;\\]'),
    "ndk-build": re.compile(r"[\s$#\\]"),
    "gradle": re.compile(r'["\n$\\]'),
    "makefile": re.compile(r"[\s$#\\]"),
}
_UNSAFE_FLAG = re.compile(r"[\s\"'$#;\\]")  # a link flag goes unquoted into every syntax


@dataclass(frozen=True)
class LinkSnippet:
    kind: Snippet
    file_name: str
    text: str


@dataclass(frozen=True)
class SharedLibraryExports:
    """The export file a shared library links with, and where it is written (beside the snippets)."""

    file: ExportFile
    path: Path

    @property
    def link_flag(self) -> str:
        return self.file.link_flag(self.path)


@dataclass(frozen=True)
class LinkInputs:
    """What the snippets refer to: the libraries (by file name) in ``lib_dir``, the tree whose
    headers an app compiles against, which libraries are there, the link flags of the size
    profile the build used, and the export file of a shared library, if one was asked for."""

    lib_dir: Path
    tensorflow_root: str
    whole_archive: tuple[str, ...]
    libs: tuple[str, ...]
    missing: tuple[str, ...]  # libraries the profile names that lib_dir does not have (yet)
    ldflags: tuple[str, ...] = ()
    """The size profile's link flags as the build recorded them (manifest ``size_profile.ldflags``)."""
    page_size_flags: tuple[str, ...] = ()
    """What the target's links need for its page size (``-Wl,-z,max-page-size=16384`` on 64-bit
    Android), whatever the size profile: the snippets' link flags hold both."""
    size_profile: str | None = None
    exports: SharedLibraryExports | None = None
    defines: tuple[str, ...] = ()
    """Macros the app's sources that include TensorFlow's headers must define: the lite protobuf
    runtime's (``TENSORFLOW_LITE_PROTOS``), when the build's protos were generated for it."""
    stl: str | None = None
    """The C++ runtime the app links (Android): the one the build recorded compiling against
    (manifest ``android_ndk.stl``: libc++ with the clang adapter, gnustl with the Makefile's
    GCC section), else the profile's ``[link] stl``."""

    @property
    def shared_ldflags(self) -> tuple[str, ...]:
        """What a shared library's link adds: the flag that uses the export file."""
        return (self.exports.link_flag,) if self.exports is not None else ()


def app_linker(profile: TargetProfile) -> Linker:
    """The linker an app's link uses on ``profile``'s platform, as its flavours name it: the
    Makefile flavour's (whose archives apps link), else Bazel's, else the op library's."""
    for flavour in (profile.makefile, profile.bazel, profile.ops_library):
        if flavour is not None:
            return flavour.linker
    raise AssertionError(f"{profile.name} has no flavour")  # a profile without one does not load


def link_inputs(
    profile: TargetProfile,
    artifacts_dir: Path,
    *,
    source: Path | None = None,
    exports: ExportList | None = None,
    out_dir: Path | None = None,
) -> LinkInputs:
    """Gather the libraries for ``profile`` from ``artifacts_dir`` and its manifest, if any.
    The tree's generated protos must still be for the build's protobuf runtime (:class:`SourceTreeError`).

    An app's own op libraries listed in the manifest are linked too: static ones whole (their
    kernels register the same way), shared ones plainly; an Android build's JNI library is not
    one (it holds TensorFlow itself). ``exports`` is rendered for the
    profile's :func:`app_linker`, to be written to ``out_dir`` (default: ``artifacts_dir``).
    """
    artifacts_dir = Path(artifacts_dir).resolve()
    manifest = Manifest.read(artifacts_dir) if (artifacts_dir / MANIFEST_NAME).is_file() else None
    if manifest is not None and manifest.target != profile.name:
        raise InputFileError(
            f"{artifacts_dir / MANIFEST_NAME}: these artifacts were built for {manifest.target}, not {profile.name}",
            hint=f"pass --target {manifest.target} or the artifacts directory of a {profile.name} build",
        )
    runtime = manifest.protobuf_runtime if manifest is not None else FULL
    link = link_for(profile.link, runtime)
    whole = list(link.whole_archive)
    libs = list(link.libs)
    known = set(whole) | set(libs)
    if manifest is not None and manifest.android_jni is not None:
        known.add(manifest.android_jni.library)  # TensorFlow itself, for Java: an app links the archives instead
    for artifact in manifest.artifacts if manifest is not None else ():
        if artifact.name not in known and artifact.kind in ("static-lib", "shared-lib"):
            (whole if artifact.kind == "static-lib" else libs).insert(0, artifact.name)
            known.add(artifact.name)
    root = source or (manifest.tensorflow.source if manifest is not None else None)
    if root and manifest is not None:
        require_generated(Path(root), runtime)  # what the app compiles against is this build's protos
    missing = tuple(name for name in (*whole, *libs) if not (artifacts_dir / name).is_file())
    profile_record = manifest.size_profile if manifest is not None else None
    size_profile, ldflags = (profile_record.name, profile_record.ldflags) if profile_record else (None, ())
    clang = profile.makefile.ndk_clang if profile.makefile is not None else None
    ndk = manifest.android_ndk if manifest is not None else None
    placed = None
    if exports is not None:
        export_file = render_export_file(exports, app_linker(profile))
        placed = SharedLibraryExports(export_file, Path(out_dir or artifacts_dir).resolve() / export_file.file_name)
    return LinkInputs(
        lib_dir=artifacts_dir,
        tensorflow_root=str(Path(root).resolve()) if root else UNKNOWN_ROOT,
        whole_archive=tuple(whole),
        libs=tuple(libs),
        missing=missing,
        ldflags=ldflags,
        # The app's own library is 64-bit Android code too: Play checks its pages as it checks ours.
        page_size_flags=clang.page_size_flags if clang is not None else (),
        size_profile=size_profile,
        exports=placed,
        defines=(LITE_MACRO,) if runtime == LITE else (),
        stl=ndk.stl if ndk is not None else profile.link.stl,
    )


def render_link_snippets(profile: TargetProfile, inputs: LinkInputs) -> tuple[LinkSnippet, ...]:
    """Every snippet that fits ``profile``'s platform, rendered from its template."""
    values: dict[str, object] = {
        "tfbuild_version": __version__,
        "target": profile.name,
        "description": profile.description,
        "abi": profile.arch,
        "lib_dir": str(inputs.lib_dir),
        "tensorflow_root": inputs.tensorflow_root,
        "include_dirs": HEADER_DIRS,
        "defines": inputs.defines,
        "whole_archive": inputs.whole_archive,
        "libs": inputs.libs,
        "system_libs": profile.link.system_libs,
        "frameworks": profile.link.frameworks,
        "stl": inputs.stl,
        "ldflags": (*inputs.ldflags, *inputs.page_size_flags),
        "profile_ldflags": inputs.ldflags,
        "page_size_flags": inputs.page_size_flags,
        "size_profile": inputs.size_profile,
        "shared_ldflags": inputs.shared_ldflags,
        "export_file": str(inputs.exports.path) if inputs.exports is not None else None,
        "whole_archive_modules": tuple(_module_name(lib) for lib in inputs.whole_archive),
        "lib_modules": tuple(_module_name(lib) for lib in inputs.libs),
        "prebuilts": tuple(
            {"module": _module_name(lib), "file": lib}
            for lib in (*inputs.whole_archive, *inputs.libs)
            if lib.endswith(".a")
        ),
    }
    for flag in inputs.ldflags:
        if not flag or _UNSAFE_FLAG.search(flag):
            raise InputFileError(
                f"{inputs.lib_dir / MANIFEST_NAME}: the link flag {flag!r} cannot be written into a snippet",
                hint="rebuild: tfbuild records flags without spaces, quotes, '$', '#', ';' or backslashes",
            )
    written = [("library directory", str(inputs.lib_dir)), ("TensorFlow tree", inputs.tensorflow_root)]
    if inputs.exports is not None:
        written.append(("export file", str(inputs.exports.path)))
    snippets = []
    for kind in profile.link.snippets:
        template, file_name = SNIPPET_FILES[kind]
        for label, path in written:
            if _UNSAFE[kind].search(path):
                raise ConfigError(
                    f"{path}: this {label} path cannot be written into a {file_name} snippet",
                    hint="use a path without spaces, quotes, '$', '#', ';' or backslashes",
                )
        snippets.append(LinkSnippet(kind=kind, file_name=file_name, text=render(f"linkflags/{template}", **values)))
    return tuple(snippets)


def write_link_snippets(snippets: tuple[LinkSnippet, ...], out_dir: Path) -> tuple[Path, ...]:
    return tuple(atomic_write_text(Path(out_dir) / snippet.file_name, snippet.text) for snippet in snippets)


def write_export_file(inputs: LinkInputs) -> Path | None:
    """Write the export file the snippets name, if one was asked for."""
    if inputs.exports is None:
        return None
    return atomic_write_text(inputs.exports.path, inputs.exports.file.text)


def _module_name(library: str) -> str:
    """ndk-build module name of an archive: ``libtensorflow-core.a`` -> ``tensorflow-core``."""
    stem = library.rsplit(".", 1)[0]
    return stem.removeprefix("lib") or stem


