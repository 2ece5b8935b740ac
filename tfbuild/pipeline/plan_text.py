"""A build plan as text: what ``tfbuild build --dry-run`` prints and the golden files hold.

Every command is shown as a shell would need it typed (``shlex`` quoting) although the executor
never runs a shell; an argument that is itself a script is shown below its command instead of
as one long quoted line. Nothing machine-specific is invented here: golden tests replace the
temporary paths and digests themselves (:func:`normalize`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tfbuild.pipeline.flavours.per_file_selection import SELECTION_DIR
from tfbuild.pipeline.planning.plan import AppliedSizeProfile, BuildPlan, Mount, Note, Step
from tfbuild.templating import render


@dataclass(frozen=True)
class _StepView:
    name: str
    workdir: str
    command: str
    skip: str | None
    scripts: tuple[tuple[str, tuple[str, ...], str | None], ...]
    """(name, lines, where it was shown already): a script an earlier step runs too is named,
    not printed again."""
    notes: tuple[str, ...] = ()


def plan_text(plan: BuildPlan, *, notes: Iterable[str | Note] = ()) -> str:
    return render(
        "plan.txt.j2",
        target=plan.target,
        flavour=plan.flavour,
        image=_image(plan),
        output_dir=str(plan.output_dir),
        mounts=tuple(_mount(mount) for mount in plan.mounts),
        env=(*(f"{key}={value}" for key, value in sorted(plan.env.items())),
             *(f"{key}=(the remote cache URL, not shown)" for key in sorted(plan.secret_env))),
        generated=_generated(plan),
        steps=_steps(plan.steps),
        artifacts=tuple(f"{a.name} ({a.kind}) <- {a.path}" for a in plan.artifacts),
        fixups=_fixups(plan),
        size_profile=_size_profile(plan.size_profile),
        notes=(*plan.notes, *notes),
    )


def _fixups(plan: BuildPlan) -> tuple[str, ...]:
    """Each applied fix-up once, with every step it went into (nsync's host and target builds)."""
    steps: dict[tuple[str, str], list[str]] = {}
    for fix in plan.fixups:
        steps.setdefault((fix.name, fix.why), []).append(fix.step)
    return tuple(
        f"{name} (in step{'s' if len(names) > 1 else ''} {', '.join(repr(step) for step in names)}): {why}"
        for (name, why), names in steps.items()
    )


def _generated(plan: BuildPlan) -> tuple[str, ...]:
    """The files written before the build; per-file selection headers as one line."""
    shown, selection = [], []
    for file in plan.generated_files:
        if SELECTION_DIR in file.path.parts:
            selection.append(file)
        else:
            shown.append(f"{file.path} ({len(file.content.splitlines())} lines)")
    if selection:
        root = Path(*selection[0].path.parts[: selection[0].path.parts.index(SELECTION_DIR) + 1])
        headers = sum(1 for file in selection if file.path.suffix == ".h")
        others = ", ".join(file.path.name for file in selection if file.path.suffix != ".h")
        shown.append(f"{root}/ ({headers} per-file selection headers{', ' + others if others else ''})")
    return tuple(shown)


def _image(plan: BuildPlan) -> str:
    if plan.image is None:
        return "none: the steps run on this machine"
    args = ", ".join(f"{key}={value}" for key, value in sorted(plan.image.build_args.items()))
    shown = f"{plan.image.tag} (docker/{plan.image.dockerfile}; {args})"
    if plan.image.base_source:
        shown += f"\n  base chosen by: {plan.image.base_source}"
    return shown


def _size_profile(size: AppliedSizeProfile | None) -> dict[str, object] | None:
    """The size profile's section of the plan: its flags, hot kernel sources and notes; none
    for a profile that adds nothing (``stock``), whose plan is the tree's own build."""
    if size is None or not size.adds_flags:
        return None
    lines = [f"every object: {' '.join(size.cflags)}"] if size.cflags else []
    if size.hot_files:
        lines.append(f"hot kernels, {len(size.hot_files)} file(s), then {' '.join(size.hot_cflags)}:")
        lines += [f"  {source}" for source in size.hot_files]
    if size.ldflags:
        lines.append(f"link: {' '.join(size.ldflags)}")
    lines += [f"note: {note}" for note in size.notes]
    return {"title": f"{size.name} ({size.description})", "lines": tuple(lines)}


def _mount(mount: Mount) -> str:
    origin = f"volume {mount.volume}" if mount.volume is not None else str(mount.source)
    return f"{mount.target} <- {origin}{' (read-only)' if mount.read_only else ''}"


def _steps(steps: Iterable[Step]) -> tuple[_StepView, ...]:
    """Each step's view, numbered from 1; a script is printed once, where it first runs."""
    seen: dict[str, str] = {}
    return tuple(_step(step, number, seen) for number, step in enumerate(steps, start=1))


def _step(step: Step, number: int = 1, seen: dict[str, str] | None = None) -> _StepView:
    """``step`` as the plan shows it (the step ``number``); ``seen``: the scripts shown by the
    steps before it, by text, each with where (``step 6's SCRIPT1``), updated here."""
    seen = {} if seen is None else seen
    scripts: list[tuple[str, tuple[str, ...], str | None]] = []
    shown: list[str] = []
    for argument in step.argv:
        if "\n" in argument:
            name = f"SCRIPT{len(scripts) + 1}"
            earlier = seen.setdefault(argument, f"step {number}'s {name}")
            repeated = earlier if earlier != f"step {number}'s {name}" else None
            scripts.append((name, () if repeated else tuple(argument.rstrip("\n").splitlines()), repeated))
            shown.append(f'"${name}"')
        else:
            shown.append(shlex.quote(argument))
    env = " ".join(f"{key}={shlex.quote(value)}" for key, value in step.env.items())
    command = f"{env} {' '.join(shown)}" if env else " ".join(shown)
    return _StepView(
        name=step.name,
        workdir=str(step.workdir),
        command=command,
        skip=str(step.skip_if_exists) if step.skip_if_exists is not None else None,
        scripts=tuple(scripts),
        notes=step.notes,
    )


def normalize(text: str, replacements: Mapping[str, str]) -> str:
    """``text`` with machine-specific strings replaced (longest first) and image and flag digests
    masked (a flag digest covers paths), for comparing plans made on different machines or days."""
    for old in sorted(replacements, key=len, reverse=True):
        text = text.replace(old, replacements[old])
    text = re.sub(r"(tfbuild-build-flags\.sha256 |\.tfbuild-flags\.sha256 )[0-9a-f]{64}\b", r"\1<flags-digest>", text)
    return re.sub(r"(tfbuild-toolchain:[a-z0-9_.-]+?-)[0-9a-f]{16}\b", r"\1<digest>", text)
