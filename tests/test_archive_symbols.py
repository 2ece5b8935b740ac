"""The undefined references of a real static archive, compiled and archived here with g++ and ar:
strong and weak told apart, and what one member defines not counted as needed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing_part

from tfbuild.toolchain.archive_symbols import undefined_references

pytestmark = pytest.mark.compiler

MEMBERS = {
    "uses.c": """
        extern int strong_needed(void);
        extern int weak_needed(void) __attribute__((weak));
        extern int defined_elsewhere_in_archive(void);
        int uses(void) { return strong_needed() + (weak_needed ? weak_needed() : 0) + defined_elsewhere_in_archive(); }
    """,
    "defines.c": "int defined_elsewhere_in_archive(void) { return 1; }\n",
    # A member with a name longer than 15 characters: GNU ar's long-name table comes first.
    "a_member_with_a_long_name.c": "int long_named_member(void) { return 2; }\n",
}


def _archive(tmp_path: Path) -> Path:
    if shutil.which("gcc") is None or shutil.which("ar") is None:
        missing_part("gcc or ar not installed (apt-get install g++)")
    objects = []
    for name, text in MEMBERS.items():
        source = tmp_path / name
        source.write_text(text)
        subprocess.run(["gcc", "-c", "-fPIC", str(source), "-o", str(source.with_suffix(".o"))], check=True)
        objects.append(str(source.with_suffix(".o")))
    archive = tmp_path / "libtest.a"
    subprocess.run(["ar", "rcs", str(archive), *objects], check=True)
    return archive


def test_strong_and_weak_references_are_told_apart(tmp_path):
    references = undefined_references(_archive(tmp_path))
    assert references["strong_needed"] == "strong"
    assert references["weak_needed"] == "weak"
    assert "defined_elsewhere_in_archive" not in references
    assert "uses" not in references


def test_a_file_that_is_not_an_archive_is_refused(tmp_path):
    path = tmp_path / "libfake.a"
    path.write_text("not an archive\n")
    with pytest.raises(ValueError, match="libfake.a: not an ar archive"):
        undefined_references(path)
