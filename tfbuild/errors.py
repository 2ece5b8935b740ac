"""User-facing errors, one class per kind of failure, each with its own exit code.

Library code raises these; only the CLI layer turns them into a one-line message and an exit
code. Anything else that escapes is a bug in tfbuild and is shown as such.
"""

from __future__ import annotations


class TfbuildError(Exception):
    """Root of every error the user can fix. ``hint`` says what to do about it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and its hint on one line, as printed by the CLI."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(TfbuildError):
    """Bad options, an unknown config key, or a malformed tfbuild.toml."""

    exit_code = 2


class InputFileError(TfbuildError):
    """A model, ops list or header that is missing, empty, corrupt or unsupported."""

    exit_code = 3

class ManifestError(InputFileError):
    """A build's manifest.json that is damaged, or written by a tfbuild whose schema this one
    does not read: the commands that work on a finished build cannot trust it. An input file
    (``except InputFileError`` catches it) with an exit code of its own."""

    exit_code = 9


class OutputPathError(ConfigError):
    """An output path no file can be written to (a directory, a path under a file, an input)."""


class OutputWriteError(TfbuildError):
    """An output the operating system would not let tfbuild write (a read-only directory, a
    full disk; stdout on a full disk): named as the user gave it, never by the hidden temporary
    file. Exit code 1, as for any other operating-system error."""

    exit_code = 1


class SourceTreeError(TfbuildError):
    """The TensorFlow source tree is missing, dirty, unknown or not laid out as expected."""

    exit_code = 4


class PreflightError(TfbuildError):
    """The build would produce a binary that fails on device; found before building."""

    exit_code = 5


class ToolchainError(TfbuildError):
    """A compiler, Docker engine, image or SDK/NDK that the target needs is unavailable."""

    exit_code = 6


class BuildError(TfbuildError):
    """A build step ran and failed."""

    exit_code = 7


class VerificationError(TfbuildError):
    """A built binary ran the model and disagreed with TensorFlow (``tfbuild verify``): different
    values, shapes or dtypes, or it could not run the model at all. Its own code, 8, because
    the build itself succeeded: what it made computes the wrong thing."""

    exit_code = 8


class CommandTimeout(BuildError):
    """A command ran past its time limit and was killed."""


USAGE_EXIT_CODE = ConfigError.exit_code
"""A command line that names no command, an unknown option, a value that is no value: click's
usage errors share the code of a bad option value (2)."""

INTERNAL_ERROR_EXIT_CODE = 70
"""A failure no command expected, that is, a tfbuild bug: ``EX_SOFTWARE`` from sysexits.h."""

SIGNAL_EXIT_BASE = 128
"""A run a signal stopped exits with the shell's code for it, this plus the signal's number
(:mod:`tfbuild.stop_signals`: 130 for Ctrl-C's SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""
