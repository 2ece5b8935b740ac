"""Per-file selective registration: each kernel and op source sees only its own selection.

With one ``ops_to_register.h`` every kernel file includes the app's whole selection, so a
second app on the same tree changes every object's input: make and ccache rebuild them all
(docs/per-file-selection.md has the measurement). Yet a file's object
depends only on the decisions for the kernel classes and ops that file registers, which the
kernel index and the op-definition index know. So each such file gets a header of its own
holding only those decisions (``gen/tfbuild_selection/<source>.h`` in the contrib Makefile's
directory: a path that is the same for every app and every output directory), and is
compiled with ``-DTFBUILD_SELECTION_HEADER`` naming it, through a makefile of per-object
flags read after TensorFlow's (the Makefile is not edited). The tree's
``tensorflow/core/framework/ops_to_register.h`` becomes a dispatcher that includes that header
and otherwise chooses nothing at compile time (a file the indexes know no registration of); it
names no op, so it is the same for every app. A second app then rebuilds just the files whose
own selection changed, and one more: ``app_selection.cc``.

That one source holds the app's whole op list, because ``SHOULD_REGISTER_OP`` is also asked at
run time, by ``register_kernel::Name``'s inline constructor, of which the linker keeps one copy
for the whole binary: its answer must not depend on the file that copy came from. The
dispatcher answers from the file's list while compiling (``__builtin_is_constant_evaluated``)
and from the app's list at run time, so kernels of ops the app does not use are renamed
``_no_register`` as in the one-header build. The makefile adds the object to the library.

The kernels registered are exactly those of the one-header build as long as the indexes know
every registration of the files they list (the tests compare the built binaries' kernel lists).
Only the Makefile flavour does this: Bazel's disk and remote cache keys hold every header a
compile action declares, and TensorFlow compiles its kernels in one big ``cc_library``, so
per-file headers would still change every kernel's key (README: "A second app on the same
tree").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tfbuild.model.header import HeaderContents
from tfbuild.templating import render
from tfbuild.tree.kernel_index import KernelIndex

SELECTION_DIR = "tfbuild_selection"
"""Where the per-file headers go (under the Makefile's git-ignored ``gen/``): ``<source>.h``."""
SELECTION_MAKEFILE = "tfbuild-selection.mk"
APP_SELECTION_SOURCE = "app_selection.cc"
"""The app's whole op list, beside the headers: the one source that changes with every app."""
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./+-]*\.cc")


@dataclass(frozen=True)
class FileSelection:
    """The decisions one source sees: the selected ops and kernel classes it registers."""

    source: str  # repository-relative path of the .cc file
    ops: tuple[str, ...]
    kernel_classes: tuple[str, ...]

    def header(self, base: str) -> str:
        """The header's path below ``base`` (a directory relative to the tree's root)."""
        return f"{base}/{self.source.removesuffix('.cc')}.h"

    @property
    def object(self) -> str:
        """The object's path below the Makefile's ``$(OBJDIR)``."""
        return _object_of(self.source)


@dataclass(frozen=True)
class PerFileSelection:
    """Every source's selection, the app's op list asked at run time, and the build-wide
    gradient decision they all share."""

    files: tuple[FileSelection, ...]
    ops: tuple[str, ...]
    register_gradients: bool
    op_granularity: bool

    def headers(self, tree_root: Path, base: str) -> dict[Path, str]:
        """Each file's header text by its path on this machine (``base`` below ``tree_root``)."""
        return {
            tree_root / selection.header(base): render(
                "selection/file_ops_to_register.h.j2",
                source=selection.source,
                ops=selection.ops,
                kernel_classes=selection.kernel_classes,
                op_granularity=self.op_granularity,
            )
            for selection in self.files
        }

    def app_source(self) -> str:
        """``app_selection.cc``: the app's ops, for ``register_kernel::Name`` at run time."""
        return render("selection/app_selection.cc.j2", ops=self.ops)

    def dispatcher(self) -> str:
        """The tree's ops_to_register.h: the same for every app with the same gradient decision."""
        return render("selection/dispatch_ops_to_register.h.j2", register_gradients=self.register_gradients)

    def makefile(self, base: str) -> str:
        """``tfbuild-selection.mk``: the per-object flags, which name paths only, relative to the
        tree's root (``-I.`` finds them), so they are the same in every copy of the tree."""
        return render(
            "selection/selection.mk.j2",
            rules=[(s.object, s.header(base)) for s in self.files],
            app_object=_object_of(f"{base}/{APP_SELECTION_SOURCE}"),
        )


def per_file_selection(
    header: HeaderContents,
    index: KernelIndex,
    op_files: Mapping[str, tuple[str, ...]],
    sources: Iterable[str],
) -> PerFileSelection:
    """The selection of each of ``sources`` that registers a kernel (``index``) or an op
    (``op_files``: op -> the files registering it); other sources keep the dispatcher's block.
    A kernel file's ``register_kernel::Name(op)`` asks ``SHOULD_REGISTER_OP`` too, so a file's
    ops are those it defines and those its kernels are for."""
    if header.registers_everything:
        raise ValueError("a header that registers everything has nothing to split per file")
    classes_by_file: dict[str, set[str]] = {}
    ops_by_file: dict[str, set[str]] = {}
    for registration in index.registrations:
        classes_by_file.setdefault(registration.file, set()).add(registration.kernel_class)
        ops_by_file.setdefault(registration.file, set()).add(registration.op)
    for op, defining in op_files.items():
        for file in defining:
            ops_by_file.setdefault(file, set()).add(op)
    wanted = set(sources)
    files = []
    for source in sorted(wanted & set(ops_by_file)):
        if not _PLAIN_PATH.fullmatch(source):
            continue  # a path make or the shell would read differently: keeps the permissive block
        registered = {_squeeze(name) for name in classes_by_file.get(source, ())}
        files.append(FileSelection(
            source=source,
            ops=tuple(sorted(op for op in ops_by_file[source] if op in header.ops)),
            kernel_classes=tuple(name for name in header.kernel_classes if _squeeze(name) in registered),
        ))
    return PerFileSelection(
        files=tuple(files),
        ops=tuple(sorted(header.ops)),
        register_gradients="SymbolicGradient" in header.ops,
        op_granularity=header.op_granularity,
    )


def _object_of(source: str) -> str:
    """Where TensorFlow's Makefile puts a source's object, below ``$(OBJDIR)``."""
    return source.removesuffix(".cc") + ".o"


def _squeeze(name: str) -> str:
    """A kernel class as TensorFlow compares it: without spaces (``isequal`` skips them)."""
    return name.replace(" ", "")

