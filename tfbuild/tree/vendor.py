"""A tree's external repositories laid out from local git mirrors, so Bazel builds with no network.

For each archive the workspace declares (:mod:`tfbuild.tree.external_repos`) the mirror is
found by the archive's GitHub owner and name (``--mirrors DIR`` holds ``OWNER+NAME``,
``OWNER/NAME`` or ``NAME`` clones, bare or not) or named outright (``--mirror NAME=DIR[@REF]``,
for archives GitHub does not serve). Then, in order of trust:

- **repository cache**: a GitHub ``.tar.gz`` of a commit or tag is made again with ``git archive
  --prefix=REPO-REF/ | gzip -n``; when its sha256 is the pin, it goes into Bazel's
  ``--repository_cache`` layout (``content_addressable/sha256/<sha256>/file``), where Bazel
  finds a download by its checksum and never opens the URL. The bytes are the pinned bytes.
- **override**: otherwise (a ``.zip``, a tarball GitHub did not make, bytes that differ) the
  commit's files are laid out as ``tf_http_archive`` would leave them (``strip_prefix`` below
  the top directory, ``patch_file`` applied with ``patch -p1``, ``build_file`` as
  ``BUILD.bazel``) and Bazel is given ``--override_repository=NAME=DIR``. A commit pins the
  files; a tag or an outright mapping does not, and the dry run says which were not checked.
- **missing**: no mirror. Bazel fetches only what the target needs, so a missing repository is
  named, not fatal; the build then fails in Bazel naming the repository if the target needs it.
  A mirror that exists but lacks the pinned commit is an error: the pin is the point.

``vendor.json`` in the output directory records the result; the Bazel flavour reads it
(``--vendor-dir``) and turns it into flags (:meth:`VendorRecord.bazel_flags`). The directory is
made beside its place and put there whole at the end, so a stop (Ctrl-C, SIGTERM, an error)
leaves the earlier vendor directory as it was and no half-laid-out one; a directory that is
neither empty nor a vendor directory is refused, never written into.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from tfbuild.errors import ConfigError, InputFileError, SourceTreeError
from tfbuild.stop_signals import deferred
from tfbuild.tree.external_repos import ExternalRepository, external_repositories, label_path
from tfbuild.tree.mirror_mapping import MirrorMapping

RECORD_NAME = "vendor.json"
LACKING_NAME = "tfbuild-lacking-files.txt"
"""In an overridden repository: the commit's files its mirror does not hold (a partial clone)."""
CACHE_DIR = "repository-cache"
OVERRIDES_DIR = "overrides"
How = Literal["cache", "override", "missing"]


@dataclass(frozen=True)
class Source:
    """Where one repository comes from, decided before anything is written."""

    repository: ExternalRepository
    how: How
    mirror: Path | None = None
    ref: str | None = None
    commit: str | None = None
    note: str = ""
    subdir: str = ""

    def line(self) -> str:
        name = self.repository.name
        if self.how == "missing":
            return f"{name:<40} missing   {self.note}"
        where = f"{self.mirror}@{self.ref}" + (f" ({self.commit[:12]})" if self.commit and self.commit != self.ref
                                                else "")
        return f"{name:<40} {self.how:<9} {where}" + (f"; {self.note}" if self.note else "")


def plan_sources(
    root: Path,
    *,
    mirrors: Path | None,
    mappings: Sequence[MirrorMapping] = (),
    only: Sequence[str] = (),
) -> list[Source]:
    """Where each repository of the tree (or only those named) would come from. Raises when a
    named repository is not declared, or a mirror lacks the pinned commit."""
    if mirrors is not None and not mirrors.is_dir():
        raise InputFileError(f"{mirrors}: not a directory", hint="--mirrors names a directory of git mirrors")
    declared = {repository.name: repository for repository in external_repositories(root)}
    for mapping in mappings:  # declared by another repository's .bzl (bazel_toolchains' git_repository)
        if mapping.name not in declared and mapping.ref is not None:
            declared[mapping.name] = ExternalRepository(mapping.name, "git_repository", (), "", "", None, None,
                                                        "--mirror (declared by another repository)")
    for name in (*only, *(mapping.name for mapping in mappings)):
        if name not in declared:
            raise SourceTreeError(f"{root}: the workspace declares no archive named {name}",
                                  hint=f"'tfbuild vendor --source {root} --dry-run' lists them; a repository "
                                       "another one declares needs --mirror NAME=DIR@REF")
    by_name = {mapping.name: mapping for mapping in mappings}
    index = _mirror_index(mirrors)
    chosen = [declared[name] for name in only] if only else list(declared.values())
    return [_source(repository, by_name.get(repository.name), index) for repository in chosen]


def _mirror_index(mirrors: Path | None) -> dict[str, Path]:
    """``owner/name`` and ``name`` (lower case) -> the git directory, for each mirror in ``mirrors``."""
    index: dict[str, Path] = {}
    if mirrors is None:
        return index
    for entry in sorted(mirrors.iterdir()):
        if not entry.is_dir():
            continue
        nested = [entry / sub for sub in sorted(os.listdir(entry))] if "+" not in entry.name else []
        for candidate in [entry, *nested]:
            git_dir = _git_dir(candidate)
            if git_dir is None:
                continue
            name = candidate.name.removesuffix(".git").lower()
            owner = entry.name.lower() if candidate is not entry else ""
            if "+" in name:
                owner, name = name.split("+", 1)
            if owner:
                index.setdefault(f"{owner}/{name}", git_dir)
            index.setdefault(name, git_dir)
    return index


def _git_dir(path: Path) -> Path | None:
    for candidate in (path / "repo" / ".git", path / "repo", path / ".git", path):
        if candidate.is_dir() and (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _source(repository: ExternalRepository, mapping: MirrorMapping | None, index: Mapping[str, Path]) -> Source:
    github = repository.github
    if repository.build_file and re.match(r"@(?!org_tensorflow//)", repository.build_file):
        return Source(repository, "missing", note=f"its build_file {repository.build_file} is in another repository")
    if mapping is not None:
        git_dir = _git_dir(mapping.mirror)
        if git_dir is None:
            raise InputFileError(f"{mapping.mirror}: not a git repository", hint=f"--mirror {mapping.name}=DIR")
        ref = mapping.ref or (github.ref if github else None)
        if ref is None:
            raise ConfigError(f"--mirror {mapping.name}: {repository.name} is not a GitHub archive; name the commit",
                              hint=f"--mirror {mapping.name}={mapping.mirror}@COMMIT")
        mirror = git_dir
        exact = github is not None and ref == github.ref
    elif github is None:
        return Source(repository, "missing", note=f"no GitHub archive among its URLs ({repository.urls[0]})")
    else:
        found = index.get(f"{github.owner}/{github.repo}".lower()) or index.get(github.repo.lower())
        if found is None:
            return Source(repository, "missing", note=f"no mirror of {github.owner}/{github.repo}")
        mirror, ref, exact = found, github.ref, True
    commit = _commit(mirror, ref)
    if commit is None:
        raise SourceTreeError(
            f"{mirror}: no commit {ref}, the pin of {repository.name} ({repository.declared_at})",
            hint=f"fetch it into the mirror (git -C {mirror} fetch origin {ref})",
        )
    if exact and github is not None and github.extension == "tar.gz" and repository.sha256:
        return Source(repository, "cache", mirror, ref, commit, note="if the remade archive's sha256 is the pin")
    note = "a commit pins the files" if re.fullmatch(r"[0-9a-f]{40}", ref) else "a tag: files not checked"
    if not exact:
        note = ("named outright (--mirror, [vendor] mirror): not checked against the pin" if repository.urls
                else "named outright, declared outside the tree: no pin to check")
    subdir = mapping.subdir if mapping is not None else ""
    return Source(repository, "override", mirror, ref, commit, note=note + (f"; its {subdir}/" if subdir else ""),
                  subdir=subdir)


def _commit(git_dir: Path, ref: str) -> str | None:
    done = _git(git_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    return done.stdout.decode().strip() if done.returncode == 0 else None


def _git(git_dir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=check)


@dataclass(frozen=True)
class VendorRecord:
    """What a vendor directory holds: the repository cache, and the overridden repositories."""

    cached: tuple[str, ...]
    overrides: tuple[str, ...]
    missing: tuple[str, ...]

    def bazel_flags(self, directory: PurePosixPath) -> tuple[str, ...]:
        """Bazel's flags for this directory as the build sees it."""
        return (f"--repository_cache={directory / CACHE_DIR}",
                *(f"--override_repository={name}={directory / OVERRIDES_DIR / name}" for name in self.overrides))

    def to_json(self) -> dict[str, list[str]]:
        return {"cached": list(self.cached), "overrides": list(self.overrides), "missing": list(self.missing)}


def read_record(directory: Path) -> VendorRecord:
    path = directory / RECORD_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return VendorRecord(*(tuple(str(name) for name in data[key]) for key in ("cached", "overrides", "missing")))
    except FileNotFoundError:
        raise InputFileError(f"{path}: not found", hint="make it with 'tfbuild vendor --out DIR'") from None
    except (ValueError, KeyError, TypeError) as error:
        raise InputFileError(f"{path}: not a tfbuild vendor record ({error})") from None


def lay_out(root: Path, sources: Sequence[Source], out: Path) -> tuple[VendorRecord, list[Source]]:
    """Write the repository cache and the overrides for ``sources`` into ``out``, and the record;
    returns it with the sources as laid out (a remade archive whose bytes differ becomes an override).
    An ``out`` that is the tree or inside it, or that holds anything but an earlier vendor
    directory, is refused before anything is written: neither the user's checkout nor their
    files are a place for tfbuild's. ``out`` is laid out beside its place and swapped in whole."""
    tree, where = root.resolve(), out.resolve()
    if where == tree or tree in where.parents:
        raise ConfigError(f"{out}: the vendor directory is inside the source tree {root}",
                          hint="pass --out-dir outside the tree")
    _check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        laid_out = _lay_out_into(root, sources, staging)
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already when the swap happened
    return laid_out


def _check_replaceable(out: Path) -> None:
    """``out`` may be replaced when it is absent, an empty directory or an earlier vendor directory."""
    if not out.exists() and not out.is_symlink():
        return
    if out.is_symlink():
        raise ConfigError(f"{out}: a symbolic link; the vendor directory is replaced whole, and so would the link",
                          hint=f"pass --out-dir the directory it points to ({out.resolve()})")
    if not out.is_dir():
        raise ConfigError(f"{out}: not a directory", hint="pass --out-dir a new or empty directory")
    if (out / RECORD_NAME).is_file() or not any(out.iterdir()):
        return
    raise ConfigError(f"{out}: holds files and no {RECORD_NAME}, so it is not a vendor directory to replace",
                      hint="pass --out-dir a new or empty directory, or an earlier vendor directory")


def _swap_in(staging: Path, out: Path) -> None:
    """Put ``staging`` at ``out``, the earlier vendor directory removed only once the new one is there;
    a stop signal waits until both renames are done."""
    with deferred():
        if out.exists():
            earlier = out.with_name(f".{out.name}.earlier-{os.getpid()}")
            out.rename(earlier)
            staging.rename(out)
        else:
            earlier = None
            staging.rename(out)
    if earlier is not None:
        shutil.rmtree(earlier, ignore_errors=True)


def _lay_out_into(root: Path, sources: Sequence[Source], out: Path) -> tuple[VendorRecord, list[Source]]:
    done: list[Source] = []
    for planned in sources:
        source = planned
        if source.how == "cache" and not _cache_archive(source, out / CACHE_DIR):
            source = Source(source.repository, "override", source.mirror, source.ref, source.commit,
                            note="the remade archive's sha256 is not the pin: files laid out from the commit")
        elif source.how == "cache":
            source = dataclasses.replace(source, note="the remade archive's sha256 is the pin")
        if source.how == "override":
            _override(root, source, out / OVERRIDES_DIR / source.repository.name)
        done.append(source)
    record = VendorRecord(
        cached=tuple(s.repository.name for s in done if s.how == "cache"),
        overrides=tuple(s.repository.name for s in done if s.how == "override"),
        missing=tuple(s.repository.name for s in done if s.how == "missing"),
    )
    (out / RECORD_NAME).write_text(json.dumps(record.to_json(), indent=2) + "\n", encoding="utf-8")
    return record, done


def _cache_archive(source: Source, cache: Path) -> bool:
    """Remake the GitHub archive; store it under its sha256 when that is the pin."""
    github = source.repository.github
    assert github is not None
    assert source.mirror is not None
    assert source.ref is not None
    made = _git(source.mirror, "archive", "--format=tar", f"--prefix={github.top_directory}/", source.ref, check=False)
    if made.returncode != 0:  # a mirror without some of the commit's blobs
        return False
    tar = made.stdout
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(tar)
    data = buffer.getvalue()
    for candidate in (data, _gzip_n(tar)):
        if hashlib.sha256(candidate).hexdigest() == source.repository.sha256:
            target = cache / "content_addressable" / "sha256" / source.repository.sha256 / "file"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(candidate)
            return True
    return False


def _gzip_n(data: bytes) -> bytes:
    """``gzip -n`` (level 6, GitHub's), which Python's gzip does not make byte for byte."""
    if shutil.which("gzip") is None:
        return b""
    return subprocess.run(["gzip", "-n", "-c"], input=data, capture_output=True, check=True).stdout


def _override(root: Path, source: Source, target: Path) -> None:
    """The commit's files as the repository rule would leave them."""
    repository = source.repository
    assert source.mirror is not None
    assert source.ref is not None
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    _, _, below_top = repository.strip_prefix.partition("/")
    inside = "/".join(part for part in (source.subdir, below_top) if part)
    tree_ish = f"{source.ref}:{inside}" if inside else source.ref
    lacking = _extract(source.mirror, tree_ish, target)
    if lacking:
        (target / LACKING_NAME).write_text("".join(f"{path}\n" for path in lacking), encoding="utf-8")
    if repository.patch_file:
        patch = root / label_path(repository.patch_file)
        strip = "-p1" if repository.rule != "http_archive" else "-p0"
        applied = subprocess.run(["patch", strip, "-d", str(target), "-i", str(patch)],
                                 check=False, capture_output=True, text=True)
        if applied.returncode != 0:
            said = (applied.stdout + applied.stderr).strip().splitlines()
            raise SourceTreeError(f"{patch}: does not apply to {repository.name} at {source.ref}",
                                  hint=said[-1] if said else None)
    if repository.build_file:
        shutil.copyfile(root / label_path(repository.build_file), target / "BUILD.bazel")
    if not any((target / name).exists() for name in ("WORKSPACE", "WORKSPACE.bazel")):
        (target / "WORKSPACE").write_text(f'workspace(name = "{repository.name}")\n', encoding="utf-8")


def _extract(git_dir: Path, tree_ish: str, target: Path) -> list[str]:
    """The files of ``tree_ish`` written under ``target``; returns those the mirror lacks (a
    partial clone leaves out large blobs), which are left out."""
    listing = _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", tree_ish, check=False)
    if listing.returncode != 0:
        raise SourceTreeError(f"{git_dir}: cannot list {tree_ish}: {listing.stderr.decode(errors='replace').strip()}")
    entries = []
    for record in listing.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind == "blob":
            entries.append((mode, sha, raw_path.decode("utf-8", errors="surrogateescape")))
    batch = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                           input="".join(f"{sha}\n" for _, sha, _ in entries).encode(), capture_output=True, check=True)
    data, offset, lacking = batch.stdout, 0, []
    for mode, _, path in entries:
        end = data.index(b"\n", offset)
        header = data[offset:end].split()
        offset = end + 1
        if header[-1] == b"missing":
            lacking.append(path)
            continue
        size = int(header[2])
        content = data[offset:offset + size]
        offset += size + 1
        destination = target / path
        if ".." in PurePosixPath(path).parts or PurePosixPath(path).is_absolute():
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            destination.symlink_to(content.decode("utf-8", errors="surrogateescape"))
        else:
            destination.write_bytes(content)
            destination.chmod(0o755 if mode == "100755" else 0o644)
    return lacking
