"""A build's notes as values: what each is about (its kind) and what it says.

``tfbuild build`` prints them as ``note: <kind in words>: <text>`` below the plan; ``--json``
emits them as objects (``{"kind": "source-edit", "text": "..."}``), so a CI job can pick the
ones it cares about without parsing prefixes. Planners note what they chose (the NDK adapter, the
remote cache), the build what it found and did (source edits, the preflight, the compile cache).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NoteKind = Literal[
    # the build's own
    "model", "kernel-classes", "header", "stock-build", "source-edit", "preflight", "page-alignment",
    "compile-cache", "source-tree", "size-report",
    # the planners'
    "android-ndk", "jni-library", "java-api", "per-file-selection", "protobuf-runtime", "mobile-types",
    "remote-cache", "distcc", "container-network", "protobuf", "version", "offline",
]
"""What a note is about."""

_LABELS: dict[str, str] = {"android-ndk": "Android NDK", "jni-library": "JNI library", "java-api": "Java API"}
"""Kinds whose words are not the kind with its dashes as spaces."""


@dataclass(frozen=True)
class Note:
    """One note: what it is about and what it says. Printed as the kind in words, then the
    text (``source edit: ...``)."""

    kind: NoteKind
    text: str

    @property
    def label(self) -> str:
        return _LABELS.get(self.kind, self.kind.replace("-", " "))

    def __str__(self) -> str:
        return f"{self.label}: {self.text}"
