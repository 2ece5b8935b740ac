"""String constants that name ops: ``Name(kArgOp)`` and ``Name(RangeDatasetOp::kDatasetType)``.

From TF 1.15 on, some kernels register under an op name held in a constant rather than written
as a literal: the function-call ops (``_Arg``, ``_Retval``, ``_DeviceArg``, ``SymbolicGradient``:
``kArgOp`` in ``kernels/function_ops.h``, an alias of ``FunctionLibraryDefinition::kArgOp`` in
``framework/function.h``) and the tf.data kernels (each class's ``kDatasetType``). ``_Arg`` and
``_Retval`` run in every function body (tf.function, While and If branches), so an index that
skips them would call those ops kernel-less.

This module reads such definitions from a file's text, with the class they sit in, so
``Class::kName`` resolves as well as ``kName``. A bare name that two classes define differently
is ambiguous and left out: the registration is then reported as unread, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tfbuild.cpp.macros import strip_comments

# static constexpr const char* const kArgOp = "_Arg";   constexpr char kFoo[] = "Foo";
# static const char* const kArgOp = FunctionLibraryDefinition::kArgOp;
_DEFINITION = re.compile(
    r"\b(?:constexpr|const)\s+(?:const\s+)?char\s*(?:\*\s*(?:const\s+)?)?"
    r"(?P<name>[A-Za-z_]\w*)\s*(?:\[\s*\])?\s*=\s*"
    r'(?:"(?P<value>[^"\\\n]*)"|(?P<alias>(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*))\s*;'
)
_CLASS = re.compile(r"\b(?:class|struct)\s+(?:TF_EXPORT\s+)?([A-Za-z_]\w*)\s*(?:final\s*)?[:{]")


def read_string_constants(text: str) -> dict[str, str]:
    """The string constants ``text`` defines, keyed ``name`` and, inside a class,
    ``Class::name``; aliases (``= Other::kName``) are kept as ``"=Other::kName"`` for
    :func:`merge` to follow."""
    text = strip_comments(text)
    classes = [(match.start(), match.group(1)) for match in _CLASS.finditer(text)]
    found: dict[str, str] = {}
    for match in _DEFINITION.finditer(text):
        value = match.group("value")
        value = value if value is not None else "=" + match.group("alias").removeprefix("::")
        enclosing = [name for start, name in classes if start < match.start()]
        keys = [match.group("name")] + ([f"{enclosing[-1]}::{match.group('name')}"] if enclosing else [])
        for key in keys:
            if found.get(key, value) != value:
                found[key] = ""  # defined twice, differently: ambiguous
            else:
                found[key] = value
    return found


def merge(tables: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """One table from several files' (see :func:`read_string_constants`), aliases resolved; a
    key whose definitions resolve to different literals is ambiguous and left out."""
    values: dict[str, set[str]] = {}
    for table in tables:
        for key, value in table.items():
            values.setdefault(key, set()).add(value)

    def literals(key: str, depth: int = 0) -> set[str]:
        found: set[str] = set()
        for value in values.get(key, ()):
            if not value.startswith("="):
                found.add(value)
            elif depth < 8:
                target = value[1:]
                found |= literals(target, depth + 1) or literals(target.rsplit("::", 1)[-1], depth + 1)
        return found

    merged = {key: literals(key) for key in values}
    return {key: next(iter(found)) for key, found in merged.items() if len(found) == 1 and "" not in found}
