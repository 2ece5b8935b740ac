"""The README's exit-code table says what ``tfbuild/errors.py`` and the stop signals do: every
code a run can end with is in the table, and the table has no code no run ends with."""

from __future__ import annotations

import re
from pathlib import Path

from tfbuild import errors
from tfbuild.stop_signals import STOP_SIGNALS

README = Path(__file__).resolve().parent.parent / "README.md"


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def readme_codes() -> dict[int, str]:
    text = README.read_text(encoding="utf-8")
    table = text.split("### Exit codes", 1)[1].split("\n\n`", 1)[0]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", table, flags=re.M)
    assert rows, "no exit-code table under '### Exit codes' in README.md"
    return {int(code): meaning for code, meaning in rows}


def test_readme_exit_codes_are_the_codes_errors_py_defines():
    defined = {0, errors.TfbuildError.exit_code, errors.USAGE_EXIT_CODE, errors.INTERNAL_ERROR_EXIT_CODE}
    defined |= {cls.exit_code for cls in _subclasses(errors.TfbuildError)}
    defined |= {errors.SIGNAL_EXIT_BASE + int(signum) for signum in STOP_SIGNALS}
    assert set(readme_codes()) == defined


def test_the_table_names_each_signal_by_its_code():
    codes = readme_codes()
    for signum in STOP_SIGNALS:
        name = "Ctrl-C" if signum.name == "SIGINT" else signum.name
        assert name in codes[errors.SIGNAL_EXIT_BASE + int(signum)], (signum.name, codes)
