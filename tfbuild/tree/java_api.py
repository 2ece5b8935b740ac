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
recipe itself, the Java files from the Bazel rule that built TensorFlow's published AAR
(``android_tensorflow_inference_java``: ``glob(["java/**/*.java"])`` plus
``//tensorflow/java:java_sources``, read with Python's ``ast``: BUILD files are Starlark).

The recipe is CMake. Only what it uses is read: ``set``, ``get_filename_component(... ABSOLUTE)``,
``file(GLOB ...)`` and ``add_library(<library> SHARED ...)``, with ``${VAR}`` expanded; a recipe
that uses anything else for its sources is refused, naming the file, rather than guessed at.
Every path it yields must stay inside the tree.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tfbuild.config import read_toml
from tfbuild.errors import SourceTreeError
from tfbuild.resources import toolchains_dir
from tfbuild.tree.facts import MAKEFILE, read_text_if_present

DATA_FILE = "tensorflow/java_api.toml"
PROTO_FILES = "tensorflow/contrib/makefile/tf_proto_files.txt"
RECIPE_SIZE_LIMIT = 256 * 1024
"""A CMakeLists.txt larger than this is not TensorFlow's recipe (r1.9's is 3 KB)."""
RULE_FILE_LIMIT = 1024 * 1024
"""How much of a BUILD file is read for the Java rule (TensorFlow's are a few KB)."""


@dataclass(frozen=True)
class JavaRule:
    """The Bazel rule that builds the API's Android Java library: its package and name."""

    package: str
    name: str


@dataclass(frozen=True)
class NeededSource:
    """A tree source the recipe's code needs when it names ``when`` (and the Makefile's library
    does not compile it): compiled into the JNI library too."""

    source: str
    when: str
    android: bool = True
    """False when the sources name it only off Android (under ``#ifndef __ANDROID__``): an
    Android library leaves it out, a library for a Linux Java VM compiles it."""
    includes: tuple[str, ...] = ()
    """Headers the sources include under ``#ifndef __ANDROID__`` for this need: a library off
    Android includes them (where the rest of such a block is guarded as a slim build)."""
    functions: tuple[str, ...] = ()
    """Functions whose ``__ANDROID__`` branches this need serves: off Android they keep
    TensorFlow's own non-Android code."""
    protos: tuple[str, ...] = ()
    """Protos whose generated code the source includes: generated and compiled into the library
    when the Makefile's ``tf_proto_files.txt`` does not list them."""


@dataclass(frozen=True)
class JavaApiLayout:
    """Where one family of releases keeps the API (``toolchains/tensorflow/java_api.toml``)."""

    recipe: str
    library: str
    inference_class: str
    java_rule: JavaRule
    needs: tuple[NeededSource, ...] = ()
    host_exports: tuple[str, ...] = ()
    """What a library for a desktop Java VM exports besides the JNI methods (patterns)."""


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
    inference_class: str
    java_sources: tuple[JavaSource, ...]
    jni_classes: tuple[str, ...]
    """Dotted names of the ``org.tensorflow`` classes the JNI sources look up by name."""
    in_library: tuple[str, ...] = ()
    """Recipe sources the tree's contrib Makefile compiles into ``libtensorflow-core.a`` itself
    (1.15 and 2.0 list ``tensorflow/c/c_api.cc`` there): left out of ``jni_sources``, which the
    recipe papers over with ``--allow-multiple-definition``."""
    off_android: tuple[str, ...] = ()
    """Sources of ``jni_sources`` that only a library off Android compiles (the needs whose
    users TensorFlow guards with ``#ifndef __ANDROID__``)."""
    host_protos: tuple[str, ...] = ()
    """Protos a library off Android generates and compiles (its needs' protos that the
    Makefile's ``tf_proto_files.txt`` does not list)."""
    host_includes: tuple[str, ...] = ()
    """Headers under ``#ifndef __ANDROID__`` that a library off Android keeps including."""
    host_functions: tuple[str, ...] = ()
    """Functions whose non-Android branch a library off Android keeps."""
    host_exports: tuple[str, ...] = ()
    """What a library for a desktop Java VM exports besides the JNI methods."""

    def sources_for(self, *, android: bool) -> tuple[str, ...]:
        """The JNI sources a library for Android (or for a Java VM elsewhere) compiles."""
        return tuple(source for source in self.jni_sources if not (android and source in self.off_android))


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
    java = tuple(_java_source(root, path) for path in _rule_sources(root, layout.java_rule.package,
                                                                     layout.java_rule.name, depth=0))
    rule = f"//{layout.java_rule.package}:{layout.java_rule.name}"
    if not any(source.path == _class_path(layout.inference_class) for source in java):
        raise SourceTreeError(f"{root}: {layout.inference_class} is not among the Java sources of {rule}",
                              hint=f"check {layout.java_rule.package}/BUILD")
    makefile = read_text_if_present(root / MAKEFILE) or ""
    in_library = tuple(source for source in sources if _makefile_compiles(makefile, source))
    compiled = tuple(source for source in sources if source not in in_library)
    needed = _needed_sources(root, layout.needs, compiled, makefile)
    compiled += tuple(need.source for need in needed)
    off_android = tuple(need for need in needed if not need.android)
    listed_protos = read_text_if_present(root / PROTO_FILES) or ""
    return TreeJavaApi(
        layout.recipe, layout.library, compiled, defines, layout.inference_class, java,
        _jni_classes(root, sources), in_library, tuple(need.source for need in off_android),
        host_protos=tuple(dict.fromkeys(
            proto for need in off_android for proto in need.protos
            if (root / proto).is_file() and not re.search(rf"^{re.escape(proto)}\s*$", listed_protos, re.MULTILINE))),
        host_includes=tuple(dict.fromkeys(name for need in off_android for name in need.includes)),
        host_functions=tuple(dict.fromkeys(name for need in off_android for name in need.functions)),
        host_exports=layout.host_exports,
    )


def _needed_sources(root: Path, needs: tuple[NeededSource, ...], compiled: tuple[str, ...],
                    makefile: str) -> tuple[NeededSource, ...]:
    """The needs the library compiles: those the tree has, the Makefile's library lacks, and a
    compiled source names (the recipe's, or another need's: 1.15's loader.cc calls reader.cc)."""
    found: list[NeededSource] = []
    texts = [(root / source).read_text(encoding="utf-8", errors="replace") for source in compiled]
    while True:
        new = [
            need for need in needs
            if need not in found and (root / need.source).is_file() and need.source not in compiled
            and not _makefile_compiles(makefile, need.source)
            and any(re.search(rf"\b{re.escape(need.when)}\b", text) for text in texts)
        ]
        if not new:
            return tuple(found)
        found += new
        texts += [(root / need.source).read_text(encoding="utf-8", errors="replace") for need in new]


def _makefile_compiles(makefile: str, source: str) -> bool:
    """Whether the contrib Makefile (its text) compiles ``source`` into ``libtensorflow-core.a``:
    listed as an entry of its own (1.15's ``tensorflow/c/c_api.cc``), or in a directory one of its
    ``$(wildcard DIR/*.cc)`` lists covers and not named by an exclusion's ``$(wildcard FILE)`` (r1.9
    excludes ``op_gen_lib.cc``)."""
    if re.search(rf"^{re.escape(source)}[ \t]*(\\)?$", makefile, flags=re.MULTILINE):
        return True
    covered = f"$(wildcard {PurePosixPath(source).parent}/*.cc)" in makefile
    excluded = re.search(rf"^\$\(wildcard {re.escape(source)}\)", makefile, flags=re.MULTILINE)
    return covered and excluded is None


_EAGER_CALL = re.compile(r"\bTFE_[A-Za-z]+\(")
_EAGER_DEFINITION = re.compile(r"^\s*(?:TF_CAPI_EXPORT\s+)?(?:extern\s+)?[\w:*& ]+\bTFE_NewContext\s*\(", re.MULTILINE)


def missing_eager_api(root: Path, api: TreeJavaApi) -> str | None:
    """The first JNI source that calls TensorFlow's eager C API (``TFE_*``, 1.15 and later) when
    no source the library is made of defines it: the recipe is older than the Java it builds."""
    defined = any(_EAGER_DEFINITION.search((root / source).read_text(encoding="utf-8", errors="replace"))
                  for source in (*api.jni_sources, *api.in_library) if source.endswith(".cc"))
    if defined:
        return None
    return next((source for source in api.jni_sources
                 if _EAGER_CALL.search((root / source).read_text(encoding="utf-8", errors="replace"))), None)


def _class_path(dotted: str) -> str:
    return dotted.replace(".", "/") + ".java"


_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_JNI_CLASS = re.compile(r"(?:^|L)(org/tensorflow/[A-Za-z0-9_/$]+)")


def _jni_classes(root: Path, sources: tuple[str, ...]) -> tuple[str, ...]:
    """The ``org/tensorflow/...`` classes named in the string literals of the JNI sources and the
    headers beside them, as dotted names: those ``FindClass`` and ``ThrowNew`` take, and those in
    method signatures (``Lorg/tensorflow/SavedModelBundle;``), whose methods the native code calls."""
    files = {root / source for source in sources}
    files |= {header for source in sources for header in (root / source).parent.glob("*.h")}
    names = {
        match.replace("/", ".")
        for path in sorted(files)
        if path.is_file()
        for literal in _STRING.findall(path.read_text(encoding="utf-8", errors="replace"))
        for match in _JNI_CLASS.findall(literal)
    }
    return tuple(sorted(names))


def _inside(root: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


# -- the Java rule ------------------------------------------------------------------------------


MAX_LABEL_DEPTH = 4
"""How many filegroups deep a rule's sources are followed (TensorFlow's go one deep)."""
_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_][\w.]*)\s*;", re.MULTILINE)


def _java_source(root: Path, path: Path) -> JavaSource:
    """``path`` as its source root and package path, from its ``package`` declaration."""
    relative = path.relative_to(root).as_posix()
    found = _PACKAGE.search(path.read_text(encoding="utf-8", errors="replace"))
    package = found.group(1).replace(".", "/") if found else ""
    parent = PurePosixPath(relative).parent
    if package and not parent.as_posix().endswith(package):
        raise SourceTreeError(f"{path}: declares package {found.group(1) if found else ''} but is not in its directory")
    source_root = parent.as_posix()[: len(parent.as_posix()) - len(package)].rstrip("/") if package else parent
    return JavaSource(str(source_root), f"{package}/{path.name}" if package else path.name)


def _rule_sources(root: Path, package: str, name: str, *, depth: int) -> list[Path]:
    """The ``.java`` files of rule ``name`` in ``package``'s BUILD: its ``srcs``' globs and the
    same package's or other packages' filegroups it names by label, each file once, sorted."""
    build = root / package / "BUILD"
    if depth > MAX_LABEL_DEPTH:
        raise SourceTreeError(f"{build}: {name} names filegroups more than {MAX_LABEL_DEPTH} deep")
    call = _find_rule(build, name)
    found: dict[Path, None] = {}
    for kind, value in _srcs_terms(build, call):
        if kind == "glob":
            for path in sorted((root / package).glob(value)):
                if path.is_file() and path.suffix == ".java" and _inside(root, path):
                    found[path] = None
        elif value.startswith(("//", ":")):
            label_package, _, label_name = value.removeprefix("//").partition(":")
            for path in _rule_sources(root, label_package if value.startswith("//") else package, label_name,
                                      depth=depth + 1):
                found[path] = None
        elif value.endswith(".java"):
            path = root / package / value
            if path.is_file() and _inside(root, path):
                found[path] = None
    return sorted(found)


def _find_rule(build: Path, name: str) -> ast.Call:
    if not build.is_file():
        raise SourceTreeError(f"{build}: missing, so the Java API's sources cannot be read",
                              hint="check the tree's checkout")
    try:
        module = ast.parse(build.read_bytes()[:RULE_FILE_LIMIT].decode("utf-8", errors="replace"), str(build))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise SourceTreeError(f"{build}: not a BUILD file tfbuild can read ({type(error).__name__})") from None
    for statement in module.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and any(
            keyword.arg == "name" and isinstance(keyword.value, ast.Constant) and keyword.value.value == name
            for keyword in call.keywords
        ):
            return call
    raise SourceTreeError(f"{build}: no rule named {name}", hint="check the tree's checkout")


def _srcs_terms(build: Path, call: ast.Call) -> list[tuple[str, str]]:
    """``srcs`` as (``glob``, pattern) and (``file``, label or name) terms: a sum of lists and
    ``glob([...])`` calls of string literals; anything else is refused, naming the file."""
    srcs = next((keyword.value for keyword in call.keywords if keyword.arg == "srcs"), None)
    terms: list[tuple[str, str]] = []
    pending = [srcs] if srcs is not None else []
    while pending:
        node = pending.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            pending += [node.right, node.left]
        elif isinstance(node, ast.List) and all(isinstance(item, ast.Constant) for item in node.elts):
            terms += [("file", str(item.value)) for item in node.elts if isinstance(item, ast.Constant)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "glob"
              and node.args and isinstance(node.args[0], ast.List)):
            terms += [("glob", str(item.value)) for item in node.args[0].elts if isinstance(item, ast.Constant)]
        else:
            raise SourceTreeError(f"{build}:{getattr(node, 'lineno', '?')}: srcs is not lists and globs of strings",
                                  hint="tfbuild reads the Java rule's srcs as TensorFlow writes them")
    return terms


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


_FULL_MESSAGE = re.compile(r"\bprotobuf::Message\s*&")
_MESSAGE_TO_BUFFER = re.compile(r"(\bMessageToBuffer\(\s*const\s+(?:tensorflow::)?protobuf::)Message(\s*&)")
LITE_MESSAGE_NOTE = ("compiled from a copy whose MessageToBuffer takes protobuf's MessageLite, as TensorFlow 1.15's "
                     "own c_api.cc does: it only serializes, which the lite runtime does too")


def lite_adapted(text: str) -> str:
    """``text`` for the lite protobuf runtime: TensorFlow's ``MessageToBuffer`` (r1.9's
    ``c_api.cc`` turns GraphDefs, OpDefs and RunMetadata into buffers with it) taking
    ``MessageLite``, as later releases' own does; every other use of the full ``Message`` stays
    and :func:`full_runtime_uses` names it."""
    return _MESSAGE_TO_BUFFER.sub(r"\1MessageLite\2", text)


def full_runtime_uses(root: Path, api: TreeJavaApi, *, android: bool = True) -> tuple[str, ...]:
    """Where the API's JNI sources take protobuf's full ``Message`` (``file:line``) even after
    :func:`lite_adapted`, which a build for the lite runtime (``MessageLite`` only) cannot
    compile."""
    uses = []
    for source in api.sources_for(android=android):
        text = lite_adapted((root / source).read_text(encoding="utf-8", errors="replace"))
        uses += [f"{source}:{text.count(chr(10), 0, found.start()) + 1}" for found in _FULL_MESSAGE.finditer(text)]
    return tuple(uses)
