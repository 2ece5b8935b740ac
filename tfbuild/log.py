"""tfbuild's one logger: every step with its start, end and duration, for a person or a CI log.

In the spirit of cibuildwheel's ``logger.py``: a step opens (``==> name``; a ``::group::`` fold
on GitHub Actions), the output that belongs to it follows (prefixed with the step, so lines of
parallel steps stay readable), and it closes with its outcome and how long it took
(``<== name: done in 12.3s``). The build executor logs its plan steps through it, and
``tfbuild build`` its own phases (analysis, tree checks, plan, prerequisites). ``-q``
(:func:`set_level`) keeps the start and end lines only. On a terminal the executor draws
a live line instead of streaming, and a step's end line is printed above it.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

# -- how much tfbuild says: -q (errors, results, step start and end lines), default, -v (also what
# tools print on the side, such as TensorFlow's C++ start-up lines); set once by the CLI's root
# callback, read where output is made. Library callers that never set it get the default.
QUIET, NORMAL, VERBOSE = 0, 1, 2
_setting = {"level": NORMAL}


def set_level(level: int) -> None:
    _setting["level"] = max(QUIET, min(VERBOSE, level))


def level() -> int:
    return _setting["level"]


def quiet() -> bool:
    return level() <= QUIET


def verbose() -> bool:
    return level() >= VERBOSE


def on_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    return (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true"


class Logger:
    """Step lines on ``console`` (None: nothing at all). Safe to call from worker threads."""

    def __init__(self, console: Console | None, *, github: bool | None = None) -> None:
        self.console = console
        self.github = on_github_actions() if github is None else github
        self._lock = threading.Lock()

    @property
    def streams(self) -> bool:
        """Whether output lines are printed as they come (not on a terminal, which shows a live line)."""
        return self.console is not None and not self.console.is_terminal

    def start(self, name: str, *, fold: bool = True) -> None:
        """A step begins: ``==> name``, or a fold that :meth:`end` closes."""
        if self.console is not None and not self.console.is_terminal:
            self._print(f"::group::{name}" if self.github and fold else f"==> {name}")

    def end(self, name: str, outcome: str, seconds: float | None, *, fold: bool = True) -> None:
        """A step ends: ``<== name: outcome in 1.2s`` (the fold closed after it)."""
        if self.console is None:
            return
        took = f" in {seconds:.1f}s" if seconds is not None else ""
        self._print(f"<== {name}{': ' if name else ''}{outcome}{took}")
        if self.github and fold and seconds is not None and not self.console.is_terminal:
            self._print("::endgroup::")

    def line(self, prefix: str, text: str) -> None:
        """One line of a step's output (not with ``-q``; not on a terminal, whose live line shows it)."""
        if self.streams and not quiet():
            self._print(f"{prefix} {text}" if prefix else text)

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Log the body as one step; a failure ends it as ``failed`` and propagates."""
        started = time.monotonic()
        self.start(name)
        try:
            yield
        except BaseException:
            self.end(name, "failed", time.monotonic() - started)
            raise
        self.end(name, "done", time.monotonic() - started)

    def _print(self, text: str) -> None:
        assert self.console is not None
        with self._lock:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
