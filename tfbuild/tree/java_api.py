"""TensorFlow's own Android Java API in a tree, and TensorFlow's recipe for its JNI library.

Apps written for ``org.tensorflow:tensorflow-android`` call
``org.tensorflow.contrib.android.TensorFlowInferenceInterface``, which runs on the Java API of
``org.tensorflow`` (``Graph``, ``Session``, ``Tensor``, ...) over ``libtensorflow_inference.so``.
A tree that has the contrib Makefile has all of it as source, and the recipe TensorFlow's own
Android demo built the library with: ``contrib/android/cmake/CMakeLists.txt``, which links the
JNI sources (``contrib/android/jni/*.cc``, ``java/src/main/native/*.cc``, the C API) against the
Makefile's archives. A drop-in AAR has to be built from exactly those files, so this module reads
them from the tree rather than keeping a list: the layouts (where each release keeps them) are
data, ``toolchains/tensorflow/java_api.toml``; the source list and the defines come from the
recipe itself.

The recipe is CMake. Only what it uses is read: ``set``, ``get_filename_component(... ABSOLUTE)``,
``file(GLOB ...)`` and ``add_library(<library> SHARED ...)``, with ``${VAR}`` expanded; a recipe
that uses anything else for its sources is refused, naming the file, rather than guessed at.
Every path it yields must stay inside the tree.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.config import read_toml
from tfbuild.errors import SourceTreeError
from tfbuild.resources import toolchains_dir

DATA_FILE = "tensorflow/java_api.toml"
RECIPE_SIZE_LIMIT = 256 * 1024
"""A CMakeLists.txt larger than this is not TensorFlow's recipe (r1.9's is 3 KB)."""


@dataclass(frozen=True)
class JavaRoot:
    """A Java source root of the API and the files of it that belong to the library."""

    root: str
    pattern: str


@dataclass(frozen=True)
class JavaApiLayout:
    """Where one family of releases keeps the API (``toolchains/tensorflow/java_api.toml``)."""

    recipe: str
    library: str
    version_script: str
    inference_class: str
    java: tuple[JavaRoot, ...]


@dataclass(frozen=True)
class JavaApiData:
    layouts: tuple[JavaApiLayout, ...]


@dataclass(frozen=True)
class JavaSource:
    """One Java file of the API: its source root and its path under it (the package path)."""

    root: str
    path: str

    @property
    def tree_path(self) -> str:
        return f"{self.root}/{self.path}"


@dataclass(frozen=True)
class TreeJavaApi:
    """What the tree says about its Java API: the recipe's sources and defines, the export list,
    the Java files, and the Java classes the native code names (which an app's R8 must keep)."""

    recipe: str
    library: str
    jni_sources: tuple[str, ...]
    """Relative to the tree, in the recipe's order (globs sorted, as CMake sorts them)."""
    defines: tuple[str, ...]
    """The ``-D`` words of the recipe's ``CMAKE_CXX_FLAGS`` (``-DIS_SLIM_BUILD``, ...)."""
    version_script: str | None
    inference_class: str
    java_sources: tuple[JavaSource, ...]
    jni_classes: tuple[str, ...]
    """Dotted names of the ``org.tensorflow`` classes the JNI sources look up by name."""


@functools.cache
def java_api_layouts() -> tuple[JavaApiLayout, ...]:
    """``toolchains/tensorflow/java_api.toml``'s layouts, in the order they are tried."""
    return read_toml(JavaApiData, toolchains_dir() / DATA_FILE).layouts


def find_java_api(root: Path) -> JavaApiLayout | None:
    """The first layout whose recipe the tree has; None when it has none (a Bazel-only 2.x tree)."""
    return next((layout for layout in java_api_layouts() if (root / layout.recipe).is_file()), None)


def read_java_api(root: Path) -> TreeJavaApi:
    """The tree's Java API as its recipe builds it; a :class:`SourceTreeError` (exit 4) naming the
    file when the tree has no recipe, or one this module cannot read."""
    layout = find_java_api(root)
    if layout is None:
        wanted = " or ".join(layout.recipe for layout in java_api_layouts())
        raise SourceTreeError(
            f"{root}: no TensorFlow Android Java API recipe ({wanted})",
            hint="build with --java-api tfbuild, tfbuild's own small Java class",
        )
    recipe = _Recipe(root, layout.recipe)
    sources, defines = recipe.library_sources(layout.library)
    if not sources:
        raise SourceTreeError(f"{root / layout.recipe}: add_library({layout.library} ...) names no source",
                              hint="check the tree's recipe")
    java = tuple(
        JavaSource(entry.root, path.relative_to(root / entry.root).as_posix())
        for entry in layout.java
        for path in sorted((root / entry.root).glob(entry.pattern))
        if path.is_file() and _inside(root, path)
    )
    if not any(source.path == _class_path(layout.inference_class) for source in java):
        raise SourceTreeError(
            f"{root}: {layout.inference_class} is not among the Java sources the recipe's layout names",
            hint="check the tree's " + ", ".join(f"{entry.root}/{entry.pattern}" for entry in layout.java),
        )
    script = layout.version_script if (root / layout.version_script).is_file() else None
    return TreeJavaApi(layout.recipe, layout.library, sources, defines, script, layout.inference_class, java,
                       _jni_classes(root, sources))


def _class_path(dotted: str) -> str:
    return dotted.replace(".", "/") + ".java"


_JNI_CLASS = re.compile(r'"(org/tensorflow/[A-Za-z0-9_/$]+)"')


def _jni_classes(root: Path, sources: tuple[str, ...]) -> tuple[str, ...]:
    """The ``org/tensorflow/...`` class names in the JNI sources' string literals (``FindClass``,
    ``ThrowNew``), and in the headers beside them, as dotted names."""
    files = {root / source for source in sources}
    files |= {header for source in sources for header in (root / source).parent.glob("*.h")}
    names = {
        match.replace("/", ".")
        for path in sorted(files)
        if path.is_file()
        for match in _JNI_CLASS.findall(path.read_text(encoding="utf-8", errors="replace"))
    }
    return tuple(sorted(names))


def _inside(root: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


# -- the recipe ---------------------------------------------------------------------------------


_COMMAND = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


class _Recipe:
    """A CMakeLists.txt read as far as a library's sources go (see the module docstring)."""

    def __init__(self, root: Path, relative: str) -> None:
        self.root = root.resolve()
        self.path = root / relative
        data = self.path.read_bytes()
        if len(data) > RECIPE_SIZE_LIMIT:
            raise SourceTreeError(f"{self.path}: {len(data)} bytes, too large for TensorFlow's recipe")
        self.text = data.decode("utf-8", errors="replace")
        here = PurePosixPath(relative).parent
        self.variables: dict[str, list[str]] = {"CMAKE_CURRENT_SOURCE_DIR": [str(self.root / here)]}

    def library_sources(self, library: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The sources of ``add_library(<library> ...)``, relative to the tree, and the ``-D``
        words of ``CMAKE_CXX_FLAGS``, following the commands in order."""
        for name, args in self._commands():
            command = name.lower()
            if command == "set" and args:
                self.variables[args[0]] = [word for arg in args[1:] for word in self._expand(arg)]
            elif command == "get_filename_component" and len(args) >= 3 and args[2] == "ABSOLUTE":
                base = Path(self.variables["CMAKE_CURRENT_SOURCE_DIR"][0])
                self.variables[args[0]] = [str((base / self._one(args[1])).resolve())]
            elif command == "file" and len(args) >= 2 and args[0] == "GLOB":
                self.variables[args[1]] = sorted(
                    str(path) for pattern in args[2:] for path in self._glob(self._one(pattern)))
            elif command == "add_library" and args and args[0] == library:
                words = [word for arg in args[1:] for word in self._expand(arg)]
                sources = tuple(self._relative(word) for word in words
                                if word not in {"SHARED", "STATIC", "MODULE", "EXCLUDE_FROM_ALL"})
                flags = " ".join(self.variables.get("CMAKE_CXX_FLAGS", []))
                return sources, tuple(dict.fromkeys(word for word in flags.split() if word.startswith("-D")))
        return (), ()

    def _commands(self) -> list[tuple[str, list[str]]]:
        text = "\n".join(_strip_comment(line) for line in self.text.splitlines())
        commands, position = [], 0
        while (match := _COMMAND.search(text, position)) is not None:
            args, position = _arguments(text, match.end(), self.path)
            commands.append((match.group(1), args))
        return commands

    def _expand(self, arg: str) -> list[str]:
        """``arg`` with ``${VAR}`` replaced; a list variable alone in an argument gives its items."""
        whole = _VARIABLE.fullmatch(arg)
        if whole is not None:
            return list(self.variables.get(whole.group(1), []))
        return [_VARIABLE.sub(lambda found: " ".join(self.variables.get(found.group(1), [])), arg)]

    def _one(self, arg: str) -> str:
        return " ".join(self._expand(arg))

    def _glob(self, pattern: str) -> list[Path]:
        path = Path(pattern)
        if not path.is_absolute():
            path = Path(self.variables["CMAKE_CURRENT_SOURCE_DIR"][0]) / path
        parent, name = path.parent.resolve(), path.name
        if not parent.is_relative_to(self.root):
            raise SourceTreeError(f"{self.path}: file(GLOB {pattern}) reaches outside the tree")
        return [found for found in parent.glob(name) if found.is_file()]

    def _relative(self, word: str) -> str:
        path = Path(word)
        if not path.is_absolute():
            path = Path(self.variables["CMAKE_CURRENT_SOURCE_DIR"][0]) / path
        resolved = path.resolve()
        if not resolved.is_relative_to(self.root):
            raise SourceTreeError(f"{self.path}: the library's source {word} is outside the tree")
        if not resolved.is_file():
            raise SourceTreeError(f"{self.path}: the library's source {resolved.relative_to(self.root)} is missing",
                                  hint="check the tree's checkout")
        return resolved.relative_to(self.root).as_posix()


def _strip_comment(line: str) -> str:
    """``line`` without a ``#`` comment outside quotes."""
    quoted = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            quoted = not quoted
        elif char == "#" and not quoted:
            return line[:index]
    return line


def _arguments(text: str, start: int, path: Path) -> tuple[list[str], int]:
    """The arguments of the command whose ``(`` ends at ``start``, and where it ends: words split
    on blanks outside quotes; quoted text as one argument, ``\\`` line continuations removed."""
    args: list[str] = []
    word: list[str] = []
    quoted, depth, index = False, 1, start
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "\\" and text[index + 1:index + 2] == "\n":
                index += 1
            elif char == '"':
                quoted = False
                args.append("".join(word))
                word = []
            else:
                word.append(char)
        elif char == '"':
            quoted = True
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0:
                if word:
                    args.append("".join(word))
                return args, index + 1
            word.append(char)
        elif char.isspace():
            if word:
                args.append("".join(word))
                word = []
        else:
            word.append(char)
        index += 1
    raise SourceTreeError(f"{path}: a command is not closed", hint="check the tree's recipe")
