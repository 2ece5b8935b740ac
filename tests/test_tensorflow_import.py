"""TensorFlow's C++ start-up lines stay off the user's stderr unless ``-v`` asks for them, and
whatever was hidden comes back when the import fails (then it is the explanation)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tfbuild.tensorflow_import import quiet_stderr

QUIET = "from tfbuild.tensorflow_import import import_tensorflow; import_tensorflow()"
VERBOSE = ("from tfbuild import log as verbosity; verbosity.set_level(verbosity.VERBOSE); "
           "from tfbuild.tensorflow_import import import_tensorflow; import_tensorflow()")


def stderr_of(code: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "TF_CPP_MIN_LOG_LEVEL"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr


@pytest.mark.tensorflow
def test_the_import_is_quiet_and_verbose_shows_what_tensorflow_prints():
    """The oracle is a plain ``import tensorflow`` on this machine: whatever it prints (times and
    process ids aside), the quiet import prints none of it and the verbose one all of it."""
    plain = shape(stderr_of("import tensorflow"))
    assert stderr_of(QUIET) == ""
    assert shape(stderr_of(VERBOSE)) == plain


def shape(text: str) -> list[str]:
    """Numbers become N and runs of spaces one space: absl pads the thread id to a width, so a
    five-digit id and a seven-digit one differ in spacing as well as in digits."""
    return [re.sub(r" +", " ", re.sub(r"\d+", "N", line)) for line in text.splitlines() if line.strip()]


def test_what_was_hidden_is_replayed_when_the_body_fails(capfd):
    with pytest.raises(RuntimeError), quiet_stderr():
        os.write(2, b"the reason it failed\n")
        raise RuntimeError("import failed")
    assert capfd.readouterr().err == "the reason it failed\n"
    with quiet_stderr():
        os.write(2, b"start-up chatter\n")
    assert capfd.readouterr().err == ""
