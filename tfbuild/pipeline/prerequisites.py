"""What a build needs from this machine and its source tree, checked before it changes anything.

``tfbuild build`` changes the source tree (a commit on tfbuild's work branch, the header written
into it) before its long steps run. A build that then stopped because ``bazel`` is missing would
leave a changed tree behind for nothing, so everything the plan will need is checked first:

- a target built with Xcode: macOS with ``xcrun``;
- a container build: a reachable Docker engine, and the toolchain image, or its base image so
  the image can be built;
- a ``--local`` build: every program the plan's steps start (``bazel``, ``make``, ``python3``,
  the tree's scripts) and the compilers the Makefile is told to use (``CXX=``, ``CC_PREFIX=``,
  ``MAKEFLAGS=CC=``), or its own default ``gcc``;
- the programs that run on this machine before the plan (an op library's host compile);
- the Android NDK and SDK where the target needs them (planning already refused a missing or
  unfit one; they are listed so the dry run shows what the build will use and where its path
  was given);
- a clean tree on the right branch, when the build will commit there;
- for a Makefile build in a container, links under the Makefile's ``gen/`` that the container
  can follow: ``compile_linux_protobuf.sh`` links ``gen/protobuf-host`` to ``gen/protobuf`` by
  the absolute path it ran at, which does not exist where the container mounts the tree (so
  the Makefile finds no protoc and no protobuf headers, and fails much later);
- for a Makefile build of a tree whose ``downloads/`` is there (so the build skips
  ``download_dependencies.sh``), what the next steps read first in it: an empty or half-filled
  ``downloads/`` (the network failed, the script was stopped) would pass for filled, and
  ``compile_linux_protobuf.sh`` would stop on it ("You need to download dependencies");
- for a ``--local`` Makefile build, the reverse: links a container build left under ``gen/``
  pointing into ``/src``, which this machine does not have (protobuf's step would fail at once
  on ``ln -s``: "File exists"; seen on a real 1.15.5 tree switched from the container to an
  Android ``--local`` build).

:func:`check_prerequisites` returns every outcome as data (``--dry-run`` prints them all);
:func:`require_prerequisites` raises the first failure's own error, with the others as notes.
"""

from __future__ import annotations

import os
import platform
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tfbuild.errors import ConfigError, SourceTreeError, TfbuildError, ToolchainError
from tfbuild.pipeline.declarations.options import BuildOptions
from tfbuild.pipeline.flavours.layout import CONTAINER_SRC
from tfbuild.pipeline.flavours.makefile import DOWNLOAD_STEP, DOWNLOADS, MAKEFILE
from tfbuild.pipeline.planning.plan import BuildPlan, ImageSpec, Step
from tfbuild.toolchain.android_ndk import FIND_HINT, inspect_ndk
from tfbuild.toolchain.debian_packages import install_hint
from tfbuild.toolchain.targets import TargetProfile
from tfbuild.tree.work_branch import WORK_BRANCH, check_can_commit

MAKE_COMPILER_VARIABLES = ("CC_PREFIX", "CC", "CXX", "AR")
"""Make variables that name programs (``CC_PREFIX`` may be ``ccache``)."""
DOWNLOADED = ("eigen", "nsync", "protobuf/autogen.sh")
"""What every TF 1.x-2.0 ``download_dependencies.sh`` puts in ``downloads/`` and the steps after
it read first: Eigen (every TensorFlow source), nsync (``compile_nsync.sh``) and protobuf's
``autogen.sh`` (what ``compile_linux_protobuf.sh`` checks for)."""
CONTRIB_MAKEFILE_CXX = "gcc"
"""The contrib Makefile's compiler when no ``CXX`` is given (``CXX := $(CC_PREFIX) gcc``)."""


@dataclass(frozen=True)
class Prerequisite:
    """One thing the build needs, and whether it is there (``error`` None) or why not."""

    what: str
    detail: str = ""
    error: TfbuildError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def line(self) -> str:
        if self.error is None:
            return f"ok       {self.what}" + (f": {self.detail}" if self.detail else "")
        return f"MISSING  {self.error.one_line()}"


def check_prerequisites(
    plan: BuildPlan,
    profile: TargetProfile,
    options: BuildOptions,
    *,
    host_tools: Sequence[str] = (),
    commit_in: Path | None = None,
    commit_paths: Sequence[str] = (),
) -> tuple[Prerequisite, ...]:
    """Every prerequisite of running ``plan``; reads and probes, changes nothing.

    ``host_tools``: programs run on this machine before the plan (an op library's host build);
    ``commit_in``: the tree the build will commit in, when it will; ``commit_paths``: the
    repository paths it will write there (their directories must be writable).
    """
    found: list[Prerequisite] = []
    if "xcode" in profile.requires:
        found.append(_xcode(profile))
    found += (_program(tool, "runs on this machine before the build", os.environ) for tool in host_tools)
    if plan.image is not None:
        found += _container(plan.image)
        if options.source is not None:
            found += _links_the_container_sees(options.source, plan.link_dirs)
    elif "xcode" not in profile.requires:
        found += _local_programs(plan, checked=frozenset(host_tools))
        if options.source is not None:
            found += _links_this_machine_sees(options.source, plan.link_dirs)
    if options.source is not None and any(step.name == DOWNLOAD_STEP for step in plan.steps):
        found += _downloads_filled(options.source)
    found += _android_dirs(plan, profile, options)
    if commit_in is not None:
        found.append(_committable(commit_in, commit_paths))
    found += _unwritable_output(options.output_dir)
    return tuple(found)


def _downloads_filled(tree: Path) -> list[Prerequisite]:
    """``downloads/`` when it is there but lacks what the steps after the (skipped) download read
    first (:data:`DOWNLOADED`); nothing when it is not there (the build's first step fills it)."""
    downloads = tree / DOWNLOADS
    if not downloads.is_dir():
        return []
    missing = [name for name in DOWNLOADED if _empty(downloads / name)]
    if not missing:
        return []
    return [Prerequisite(f"{DOWNLOADS}", error=SourceTreeError(
        f"{downloads}: there, so the build skips download_dependencies.sh, but it has no {', '.join(missing)} "
        "(a download that failed or was stopped)",
        hint=f"remove it and the build downloads again (rm -r {downloads}), or fill it as the tree's "
             "download_dependencies.sh does",
    ))]


def _empty(path: Path) -> bool:
    """Not there, or an empty directory."""
    return not path.exists() or (path.is_dir() and not any(path.iterdir()))


def _unwritable_output(output_dir: Path) -> list[Prerequisite]:
    """The output directory, when no file can be written there (it is a file, or lies under
    one): the build would stop at its first output (exit 2), so the dry run says so too."""
    from tfbuild.errors import OutputPathError, OutputWriteError

    out = Path(output_dir)
    problem = None
    writes_in: Path | None
    if out.exists():
        problem = None if out.is_dir() else f"{out}: is a file, not a directory"
        writes_in = out
    else:
        parent = next((parent for parent in out.parents if parent.exists()), None)
        if parent is not None and not parent.is_dir():
            problem = f"{out}: {parent} is a file, not a directory"
        writes_in = parent
    if problem is not None:
        return [Prerequisite(f"output directory {out}",
                             error=OutputPathError(problem, hint="give a directory for --out"))]
    if writes_in is not None and not os.access(writes_in, os.W_OK):  # a read-only directory or mount
        where = "" if writes_in == out else f" ({writes_in} is where it would be made)"
        return [Prerequisite(f"output directory {out}", error=OutputWriteError(
            f"{out}: cannot be written{where}: Permission denied",
            hint="give --out a directory you can write (the default is under the current directory)"))]
    return []


def require_prerequisites(prerequisites: Sequence[Prerequisite]) -> None:
    """Raise the first missing prerequisite's error (its own kind and exit code); the other
    missing ones ride along as notes, so one run names everything to fix."""
    missing = [p for p in prerequisites if p.error is not None]
    if not missing:
        return
    first = missing[0].error
    assert first is not None
    for other in missing[1:]:
        assert other.error is not None
        text = other.error.one_line()
        # An error that names what is missing says it once (``libtoolize: not found ...``).
        first.add_note(f"also missing: {text if text.startswith(other.what) else f'{other.what}: {text}'}")
    raise first


def check_xcode(profile: TargetProfile) -> None:
    """Raise unless this machine can run ``profile``'s Xcode build (checked first of all: no
    analysis is worth running for a build that cannot start here)."""
    error = _xcode(profile).error
    if error is not None:
        raise error


def _xcode(profile: TargetProfile) -> Prerequisite:
    if platform.system() == "Darwin" and shutil.which("xcrun") is not None:
        return Prerequisite("Xcode", "xcrun found")
    return Prerequisite(
        "Xcode",
        error=ToolchainError(
            f"{profile.name} builds with Xcode, which needs macOS; this machine cannot run the build",
            hint="run it on a Mac with Xcode, or add --dry-run to see the plan",
        ),
    )


def _container(image: ImageSpec) -> list[Prerequisite]:
    """The engine, and the image or what it is built from (the docker SDK: only here)."""
    from docker.errors import DockerException

    from tfbuild.toolchain.base_image import make_base_command
    from tfbuild.toolchain.engine import DAEMON_HINT, docker_client, image_exists

    try:
        client = docker_client()
    except ToolchainError as unreachable:
        return [Prerequisite("Docker engine", error=unreachable)]
    engine = Prerequisite("Docker engine", "reachable")
    what = f"toolchain image {image.tag}"
    base = image.build_args.get("BASE_IMAGE")
    try:
        present = image_exists(client, image.tag)
        base_present = present or not base or image_exists(client, base)
    except DockerException as failed:
        error = ToolchainError(f"the Docker engine could not tell whether {image.tag} exists: {failed}",
                               hint=DAEMON_HINT)
        return [engine, Prerequisite(what, error=error)]
    if present:
        return [engine, Prerequisite(what, "present")]
    if not base_present:
        error = ToolchainError(
            f"{image.tag} is not built, and its base image {base} (BASE_IMAGE of docker/{image.dockerfile}) "
            "does not exist",
            hint=f"make the base with '{make_base_command(base or '')}' (needs root and a Debian mirror),"
            " or build with --local",
        )
        return [engine, Prerequisite(what, error=error)]
    return [engine, Prerequisite(what, f"not built yet; the build first builds it from docker/{image.dockerfile}")]


def _local_programs(plan: BuildPlan, *, checked: frozenset[str]) -> list[Prerequisite]:
    """Each program the steps of a ``--local`` plan start, once, with the first step needing it
    (``checked``: programs already looked up)."""
    seen: dict[str, Step] = {}
    made: set[str] = set()
    for step in plan.steps:
        if step.skip_if_exists is not None and Path(step.skip_if_exists).exists():
            continue  # done by an earlier build: it will not run
        if step.host_action is not None:
            continue  # tfbuild does it itself
        for program in _programs_of(step):
            if program not in checked and program not in made:
                seen.setdefault(program, step)
        made.update(str(path) for path in step.makes)
    return [
        _program(program, f"step '{step.name}'", {**os.environ, **plan.env, **step.env}, workdir=Path(step.workdir))
        for program, step in seen.items()
    ]


def _programs_of(step: Step) -> Iterator[str]:
    """The step's command, and for a ``make`` of the contrib Makefile the compilers it is told
    to use (or its default); for ``MAKEFLAGS`` in the step's environment, those it names."""
    yield step.argv[0]
    yield from step.programs
    if Path(step.argv[0]).name == "make":
        variables = _assignments(arg for arg in step.argv[1:] if not arg.startswith("-"))
        if MAKEFILE in step.argv and "CXX" not in variables:
            variables["CXX"] = f"{variables.get('CC_PREFIX', '')} {CONTRIB_MAKEFILE_CXX}"
        yield from _programs_in(variables)
    if "MAKEFLAGS" in step.env:
        yield from _programs_in(_assignments(step.env["MAKEFLAGS"].split()))


def _assignments(arguments: Iterable[str]) -> dict[str, str]:
    found = {}
    for argument in arguments:
        name, equals, value = argument.partition("=")
        if equals and name.isidentifier():
            found[name] = value
    return found


def _programs_in(variables: Mapping[str, str]) -> Iterator[str]:
    for name in MAKE_COMPILER_VARIABLES:
        for word in variables.get(name, "").split():
            if not word.startswith("-") and "=" not in word:
                yield word


def _program(program: str, needed_by: str, env: Mapping[str, str], *, workdir: Path | None = None) -> Prerequisite:
    """``program`` on ``env``'s PATH, or as a path (relative ones from ``workdir``)."""
    if "/" in program:
        path = Path(program) if workdir is None else workdir / program
        if path.is_file() and os.access(path, os.X_OK):
            return Prerequisite(program, str(path))
        return Prerequisite(
            program,
            error=ToolchainError(
                f"{path}: not found or not executable ({needed_by})",
                hint="is --source a complete TensorFlow checkout?" if not Path(program).is_absolute() else
                "check the path the target's toolchain names",
            ),
        )
    found = shutil.which(program, path=env.get("PATH"))
    if found is not None:
        return Prerequisite(program, found)
    return Prerequisite(
        program,
        error=ToolchainError(
            f"{program}: not found on this machine ({needed_by})",
            hint=install_hint(program),
        ),
    )


def _android_dirs(plan: BuildPlan, profile: TargetProfile, options: BuildOptions) -> list[Prerequisite]:
    """The NDK (what it is, and where its path was given) and SDK directories the plan uses
    (planning refused missing ones)."""
    android = options.android
    found = []
    if "ndk" in profile.requires:
        found.append(_android_ndk(android.ndk, android.ndk_origin or "--ndk"))
    if plan.android_sdk is not None:
        sdk, origin = plan.android_sdk, android.sdk_origin or "--sdk"
        if sdk is not None and sdk.is_dir():
            found.append(Prerequisite("Android SDK", f"{sdk} (from {origin})"))
        else:
            found.append(Prerequisite("Android SDK", error=ConfigError(
                f"{sdk}: Android SDK directory not found (from {origin})", hint="pass --sdk DIR")))
    return found


def _android_ndk(path: Path | None, origin: str) -> Prerequisite:
    if path is None:
        return Prerequisite("Android NDK", error=ConfigError("no Android NDK given", hint=FIND_HINT))
    try:
        ndk = inspect_ndk(path, origin=origin)
    except ConfigError as error:
        return Prerequisite("Android NDK", error=error)
    return Prerequisite("Android NDK", f"{ndk.where}: {ndk.summary()}")


def _links_in(tree: Path, directories: tuple[str, ...]) -> Iterator[Path]:
    """The links with an absolute target in ``directories`` of ``tree`` (those that exist)."""
    for directory in (tree / relative for relative in directories):
        for link in sorted(directory.iterdir()) if directory.is_dir() else ():
            if link.is_symlink() and os.path.isabs(os.readlink(link)):
                yield link


def _links_the_container_sees(tree: Path, directories: tuple[str, ...]) -> list[Prerequisite]:
    """Links in ``directories`` of ``tree`` to absolute paths of this machine: in the container,
    which mounts the tree at ``/src``, they lead nowhere."""
    found = []
    for link in _links_in(tree, directories):
        target = os.readlink(link)
        if Path(target).is_relative_to(CONTAINER_SRC):
            continue  # made in the container (the script ran there): the container follows it
        where = link.relative_to(tree)
        inside = Path(target).is_relative_to(tree)
        fix = f"ln -sfn {os.path.relpath(target, link.parent)} {link}" if inside else f"rm {link}"
        found.append(Prerequisite(
            f"{where} in the container",
            error=SourceTreeError(
                f"{link}: links to {target}, a path of this machine the toolchain container does not have "
                "(it mounts the tree elsewhere)",
                hint=f"make the link relative: {fix}" if inside else f"remove it and rebuild protobuf: {fix}",
            ),
        ))
    return found


def _links_this_machine_sees(tree: Path, directories: tuple[str, ...]) -> list[Prerequisite]:
    """Links in ``directories`` of ``tree`` (the Makefile's ``gen/``) that a container build made
    into ``/src``: on this machine they lead nowhere. The fix names the same place in the tree,
    relative."""
    found = []
    for link in _links_in(tree, directories):
        target = os.readlink(link)
        if not Path(target).is_relative_to(CONTAINER_SRC):
            continue
        here = tree / Path(target).relative_to(CONTAINER_SRC)
        found.append(Prerequisite(
            f"{link.relative_to(tree)} on this machine",
            error=SourceTreeError(
                f"{link}: links to {target}, a path of the toolchain container (a container build made it), "
                "which this machine does not have",
                hint=f"make the link relative: ln -sfn {os.path.relpath(here, link.parent)} {link}",
            ),
        ))
    return found


def _committable(root: Path, paths: Sequence[str]) -> Prerequisite:
    """The tree can take the build's commit: a clean checkout, on the work branch or without
    one, where ``paths`` (and the commit) can be written."""
    what = f"source tree {root} can take the commit on {WORK_BRANCH}"
    try:
        state = check_can_commit(root, paths)
    except SourceTreeError as error:
        return Prerequisite(what, error=error)
    where = state.branch or f"detached at {state.commit[:12]}"
    return Prerequisite(what, f"clean, on {where}")
