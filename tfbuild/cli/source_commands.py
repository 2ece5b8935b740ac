"""CLI commands for the source step; filled in by its issue."""

from __future__ import annotations

from tfbuild.cli import app  # noqa: F401
