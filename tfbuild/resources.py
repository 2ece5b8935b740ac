"""Where tfbuild's data directories are: the repository's top level, or inside an installed wheel.

The repository keeps ``templates/``, ``toolchains/``, ``docker/`` and ``examples/`` at its top
level (DEVELOPERS.md); a wheel carries them under ``tfbuild/_data/``. Everything that reads them
asks this module, so the two layouts never leak into the rest of the code.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_ROOT = _PACKAGE_DIR.parent


def data_path(name: str) -> Path:
    """Path of a top-level data entry (``templates``, ``toolchains``, ``docker``, ``examples``,
    ``WORKSPACE.append.tmpl``), preferring the installed copy."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.exists():
        return installed
    return _REPO_ROOT / name


def templates_dir() -> Path:
    return data_path("templates")


def toolchains_dir() -> Path:
    return data_path("toolchains")


def docker_dir() -> Path:
    return data_path("docker")


def examples_dir() -> Path:
    return data_path("examples")
