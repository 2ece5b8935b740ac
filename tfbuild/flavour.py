"""The build flavours, as one enum every layer can name.

A flavour is how a TensorFlow binary gets built: TF 1.x's contrib ``Makefile``, ``Bazel``, or
an ``ops-library`` compiled against an installed TensorFlow. It sits below every subpackage
because the tree reports which flavours it can build, targets say which flavours build them,
options choose one, and the build layer plans it: all of them must spell it the same way.
"""

from __future__ import annotations

from enum import StrEnum


class Flavour(StrEnum):
    MAKEFILE = "makefile"
    BAZEL = "bazel"
    OPS_LIBRARY = "ops-library"

    @property
    def edits_tree(self) -> bool:
        """Whether this flavour builds a TensorFlow source tree and so edits its build files."""
        return self in TREE_FLAVOURS

    @classmethod
    def names(cls) -> str:
        """The flavours as a user types them, for messages: ``makefile, bazel, ops-library``."""
        return ", ".join(flavour.value for flavour in cls)


TREE_FLAVOURS: tuple[Flavour, ...] = (Flavour.MAKEFILE, Flavour.BAZEL)
"""Flavours that build from a TensorFlow checkout (and whose build files ``tfbuild edit`` changes)."""
