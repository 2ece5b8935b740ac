"""One timer that kills a command that runs too long, shared by every place tfbuild runs one
(build steps on the host, in a container, and the op-library compiler)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType


class KillTimer:
    """Calls ``kill`` once after ``seconds`` unless cancelled, and remembers whether it fired.

    ``seconds=None`` never fires, so callers need no branch for "no limit". Use it as a context
    manager so the timer is cancelled however the command ends.
    """

    def __init__(self, seconds: float | None, kill: Callable[[], None]) -> None:
        self.fired = False
        self._kill = kill
        self._timer: threading.Timer | None = None
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        self._kill()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def __enter__(self) -> KillTimer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.cancel()
