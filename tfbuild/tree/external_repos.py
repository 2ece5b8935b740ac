"""The external repositories a TensorFlow tree's Bazel workspace declares, read without Bazel.

A Bazel build of the tree fetches each ``tf_http_archive`` / ``third_party_http_archive`` /
``http_archive`` it needs from the URLs in ``tensorflow/workspace.bzl`` (and, from 1.14 on, the
``third_party/*/workspace.bzl`` files it loads; ``WORKSPACE`` itself declares a few). To build
with no network, something has to stand in for each download: :mod:`tfbuild.tree.vendor` lays
them out from local git mirrors. This module only reads the declarations: each call's name,
pin (``sha256``), URLs, ``strip_prefix``, ``build_file`` and ``patch_file``, and which file and
line declared it.

The calls are Starlark, whose call syntax is Python's: each call is cut out of the file with its
balanced parentheses and read with :mod:`ast`. Only literal values are taken (strings, lists of
strings, ``clean_dep("//x")`` / ``Label("//x")`` and ``+`` of strings); a repository whose
name or URLs are computed is left out, which is what the dry run of ``tfbuild vendor`` shows.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import SourceTreeError

RULES = ("tf_http_archive", "third_party_http_archive", "http_archive")
_CALL = re.compile(r"(?<![\w.])(?:native\.)?(" + "|".join(RULES) + r")\s*\(")
_WRAPPERS = ("clean_dep", "Label", "str")
_GITHUB = re.compile(
    r"^https?://(?:[^/]+/(?:mirror\.tensorflow\.org/|mirror\.bazel\.build/))?(?:www\.)?github\.com/"
    r"(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/(?:archive/(?:refs/tags/)?(?P<ref>[\w.+-]+?)\.(?P<ext>tar\.gz|zip)"
    r"|releases/download/(?P<tag>[\w.+-]+)/[^/]+)$"
)


@dataclass(frozen=True)
class GitHubArchive:
    """``https://github.com/OWNER/REPO/archive/REF.tar.gz`` (or ``.zip``), as a URL names it, or a
    release's file (``releases/download/TAG/FILE``: ``extension`` is ``release``, the ref the tag)."""

    owner: str
    repo: str
    ref: str
    extension: str

    @property
    def top_directory(self) -> str:
        """The archive's top directory: GitHub names it ``REPO-REF`` with a tag's ``v`` dropped."""
        ref = self.ref[1:] if re.fullmatch(r"v\d.*", self.ref) else self.ref
        return f"{self.repo}-{ref}"


@dataclass(frozen=True)
class ExternalRepository:
    """One declared archive: what Bazel would download, and what it does to it after."""

    name: str
    rule: str
    urls: tuple[str, ...]
    sha256: str
    strip_prefix: str
    build_file: str | None
    """A label in the tree (``//third_party:eigen.BUILD``), installed as the repository's BUILD."""
    patch_file: str | None
    declared_at: str
    """``tensorflow/workspace.bzl:123``."""

    @property
    def github(self) -> GitHubArchive | None:
        """The first URL that is a GitHub archive of one commit or tag."""
        for url in self.urls:
            found = _GITHUB.match(url)
            if found:
                if found["tag"]:  # a release's own file: made by its project, not by git archive
                    return GitHubArchive(found["owner"], found["repo"], found["tag"], "release")
                return GitHubArchive(found["owner"], found["repo"], found["ref"], found["ext"])
        return None


def workspace_files(root: Path) -> list[Path]:
    """The files of ``root`` that declare external archives: WORKSPACE, ``tensorflow/workspace*.bzl``
    and each ``third_party/**/*.bzl`` that calls one of :data:`RULES` (``workspace.bzl`` files, the
    toolchains' ``archives.bzl``)."""
    found = [root / "WORKSPACE", *sorted((root / "tensorflow").glob("workspace*.bzl"))]
    if (root / "third_party").is_dir():
        found += [path for path in sorted((root / "third_party").rglob("*.bzl"))
                  if _CALL.search(path.read_text(encoding="utf-8", errors="replace"))]
    return [path for path in found if path.is_file()]


def external_repositories(root: Path) -> list[ExternalRepository]:
    """Every archive the tree's workspace files declare, first declaration of a name wins (as
    TensorFlow's ``if not native.existing_rule(name)`` guards make Bazel do)."""
    if not (root / "WORKSPACE").is_file():
        raise SourceTreeError(f"{root / 'WORKSPACE'}: not found", hint="is --source a TensorFlow checkout's top?")
    seen: dict[str, ExternalRepository] = {}
    for path in workspace_files(root):
        for repository in _declared_in(path, path.relative_to(root).as_posix()):
            seen.setdefault(repository.name, repository)
    return list(seen.values())


def _declared_in(path: Path, shown: str) -> list[ExternalRepository]:
    """The archives ``path`` declares: read as a whole when it parses as Python (most .bzl files
    do), so ``sha256 = PROTOBUF_SHA256`` finds the file's assignment; else call by call."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        module = ast.parse(text)
    except SyntaxError:
        return _declared_call_by_call(text, shown)
    variables: dict[str, str | tuple[str, ...]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value, {})
            if value is not None:
                variables.setdefault(node.targets[0].id, value)
    calls = [node for node in ast.walk(module) if isinstance(node, ast.Call) and _rule(node.func) is not None]
    found = [_repository(call, variables, f"{shown}:{call.lineno}") for call in sorted(calls, key=lambda c: c.lineno)]
    return [repository for repository in found if repository is not None]


def _rule(func: ast.expr) -> str | None:
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name if name in RULES else None


def _declared_call_by_call(text: str, shown: str) -> list[ExternalRepository]:
    found = []
    for match in _CALL.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start:match.start()].lstrip().startswith("def "):
            continue
        end = _closing_paren(text, match.end() - 1)
        if end is None:
            continue
        try:
            call = ast.parse(text[match.start(1):end + 1], mode="eval").body
        except SyntaxError:
            continue
        line = text.count("\n", 0, match.start()) + 1
        repository = _repository(call, {}, f"{shown}:{line}") if isinstance(call, ast.Call) else None
        if repository is not None:
            found.append(repository)
    return found


def _closing_paren(text: str, start: int) -> int | None:
    """The index of the ``)`` closing the ``(`` at ``start``, skipping strings and comments."""
    depth, index, quote = 0, start, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif text.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
        elif char in "\"'":
            quote = char * 3 if text.startswith(char * 3, index) else char
            index += len(quote) - 1
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _repository(call: ast.Call, variables: dict[str, str | tuple[str, ...]], where: str) -> ExternalRepository | None:
    rule = _rule(call.func)
    values = {keyword.arg: _literal(keyword.value, variables) for keyword in call.keywords if keyword.arg}
    name, urls = values.get("name"), values.get("urls")
    if rule is None or not isinstance(name, str):
        return None
    url = values.get("url")
    if urls is None and isinstance(url, str):
        urls = (url,)
    if not isinstance(urls, tuple):
        return None
    patch = values.get("patch_file")
    patches = values.get("patches")
    if patch is None and isinstance(patches, tuple) and len(patches) == 1:
        patch = patches[0]
    build_file = values.get("build_file")
    return ExternalRepository(
        name=name,
        rule=rule,
        urls=urls,
        sha256=_text(values.get("sha256")),
        strip_prefix=_text(values.get("strip_prefix")),
        build_file=build_file if isinstance(build_file, str) else None,
        patch_file=patch if isinstance(patch, str) else None,
        declared_at=where,
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _literal(node: ast.expr, variables: dict[str, str | tuple[str, ...]]) -> str | tuple[str, ...] | None:
    """A string or a list of strings, as far as it is written out (or assigned to a name in the
    same file); None for anything computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return variables.get(node.id)
    if isinstance(node, ast.List | ast.Tuple):
        items = [_literal(item, variables) for item in node.elts]
        return tuple(item for item in items if isinstance(item, str)) if all(
            isinstance(item, str) for item in items) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS \
            and len(node.args) == 1:
        return _literal(node.args[0], variables)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, variables), _literal(node.right, variables)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    return None


def label_path(label: str) -> str:
    """The tree path of a label in the main repository: ``//third_party:eigen.BUILD`` ->
    ``third_party/eigen.BUILD``; ``@org_tensorflow//x:y`` likewise."""
    label = re.sub(r"^@(org_tensorflow)?//", "//", label)
    package, _, target = label.removeprefix("//").partition(":")
    return f"{package}/{target}" if package and target else (package or target)
