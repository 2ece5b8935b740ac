"""The Android SDK/NDK repositories in a TensorFlow tree's WORKSPACE, written between markers.

Bazel's Android builds need ``android_sdk_repository`` and ``android_ndk_repository`` rules in
the WORKSPACE. TensorFlow's ``./configure`` asks for them interactively; tfbuild checks the SDK
the way configure.py does (``platforms/android-N``, ``build-tools/<version>``) and reads the NDK
(:mod:`tfbuild.toolchain.android_ndk`), refuses NDKs the tree does not support (the list in its
configure.py, else the table in ``toolchains/tensorflow/versions.toml``; the message says which:
Bazel's ``android_ndk_repository`` reads the NDK, so the tree's range binds), takes the NDK API
level configure.py would default to (same fallback) and checks that the NDK has it and the
target's ABI, renders the block from
``WORKSPACE.append.tmpl`` and puts it between ``# BEGIN/# END tfbuild android repositories``
markers: the rest of the file is never touched, and a second run replaces only its own block.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tfbuild import __version__
from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.fileio import atomic_write_text
from tfbuild.pipeline.declarations.options import AndroidOptions
from tfbuild.templating import render
from tfbuild.toolchain.android_ndk import NdkInfo, check_abi, check_api_level, inspect_ndk
from tfbuild.toolchain.targets import TargetProfile
from tfbuild.toolchain.tf_versions import TreeRequirements, ndk_majors_text, tree_requirements

V = TypeVar("V", int, str)

BEGIN_MARKER = "# BEGIN tfbuild android repositories"
END_MARKER = "# END tfbuild android repositories"
TEMPLATE = "WORKSPACE.append.tmpl"
_FOREIGN_RULE = re.compile(r"^[ \t]*(android_sdk_repository|android_ndk_repository)\s*\(", re.MULTILINE)


@dataclass(frozen=True)
class SdkInfo:
    path: Path
    api_level: int
    build_tools: str


@dataclass(frozen=True)
class AndroidRepositories:
    """The checked SDK and NDK, and the paths the WORKSPACE names them by (the build's view:
    the host paths for a local build, the mount points inside a toolchain container)."""

    sdk: SdkInfo
    ndk: NdkInfo
    ndk_api_level: int
    ndk_api_level_source: str
    """Why this level: ``--ndk-api-level``, or the default and where it was read."""
    sdk_path_in_build: str
    ndk_path_in_build: str


def inspect_sdk(sdk: Path, *, api_level: int | None, build_tools: str | None, min_build_tools: str) -> SdkInfo:
    """Check the SDK as configure.py does and pick the levels: the given ones, which must be
    installed, else the highest platform and build-tools version present."""
    sdk = Path(sdk)
    if not sdk.is_dir():
        raise ConfigError(f"{sdk}: Android SDK directory not found", hint="pass --sdk with an existing SDK")
    for sub in ("platforms", "build-tools"):
        if not (sdk / sub).is_dir():
            raise ConfigError(
                f"{sdk / sub}: not found, so {sdk} is not an Android SDK",
                hint="install a platform and build tools with sdkmanager",
            )
    levels = sorted(
        int(entry.name.removeprefix("android-"))
        for entry in (sdk / "platforms").iterdir()
        if re.fullmatch(r"android-\d+", entry.name) and entry.is_dir()
    )
    api_level = _installed_or_newest(
        api_level, levels,
        none_installed=(f"{sdk / 'platforms'}: no android-N platform installed", "sdkmanager 'platforms;android-28'"),
        missing=lambda level: f"{sdk / 'platforms' / f'android-{level}'}: SDK platform {level} not installed",
    )
    installed = sorted((entry.name for entry in (sdk / "build-tools").iterdir() if entry.is_dir()), key=_version_key)
    build_tools = _installed_or_newest(
        build_tools, installed,
        none_installed=(f"{sdk / 'build-tools'}: no build tools installed", "sdkmanager 'build-tools;28.0.3'"),
        missing=lambda tools: f"{sdk / 'build-tools' / tools}: build tools {tools} not installed",
    )
    if _version_key(build_tools) < _version_key(min_build_tools):
        raise ConfigError(
            f"{sdk / 'build-tools' / build_tools}: build tools {build_tools} are older than {min_build_tools}, "
            "which Bazel requires",
            hint=f"install build tools {min_build_tools} or newer",
        )
    return SdkInfo(path=sdk, api_level=api_level, build_tools=build_tools)


def check_ndk_supported(ndk: NdkInfo, requirements: TreeRequirements) -> None:
    """Refuse an NDK whose major revision the tree's configure.py (else the table) does not list:
    too old, too new, or in a gap of the list."""
    majors = requirements.android_ndk_majors()
    if ndk.major in majors.value:
        return
    version = requirements.version
    if ndk.major > max(majors.value):
        verdict, hint = "too new", f"use an NDK r{max(majors.value)} or older"
    elif ndk.major < min(majors.value):
        verdict, hint = "too old", f"use an NDK r{min(majors.value)} or newer"
    else:
        verdict, hint = "not supported", f"use an NDK {ndk_majors_text(majors.value)}"
    raise ConfigError(
        f"{ndk.where}: {ndk.name} is {verdict} for TensorFlow {version}, which builds with NDK "
        f"{ndk_majors_text(majors.value)} ({majors.source})",
        hint=f"{hint}; Bazel's android_ndk_repository reads the NDK for this tree",
    )


def resolve_android_repositories(
    android: AndroidOptions,
    requirements: TreeRequirements,
    *,
    sdk_path_in_build: str | None = None,
    ndk_path_in_build: str | None = None,
    target: TargetProfile | None = None,
) -> AndroidRepositories:
    """Check the SDK and NDK of ``android`` for the tree of ``requirements`` (and for
    ``target``'s ABI, when the block is for a build). Without ``--ndk-api-level`` the level is
    the tree's default, raised for a 64-bit target to the lowest level that has 64-bit
    platforms, as Bazel's NDK rule would silently do. The NDK is checked before the SDK."""
    table = requirements.table
    if android.sdk is None or android.ndk is None:
        given = (("--sdk", android.sdk), ("--ndk", android.ndk))
        missing = " and ".join(name for name, value in given if value is None)
        raise ConfigError(
            f"the Android repositories need {missing}",
            hint="or set [android] sdk/ndk in tfbuild.toml, or ANDROID_HOME/ANDROID_NDK_HOME",
        )
    ndk = inspect_ndk(android.ndk, origin=android.ndk_origin)
    check_ndk_supported(ndk, requirements)
    if target is not None:
        check_abi(ndk, target.arch, target=target.name)
    ndk_api_level, level_source = _ndk_api_level(android, requirements, is_64bit=target is not None and target.is_64bit)
    needs = f"target {target.name}" if target is not None else "the WORKSPACE's android_ndk_repository"
    check_api_level(ndk, ndk_api_level, needs=needs, why=level_source)
    sdk = inspect_sdk(
        android.sdk, api_level=android.api_level, build_tools=android.build_tools, min_build_tools=table.min_build_tools
    )
    return AndroidRepositories(
        sdk=sdk,
        ndk=ndk,
        ndk_api_level=ndk_api_level,
        ndk_api_level_source=level_source,
        sdk_path_in_build=sdk_path_in_build or str(sdk.path),
        ndk_path_in_build=ndk_path_in_build or str(ndk.path),
    )


def _ndk_api_level(android: AndroidOptions, requirements: TreeRequirements, *, is_64bit: bool) -> tuple[int, str]:
    """The NDK API level of the block and why: ``--ndk-api-level``, else the tree's default,
    raised for a 64-bit target to the table's lowest 64-bit level."""
    table = requirements.table
    if android.ndk_api_level is not None:
        ndk_api_level, level_source = android.ndk_api_level, "--ndk-api-level"
    else:
        default = requirements.default_ndk_api_level()
        ndk_api_level, level_source = default.value, f"default, {default.source}"
        if is_64bit and ndk_api_level < table.min_ndk_api_level_64bit:
            ndk_api_level = table.min_ndk_api_level_64bit
            level_source = f"raised from the default {default.value} ({default.source}) for a 64-bit target"
    return ndk_api_level, level_source


def render_android_block(repositories: AndroidRepositories, requirements: TreeRequirements) -> str:
    """The marked block; checked to parse (Starlark's syntax is a subset of Python's)."""
    majors = requirements.android_ndk_majors()
    block = render(
        TEMPLATE,
        begin_marker=BEGIN_MARKER,
        end_marker=END_MARKER,
        tfbuild_version=__version__,
        tensorflow_version=str(requirements.version),
        ndk_revision=repositories.ndk.revision,
        ndk_majors=ndk_majors_text(majors.value),
        ndk_majors_source=majors.source,
        api_level=repositories.sdk.api_level,
        build_tools=repositories.sdk.build_tools,
        sdk_path=repositories.sdk_path_in_build,
        ndk_path=repositories.ndk_path_in_build,
        ndk_api_level=repositories.ndk_api_level,
        ndk_api_level_source=repositories.ndk_api_level_source,
    )
    _check_parses(block, "the rendered android repositories block")
    return block


def apply_block(workspace_text: str, block: str, *, where: str) -> str:
    """``workspace_text`` with ``block`` in place of an earlier tfbuild block, else appended."""
    begins = [m.start() for m in re.finditer(re.escape(BEGIN_MARKER), workspace_text)]
    ends = [m.start() for m in re.finditer(re.escape(END_MARKER), workspace_text)]
    if len(begins) > 1 or len(ends) > 1 or len(begins) != len(ends) or (begins and ends[0] < begins[0]):
        raise SourceTreeError(
            f"{where}: the '{BEGIN_MARKER}' / '{END_MARKER}' markers are damaged",
            hint="remove the partial tfbuild block by hand, then run again",
        )
    if begins:
        end = workspace_text.index("\n", ends[0]) + 1 if "\n" in workspace_text[ends[0]:] else len(workspace_text)
        before, after = workspace_text[: begins[0]], workspace_text[end:]
    else:
        before, after = workspace_text, ""
    foreign = _FOREIGN_RULE.search(before + after)
    if foreign:
        raise SourceTreeError(
            f"{where}: already declares {foreign.group(1)} outside tfbuild's block",
            hint="remove or comment out that rule (Bazel allows one per name), "
            "or build with it and without --sdk/--ndk",
        )
    if before and not before.endswith("\n"):
        before += "\n"
    if before and not begins and not before.endswith("\n\n"):
        before += "\n"
    result = before + block + after
    if _parses(workspace_text):
        _check_parses(result, where)
    return result


def update_workspace(tree: Path, block: str) -> Path:
    """Put ``block`` into ``tree``'s WORKSPACE, atomically."""
    path = Path(tree) / "WORKSPACE"
    if not path.is_file():
        raise SourceTreeError(f"{path}: not found", hint="pass --source with a TensorFlow checkout's top directory")
    refuse_link_out_of_tree(path, Path(tree))
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise SourceTreeError(
            f"{path}:{line}: not UTF-8 text, so tfbuild cannot add its block to it",
            hint="save the file as UTF-8 (or restore it with git checkout) and run tfbuild again",
        ) from None
    return atomic_write_text(path, apply_block(text, block, where=str(path)))


def refuse_link_out_of_tree(path: Path, tree: Path) -> None:
    """Refuse (:class:`SourceTreeError`, exit 4) to write ``path`` when it is a symbolic link
    to a file outside ``tree``: the write goes through the link, into a file that is not the
    tree's (another checkout's WORKSPACE, a file of the user's) and that no revert restores."""
    if not path.is_symlink():
        return
    target = path.resolve()
    if not target.is_relative_to(Path(tree).resolve()):
        raise SourceTreeError(
            f"{path}: a symbolic link to {target}, outside the tree; refusing to write through it",
            hint="replace the link with a copy of the file it points to (or point it into the tree), then run again",
        )


def _check_parses(text: str, where: str) -> None:
    try:
        ast.parse(text)
    except SyntaxError as error:  # a tfbuild bug: the template and its values are ours
        raise AssertionError(f"{where}: not valid Starlark syntax: {error}") from error


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text.split("-", maxsplit=1)[0]))


@dataclass(frozen=True)
class WorkspaceUpdate:
    path: Path
    block: str
    repositories: AndroidRepositories


def write_android_workspace(tree: Path, android: AndroidOptions) -> WorkspaceUpdate:
    """``tfbuild workspace``: check the SDK/NDK for the tree and put the block into its
    WORKSPACE (host paths: this is for Bazel runs on this machine)."""
    from tfbuild.tree.facts import read_tree_facts

    requirements = tree_requirements(read_tree_facts(Path(tree)))
    repositories = resolve_android_repositories(android, requirements)
    block = render_android_block(repositories, requirements)
    return WorkspaceUpdate(path=update_workspace(Path(tree), block), block=block, repositories=repositories)


def _installed_or_newest(
    wanted: V | None, installed: Sequence[V], *, none_installed: tuple[str, str], missing: Callable[[V], str]
) -> V:
    """``wanted`` if it is installed, the newest of ``installed`` (sorted) when nothing is asked
    for, as TensorFlow's configure.py picks; a :class:`ConfigError` naming what is there otherwise."""
    if wanted is None:
        if not installed:
            raise ConfigError(none_installed[0], hint=none_installed[1])
        return installed[-1]
    if wanted not in installed:
        raise ConfigError(missing(wanted), hint=f"installed: {', '.join(map(str, installed)) or 'none'}")
    return wanted
