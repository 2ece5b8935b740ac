"""``import tensorflow`` without its C++ start-up lines reaching the user.

Importing TensorFlow prints, from C++ straight to file descriptor 2, lines such as "WARNING: All
log messages before absl::InitializeLog() is called are written to STDERR" and "Could not find
cuda drivers on your machine". They say nothing about the user's model and bury tfbuild's own
one-line errors in a CI log. :func:`import_tensorflow` points descriptor 2 at a temporary file
for the length of the import: what was written there is dropped when the import works, and
replayed to stderr when it fails (then it is the explanation). With ``-v``
(:func:`tfbuild.log.set_level`) nothing is hidden. Python's own warnings and errors are not affected:
they are raised or printed after descriptor 2 is back.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Iterator
from types import ModuleType

from tfbuild.log import verbose


def import_tensorflow() -> ModuleType:
    """The ``tensorflow`` module, imported quietly the first time."""
    if "tensorflow" in sys.modules or verbose():
        return importlib.import_module("tensorflow")
    with quiet_stderr():
        return importlib.import_module("tensorflow")


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Descriptor 2 into a temporary file while the body runs; replayed if the body raises."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2 at all: nothing to hide
        yield
        return
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield
        except BaseException:
            _restore(saved)
            captured.seek(0)
            with contextlib.suppress(OSError):
                os.write(2, captured.read())
            raise
        else:
            _restore(saved)


def _restore(saved: int) -> None:
    with contextlib.suppress(ValueError, OSError):
        sys.stderr.flush()
    os.dup2(saved, 2)
    os.close(saved)
