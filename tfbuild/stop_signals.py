"""SIGTERM and SIGHUP stop tfbuild as Ctrl-C does, and no stop lands half-way through a change
to the user's tree.

A CI cancel sends SIGTERM to tfbuild's pid alone; a closed terminal sends SIGHUP. Python's
default for both ends the process on the spot, with no ``finally`` run: the build's ``make``
(in a process group of its own, so that a terminal's Ctrl-C reaches tfbuild alone) kept
compiling in the tree after tfbuild and its lock were gone, and an edit stopped between ``git
checkout -b`` and ``git commit`` left the work branch checked out with no commit and a
temporary file beside ``tf_op_files.txt``.

:func:`handle_stop_signals` turns both into :class:`Stopped`, a :class:`KeyboardInterrupt`,
so every path that cleans up after Ctrl-C runs for them too (the steps' process groups killed,
the notes on what the tree holds and the one command that undoes it). Its exit code is the
shell's, 128 + the signal: 143 for SIGTERM, 129 for SIGHUP, 130 for SIGINT. :func:`deferred`
holds any of the three back until a short change to the tree (a commit with its branch switch,
a revert, an atomic write) is complete, so the tree is always as it was before the change or
after it, never between.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from tfbuild.errors import SIGNAL_EXIT_BASE

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_pending: list[int] = []
_raised: list[Stopped] = []
_depth = [0]
"""How many :func:`deferred` sections the main thread is in (a list: changed in place)."""


class Stopped(KeyboardInterrupt):
    """tfbuild was told to stop by ``signum`` (SIGINT, SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's code for a process a signal ended: 128 + its number."""
        return SIGNAL_EXIT_BASE + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def exit_code(stop: BaseException | None) -> int:
    """The exit code of a run that ``stop`` ended: a plain :class:`KeyboardInterrupt` is Ctrl-C's 130."""
    return stop.exit_code if isinstance(stop, Stopped) else SIGNAL_EXIT_BASE + signal.SIGINT


def _on_signal(signum: int, frame: FrameType | None) -> None:
    del frame
    if _depth[0]:
        if not _pending:
            _pending.append(signum)
        return
    raise _stopped(signum)


def _stopped(signum: int) -> Stopped:
    stop = Stopped(signum)
    _raised[:] = [stop]
    return stop


def last_stop() -> Stopped | None:
    """The last :class:`Stopped` raised, for a caller that sees only what became of it (click
    turns a KeyboardInterrupt while it parses options into a silent exit 130)."""
    return _raised[0] if _raised else None


@contextlib.contextmanager
def handle_stop_signals() -> Iterator[None]:
    """While inside, SIGINT, SIGTERM and SIGHUP raise :class:`Stopped` in the main thread.

    A signal whose handling someone else chose is left alone: one ignored when tfbuild started
    (``nohup`` ignores SIGHUP, a background job's shell SIGINT) stays ignored, and a SIGINT
    handler other than Python's own (a test runner's) stays. The previous handlers come back
    on leaving."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    _raised.clear()
    for signum in STOP_SIGNALS:
        current = signal.getsignal(signum)
        ours = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
        if current is ours:
            previous[signum] = signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold a stop signal that arrives inside back until the outermost ``deferred`` is left,
    then raise it (:class:`Stopped`), also over an error raised inside: the user asked to stop.
    Only the main thread, where Python runs signal handlers, defers; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if not _depth[0] and _pending:
            signum = _pending.pop()
            _pending.clear()
            raise _stopped(signum)
