"""CLI commands for the analysis step; filled in by its issue."""

from __future__ import annotations

from tfbuild.cli import app  # noqa: F401
