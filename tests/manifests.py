"""Manifests for tests that need a finished build's record without making the build.

A manifest is read strictly (``Manifest.read``: every required section, the types the build
wrote), so a test writes a whole one and replaces only what it is about. Files and artifacts
may be given with their name alone; the rest of their record is filled in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILE_DEFAULTS = {"sha256": "0" * 64, "size": 1}


def manifest_data(out: Path, **fields: Any) -> dict[str, Any]:
    """A schema-1 manifest of a linux-x86_64 Makefile build in ``out``, ``fields`` replaced."""
    data: dict[str, Any] = {
        "target": "linux-x86_64", "flavour": "makefile", "artifacts": [], "models": [],
        "tensorflow": {"version": "1.12.0", "commit": None, "source": str(out), "analysis_version": "2.21.0"},
        "toolchain": None, "header": {"name": "header/ops_to_register.h", **FILE_DEFAULTS},
        "tfbuild_version": "0", "created": "2026-01-01T00:00:00Z", "schema": 1, **fields,
    }
    for section in ("artifacts", "models"):
        data[section] = [{**FILE_DEFAULTS, **record} for record in data[section]]
    return data


def write_manifest(out: Path, **fields: Any) -> Path:
    """Write :func:`manifest_data` to ``out/manifest.json``; returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest_data(out, **fields)))
    return out
