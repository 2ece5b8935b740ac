"""An older TensorFlow, in a venv of its own, as an oracle for what tfbuild reads from a registry.

scripts/install-oracle-tensorflow.sh installs ``tensorflow-cpu`` (:data:`ORACLE_VERSION`) in
tfbuild's cache. tfbuild is not installed there: :func:`oracle_registry` runs this checkout's
:mod:`tfbuild.model.registry_dump` in it with ``PYTHONPATH`` set to the repository, and
:func:`oracle_header` runs TensorFlow's own ``print_selective_registration_header``. Comparing
those with tfbuild's answers checks, on a TensorFlow other than the one tfbuild runs with, that
the data and the selection rules carry over.

Where the venv is missing a test is skipped on a developer's machine and fails in CI
(``CI=true``), which runs the install script, like conftest.py does for a missing tool.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from conftest import missing_part
from tfbuild_testing import MACHINE_CACHE

REPO_ROOT = Path(__file__).resolve().parent.parent
INSTALL_SCRIPT = REPO_ROOT / "scripts" / "install-oracle-tensorflow.sh"


def _script_default_version() -> str:
    found = re.search(r"ORACLE_TENSORFLOW_VERSION:-([^}]+)}", INSTALL_SCRIPT.read_text(encoding="utf-8"))
    assert found, f"no default version in {INSTALL_SCRIPT}"
    return found.group(1)


ORACLE_VERSION = os.environ.get("ORACLE_TENSORFLOW_VERSION") or _script_default_version()
"""The version the install script installs: its default (the smallest wheel for Python 3.11 but
one; see there) unless ``$ORACLE_TENSORFLOW_VERSION`` chooses another, for both."""

_INSTALLED_MARKER = ".tfbuild-oracle-installed"
"""Written by the install script once the venv is complete."""


_REGISTRIES: dict[Path, dict[str, Any]] = {}


def oracle_venv() -> Path:
    """Where scripts/install-oracle-tensorflow.sh puts the venv (whether or not it is there)."""
    return MACHINE_CACHE / f"oracle-tensorflow-{ORACLE_VERSION}"


def oracle_python() -> Path:
    """The oracle venv's python; skips the test when it is not installed (fails it in CI)."""
    venv = oracle_venv()
    python = venv / "bin" / "python"
    if not (venv / _INSTALLED_MARKER).is_file() or not python.exists():
        message = (f"TensorFlow {ORACLE_VERSION} oracle venv missing at {venv}: "
                   f"run 'bash scripts/install-oracle-tensorflow.sh'")
        missing_part(message)
    return python


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run in the oracle venv: nothing of this process's Python leaks in but ``env``."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    environ.update(TF_CPP_MIN_LOG_LEVEL="2", PYTHONNOUSERSITE="1", **env)
    child = subprocess.run(command, cwd=cwd, env=environ, capture_output=True, text=True, check=False)
    if child.returncode != 0:
        pytest.fail(f"{' '.join(command)} exited with {child.returncode}:\n{child.stderr[-4000:]}", pytrace=False)
    return child


def oracle_registry(tmp_path: Path) -> dict[str, Any]:
    """The oracle TensorFlow's registry document, as :mod:`tfbuild.model.registry_dump` writes it
    (load it with ``KernelRegistry(document)``). Dumped once per session (two seconds); each
    call gets its own copy."""
    python = oracle_python()
    if python not in _REGISTRIES:
        out = tmp_path / f"oracle-registry-{ORACLE_VERSION}.json"
        _run([str(python), "-m", "tfbuild.model.registry_dump", str(out)], tmp_path, PYTHONPATH=str(REPO_ROOT))
        document = json.loads(out.read_text(encoding="utf-8"))
        assert document["tensorflow_version"] == ORACLE_VERSION, document["tensorflow_version"]
        _REGISTRIES[python] = document
    return copy.deepcopy(_REGISTRIES[python])


def oracle_header(
    graphs: Iterable[Path | str],
    tmp_path: Path,
    *,
    proto_fileformat: str = "rawproto",
    default_ops: str | None = None,
) -> str:
    """What the oracle TensorFlow's ``print_selective_registration_header`` prints for
    ``graphs`` (its ``--graphs``, ``--proto_fileformat`` and, unless None, ``--default_ops``)."""
    python = oracle_python()
    command = [str(python), "-m", "tensorflow.python.tools.print_selective_registration_header",
               "--graphs=" + ",".join(str(Path(g).resolve()) for g in graphs),
               f"--proto_fileformat={proto_fileformat}"]
    if default_ops is not None:
        command.append(f"--default_ops={default_ops}")
    return _run(command, tmp_path).stdout
