"""The element-by-element verdict: does the target's tensor equal TensorFlow's?

Floating-point tensors may differ by rounding (another Eigen, another compiler, other flags,
``-funsafe-math-optimizations`` on the Pi), so an element passes when
``|got - expected| <= tolerance * peak``, ``peak`` being the largest finite ``|expected|`` of the
tensor: rounding errors scale with the values a kernel adds up, not with each result (a sum
that cancels to nearly zero carries the error of its terms), and a bound relative to the
tensor's own scale holds for activations of 1e2 and of 1e-10 alike, where a fixed absolute
bound would pass anything in a tensor of tiny values. (Measured on MobileNetV2, TF 1.9 built by
tfbuild against TF 2.21: at most 5e-7 of the peak, through every layer.) Integer and bool
tensors must be equal. NaN equals NaN, an infinity only itself. A tensor whose dtype or shape
differs fails whatever its values.

A floating-point tensor computed from 8-bit values (downstream of a ``Dequantize`` on the
inputs' path: a ``quantize_nodes`` graph) carries the rounding of the 8-bit grid, which two
runtimes may place one step apart (another requantization range, another rounding of a
``Requantize``): such a tensor also passes within ``EIGHT_BIT_STEPS`` steps of 1/255 of its own
value range (the largest minus the smallest expected value), and its diff says which bound
applied. So does a dequantized weight (``quantize_weights``' ``Dequantize`` of stored codes),
whose range is its grid's. What such weights feed is compared against a second reference run,
fed the target's own weights (:func:`compare_run`), with the floating-point bound: a bound taken
from a layer's own values cannot allow for a fraction of a step in thousands of weights (see
:mod:`.probe`).

A quantized tensor (``quint8``, ``qint32``, ...) is compared by what its codes stand for: each
side's codes over that side's own range (outputs 1 and 2 of its node), under the 8-bit bound,
whose step is then at least its grid's (the wider range over its codes' levels: a ReLU's output
keeps its input's range, so its values' spread understates its grid); its diff names the
quantized dtype. One whose node writes no range beside it must have equal codes.

For each tensor the diff keeps the largest absolute and relative differences and the element
furthest out of bounds (its index, and both values), which is what a failure message names.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from tfbuild.pipeline.verify.tensor_file import Array, codes, dtype_name, is_quantized, range_tensors

DEFAULT_TOLERANCE = 1e-4
EIGHT_BIT_STEPS = 2
"""How many steps of the 8-bit grid a tensor computed from 8-bit values may be off."""
EIGHT_BIT_LEVELS = 255
TOLERANCE_RULE = (
    "floating point: |got - expected| <= tolerance * (largest finite |expected| of the tensor); "
    f"computed from 8-bit values, and dequantized weights: or <= {EIGHT_BIT_STEPS} steps of "
    f"(max - min of the expected tensor) / {EIGHT_BIT_LEVELS}; what dequantized weights feed: against the "
    "reference fed the target's weights; integers and bools: equal"
)

Role = Literal["output", "intermediate"]
Scalar = float | int | bool


@dataclass(frozen=True)
class Worst:
    """The element furthest out of bounds (or the largest difference, for a passing tensor)."""

    index: tuple[int, ...]
    got: Scalar
    expected: Scalar


@dataclass(frozen=True)
class TensorDiff:
    """One tensor, the target's against the reference's."""

    tensor: str
    role: Role
    dtype: str
    shape: tuple[int, ...]
    max_abs_diff: float
    max_rel_diff: float
    """Over the elements whose expected value is finite and not zero."""
    mismatched: int
    """Elements out of bounds."""
    worst: Worst | None
    problem: str | None = None
    """Why the tensors cannot be compared element by element (dtype or shape differ, missing)."""
    bound: str = "float"
    """Which bound applied: ``float`` (tolerance times the peak), ``8-bit`` (steps of the 8-bit
    grid, the larger of the two) or ``exact`` (integers and bools)."""
    step: float | None = None
    """For ``8-bit``: one step of the grid, (max - min) / 255 of the expected tensor."""

    @property
    def passed(self) -> bool:
        return self.problem is None and self.mismatched == 0

    @property
    def elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def describe(self) -> str:
        """The failure in a sentence: what differs, where, by how much."""
        if self.problem is not None:
            return f"{self.role} '{self.tensor}': {self.problem}"
        assert self.worst is not None
        index = ", ".join(str(i) for i in self.worst.index)
        return (
            f"{self.role} '{self.tensor}' differs from the reference: at index [{index}] got "
            f"{_show(self.worst.got)}, expected {_show(self.worst.expected)} (max |diff| {self.max_abs_diff:.6g}, "
            f"max rel diff {self.max_rel_diff:.6g}); {self.mismatched} of {self.elements} elements out of bounds"
        )


def compare_tensor(
    tensor: str,
    role: Role,
    got: Array | None,
    expected: Array,
    tolerance: float,
    *,
    eight_bit: bool = False,
    grid_step: float = 0.0,
) -> TensorDiff:
    """Compare ``got`` (the target's, None when it did not write it) with ``expected``;
    ``eight_bit``: the tensor is computed from 8-bit values (see the module doc), on a grid whose
    step is at least ``grid_step``."""
    shape = tuple(int(dim) for dim in expected.shape)
    dtype = str(expected.dtype)
    if got is None:
        return _problem(tensor, role, dtype, shape, "the target's runner did not write it")
    if got.dtype != expected.dtype:
        return _problem(tensor, role, dtype, shape, f"dtype {got.dtype}, expected {expected.dtype}")
    if got.shape != expected.shape:
        return _problem(tensor, role, dtype, shape, f"shape {list(got.shape)}, expected {list(shape)}")
    if expected.size == 0:
        return TensorDiff(tensor, role, dtype, shape, 0.0, 0.0, 0, None)
    exact_wide = expected.astype(np.float64)
    got_wide = got.astype(np.float64)
    finite = np.isfinite(exact_wide)
    if expected.dtype.kind == "f":
        same = (exact_wide == got_wide) | (np.isnan(exact_wide) & np.isnan(got_wide))
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(same, 0.0, np.abs(got_wide - exact_wide))
        diff = np.where(np.isnan(diff), np.inf, diff)
        # A NaN or an infinity expected must be met exactly; the bound is for finite values.
        limit, kind, step = _float_limit(exact_wide[finite], expected.dtype, tolerance,
                                         grid_step if eight_bit else None)
        bound = np.where(finite, limit, 0.0)
    else:
        diff = np.where(got == expected, 0.0, np.abs(got_wide - exact_wide))
        bound = np.zeros_like(diff)
        kind, step = "exact", None
    out = diff > bound
    with np.errstate(divide="ignore", invalid="ignore"):
        # Relative to the expected value where that is finite and not zero (a ReLU's zeros
        # would make any difference infinitely relative, and say nothing).
        nonzero = finite & (exact_wide != 0)
        relative = np.where(nonzero & (diff > 0), diff / np.abs(np.where(nonzero, exact_wide, 1.0)), 0.0)
        excess = np.where(diff == 0, 0.0, diff / np.maximum(bound, np.finfo(np.float64).tiny))
    flat = int(np.argmax(excess))
    index = tuple(int(i) for i in np.unravel_index(flat, expected.shape))
    worst = Worst(index, _scalar(got, index), _scalar(expected, index))
    return TensorDiff(
        tensor, role, dtype, shape,
        max_abs_diff=float(np.max(diff)),
        max_rel_diff=float(np.max(relative)),
        mismatched=int(np.count_nonzero(out)),
        worst=worst,
        bound=kind,
        step=step,
    )


def _float_limit(
    finite: Array, dtype: np.dtype[Any], tolerance: float, grid_step: float | None
) -> tuple[float, str, float | None]:
    """The largest difference a floating-point tensor's finite expected values (``finite``,
    widened) allow, which bound that is, and the 8-bit step; ``grid_step`` None: not computed
    from 8-bit values. An all-zero tensor is matched to the dtype's smallest normal number."""
    peak = float(np.max(np.abs(finite), initial=0.0))
    limit = tolerance * max(peak, float(np.finfo(dtype).tiny))
    if grid_step is None or not finite.size:
        return limit, "float", None
    step = max(float(np.max(finite) - np.min(finite)) / EIGHT_BIT_LEVELS, grid_step)
    return max(limit, EIGHT_BIT_STEPS * step), "8-bit", step


def compare_run(
    expected: Mapping[str, Array],
    got: Mapping[str, Array],
    tolerance: float,
    *,
    outputs: Collection[str],
    eight_bit: Collection[str] = frozenset(),
    weights: Collection[str] = frozenset(),
    fed_expected: Mapping[str, Array] | None = None,
) -> tuple[TensorDiff, ...]:
    """Every tensor the reference wrote (``expected``, in its order) against the target's
    (``got``): the dequantized ``weights`` against the reference's own; the others against
    ``fed_expected`` (the reference fed the target's weights) where it is given and has them."""
    fed = fed_expected if fed_expected is not None else {}
    diffs = []
    for name, wanted in expected.items():
        role: Role = "output" if name in outputs else "intermediate"
        reference = expected if name in weights or name not in fed else fed
        if is_quantized(wanted.dtype):
            diffs.append(_compare_quantized(name, role, got, reference, tolerance))
        else:
            diffs.append(compare_tensor(name, role, got.get(name), reference[name], tolerance,
                                        eight_bit=name in eight_bit))
    return tuple(diffs)


def _compare_quantized(
    tensor: str, role: Role, got: Mapping[str, Array], expected: Mapping[str, Array], tolerance: float
) -> TensorDiff:
    """A quantized tensor: each side's codes as the values they stand for over its own range,
    within the 8-bit bound; equal codes where the node writes no range."""
    wanted, value = expected[tensor], got.get(tensor)
    if value is None or value.dtype != wanted.dtype or value.shape != wanted.shape:
        diff = compare_tensor(tensor, role, value, wanted, tolerance)  # says what differs
        return replace(diff, dtype=dtype_name(wanted.dtype))
    want_range, got_range = _range(expected, tensor), _range(got, tensor)
    if want_range is None or got_range is None:
        diff = compare_tensor(tensor, role, codes(value), codes(wanted), tolerance)
    else:
        (got_values, got_step), (want_values, want_step) = _real(value, got_range), _real(wanted, want_range)
        diff = compare_tensor(tensor, role, got_values, want_values, tolerance, eight_bit=True,
                              grid_step=max(got_step, want_step))
    return replace(diff, dtype=dtype_name(wanted.dtype))


def _range(tensors: Mapping[str, Array], tensor: str) -> tuple[float, float] | None:
    bounds = [tensors.get(name) for name in range_tensors(tensor)]
    if any(bound is None or bound.size != 1 for bound in bounds):
        return None
    low, high = (float(np.asarray(bound, dtype=np.float64).reshape(())) for bound in bounds if bound is not None)
    return low, high


def _real(array: Array, bounds: tuple[float, float]) -> tuple[Array, float]:
    """What quantized codes stand for over [low, high], and the grid's step: the lowest code is
    ``low``, the highest ``high``, evenly between (TensorFlow's ``QuantizedToFloat``, without its
    rounding of ``low`` to the grid, which two runtimes need not share)."""
    plain = codes(array)
    info = np.iinfo(plain.dtype)
    low, high = bounds
    step = (high - low) / (float(info.max) - float(info.min))
    return low + (plain.astype(np.float64) - float(info.min)) * step, abs(step)


def _problem(tensor: str, role: Role, dtype: str, shape: tuple[int, ...], problem: str) -> TensorDiff:
    return TensorDiff(tensor, role, dtype, shape, float("inf"), float("inf"), 0, None, problem=problem)


def _scalar(array: Array, index: tuple[int, ...]) -> Scalar:
    value = array[index] if index else array[()]
    item = value.item() if hasattr(value, "item") else value
    return item if isinstance(item, (bool, int, float)) else float(item)


def _show(value: Scalar) -> str:
    """A value as a message shows it: floats to 9 significant digits (float32 round-trips)."""
    return f"{value:.9g}" if isinstance(value, float) else repr(value)
