"""``#if`` regions of a kernel file, decided where tfbuild knows the answer and kept as a guard
where it does not.

A mobile CPU build never defines ``GOOGLE_CUDA``, ``TENSORFLOW_USE_SYCL`` or ``INTEL_MKL``, and
with selective registration TensorFlow registers every type (``__ANDROID_TYPES_SLIM__`` is
off), so regions depending on those are decided. Anything else (``USE_GEMM_FOR_CONV``,
``IS_MOBILE_PLATFORM``) depends on flags only the build knows: the region is kept and its
condition recorded, so a registration can say it is "behind ``defined(USE_GEMM_FOR_CONV)``".
Evaluation is three-valued: True, False, or None for "depends on the build".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tfbuild.cpp.macros import Token, lex

# Never defined in the builds tfbuild makes (CPU only, no MKL, full type lists).
KNOWN_UNDEFINED = frozenset({
    "GOOGLE_CUDA", "TENSORFLOW_USE_ROCM", "TENSORFLOW_USE_SYCL", "GOOGLE_TENSORRT",
    "INTEL_MKL", "ENABLE_MKL", "INTEL_MKL_ML_ONLY", "INTEL_MKL_DNN_ONLY",
    "__ANDROID_TYPES_SLIM__", "__CUDACC__", "__HIPCC__", "EIGEN_USE_GPU", "CUDA", "NVCC",
    "TENSORFLOW_USE_GPU", "TF_ENABLE_ACTIVITY_WATCHER",
})
DESKTOP_ONLY = frozenset({"PLUGGABLE_DEVICE_SUPPORTED_MACOS"})
"""Macros a tree defines itself, but only for desktop targets no mobile build is (TF 2.x's
``pack_op.cc`` defines PLUGGABLE_DEVICE_SUPPORTED_MACOS under ``__APPLE__`` and not iOS, then
registers DEFAULT kernels behind it): undefined whatever ``#define`` the scanner passes."""


class _Parser:
    """Recursive descent over an ``#if`` expression; values are ints, or None when unknown."""

    def __init__(self, tokens: Sequence[Token], is_defined: Callable[[str], bool | None],
                 value_of: Callable[[str], int | None]):
        self.tokens = tokens
        self.position = 0
        self.is_defined = is_defined
        self.value_of = value_of

    def peek(self) -> str | None:
        return self.tokens[self.position].text if self.position < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expression(self) -> int | None:
        value = self.logical_or()
        if self.peek() == "?":
            self.take()
            when_true = self.expression()
            if self.peek() == ":":
                self.take()
            when_false = self.expression()
            if value is None:
                return when_true if when_true == when_false else None
            return when_true if value else when_false
        return value

    def logical_or(self) -> int | None:
        value = self.logical_and()
        while self.peek() == "||":
            self.take()
            right = self.logical_and()
            if value or right:
                value = 1
            elif value == 0 and right == 0:
                value = 0
            else:
                value = None
        return value

    def logical_and(self) -> int | None:
        value = self.binary(0)
        while self.peek() == "&&":
            self.take()
            right = self.binary(0)
            if value == 0 or right == 0:
                value = 0
            elif value is not None and right is not None:
                value = 1
            else:
                value = None
        return value

    _LEVELS = (("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
               ("+", "-"), ("*", "/", "%"))

    def binary(self, level: int) -> int | None:
        if level == len(self._LEVELS):
            return self.unary()
        value = self.binary(level + 1)
        while self.peek() in self._LEVELS[level]:
            operator = self.take().text
            right = self.binary(level + 1)
            value = None if value is None or right is None else _apply(operator, value, right)
        return value

    def unary(self) -> int | None:
        operator = self.peek()
        if operator in ("!", "-", "+", "~"):
            self.take()
            value = self.unary()
            if value is None:
                return None
            return {"!": int(not value), "-": -value, "+": value, "~": ~value}[operator]
        return self.primary()

    def primary(self) -> int | None:
        token = self.take()
        if token.text == "(":
            value = self.expression()
            if self.peek() == ")":
                self.take()
            return value
        if token.text == "defined":
            return self._defined()
        if token.kind == "num":
            return _integer(token.text)
        if token.kind == "id":
            return self._identifier(token.text)
        return None

    def _defined(self) -> int | None:
        """``defined NAME`` or ``defined(NAME)``, after the ``defined``."""
        parenthesised = self.peek() == "("
        if parenthesised:
            self.take()
        name = self.take().text
        if parenthesised and self.peek() == ")":
            self.take()
        known = self.is_defined(name)
        return None if known is None else int(known)

    def _identifier(self, name: str) -> int | None:
        if self.peek() == "(":  # a function-like macro or __has_include(...): unknown
            self._skip_group()
            return None
        if name in ("true", "false"):
            return int(name == "true")
        return self.value_of(name)

    def _skip_group(self) -> None:
        depth = 0
        while self.position < len(self.tokens):
            text = self.take().text
            depth += text == "("
            depth -= text == ")"
            if depth == 0:
                return


def _apply(operator: str, left: int, right: int) -> int | None:
    if operator in ("/", "%") and right == 0:
        return None
    if operator in ("<<", ">>") and not 0 <= right < 64:
        return None
    return {
        "|": lambda: left | right, "^": lambda: left ^ right, "&": lambda: left & right,
        "==": lambda: int(left == right), "!=": lambda: int(left != right),
        "<": lambda: int(left < right), ">": lambda: int(left > right),
        "<=": lambda: int(left <= right), ">=": lambda: int(left >= right),
        "<<": lambda: left << right, ">>": lambda: left >> right,
        "+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
        "/": lambda: int(left / right), "%": lambda: left % right,
    }[operator]()


def _integer(text: str) -> int | None:
    digits = text.rstrip("uUlL").replace("'", "")
    try:
        if digits.lower().startswith("0x"):
            return int(digits, 16)
        if digits.startswith("0") and len(digits) > 1:
            return int(digits, 8)
        return int(digits)
    except ValueError:
        return None


def evaluate(expression: str, is_defined: Callable[[str], bool | None],
             value_of: Callable[[str], int | None]) -> bool | None:
    """Truth of an ``#if`` expression: True, False, or None when it depends on the build."""
    tokens = lex(expression)
    if not tokens:
        return None
    parser = _Parser(tokens, is_defined, value_of)
    try:
        value = parser.expression()
    except IndexError:
        return None
    if parser.position != len(tokens) or value is None:
        return None
    return bool(value)


@dataclass
class _Frame:
    parent_active: bool
    taken: bool = False  # an earlier branch was certainly taken
    unknown_before: list[str] = field(default_factory=list)  # earlier branches' unknown conditions
    value: bool | None = None  # this branch: taken, not taken, or depends on the build
    guard: str | None = None
    own: bool | None = None  # this branch's own condition, earlier branches aside
    own_text: str | None = None


class ConditionStack:
    """The nest of ``#if``/``#elif``/``#else``/``#endif`` at a point of a file."""

    def __init__(self) -> None:
        self._frames: list[_Frame] = []

    @property
    def active(self) -> bool:
        """False inside a region that is certainly compiled out."""
        return not self._frames or (self._frames[-1].parent_active and self._frames[-1].value is not False)

    @property
    def parent_active(self) -> bool:
        """Whether the region enclosing the innermost ``#if`` is compiled."""
        return not self._frames or self._frames[-1].parent_active

    @property
    def guard(self) -> str | None:
        """The unknown conditions the current region depends on, joined with ``&&``."""
        parts = [frame.guard for frame in self._frames if frame.guard]
        return " && ".join(parts) if parts else None

    def push(self, value: bool | None, text: str) -> None:
        frame = _Frame(parent_active=self.active)
        self._frames.append(frame)
        self._enter(frame, value, text)

    def branch(self, value: bool | None, text: str | None) -> None:
        """``#elif text`` (or ``#else`` when ``text`` is None, with ``value`` True)."""
        if not self._frames:
            return
        frame = self._frames[-1]
        if frame.own is True:
            frame.taken = True
        elif frame.own is None and frame.own_text is not None:
            frame.unknown_before.append(frame.own_text)
        self._enter(frame, value, text)

    def pop(self) -> None:
        if self._frames:
            self._frames.pop()

    @staticmethod
    def _enter(frame: _Frame, value: bool | None, text: str | None) -> None:
        frame.own, frame.own_text = value, text
        if frame.taken or value is False:
            frame.value, frame.guard = False, None
            return
        parts = [f"!({before})" for before in frame.unknown_before]
        if value is None and text is not None:
            parts.append(text)
        frame.value = None if parts else True
        frame.guard = " && ".join(parts) if parts else None
