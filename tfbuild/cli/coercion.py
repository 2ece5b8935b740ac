"""Typer's parameter coercion without pydantic for the values that need none.

Typer (0.2x) coerces every parameter through a pydantic ``TypeAdapter``, built when the command
line is parsed: importing pydantic and building a dozen adapters is a third of a quick command's
start-up (``tfbuild header``). Strings and paths (and lists of them), and numbers left at their
declared defaults, need no validation: :func:`install` makes Typer coerce those here (a path
still gets Typer's own checks, :func:`typer._param_types.coerce_cli_path`) and leaves every
other value (a number typed on the command line, a choice, a bounded number) to pydantic as
before. Without the Typer internals this relies on, nothing is changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin


def install() -> None:
    try:
        from typer import _coercion, _param_types
        from typer import core as typer_core
    except ImportError:  # another Typer: its own coercion stays
        return
    if not hasattr(typer_core, "build_runtime_param") or getattr(typer_core, "_tfbuild_coercion", False):
        return
    typer_build = typer_core.build_runtime_param

    @dataclass(frozen=True)
    class Quick(_coercion.RuntimeParam):
        """Coerces str, Path and declared-default numbers itself; anything else through Typer's
        (pydantic's) coercion, built only when such a value comes."""

        descriptor: Any
        item: Any
        listed: bool

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.listed:
                items = value if isinstance(value, list | tuple) else [value]
                if all(self._quick(item) for item in items):
                    return [self._one(item, param, ctx) for item in items]
            elif self._quick(value):
                return self._one(value, param, ctx)
            return typer_build(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

        def _quick(self, value: Any) -> bool:
            if self.item is str or self.item is Path:
                return isinstance(value, str | Path)
            return type(value) is self.item  # a number at its declared default

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            if self.item is str:
                return str(value)
            if self.item is Path:
                return _param_types.coerce_cli_path(Path(value), self.parameter_info, path_type=Path,
                                                    param=param, ctx=ctx)
            return value

    def build(descriptor: Any) -> Any:
        info, annotation = descriptor.parameter_info, descriptor.annotation
        item = get_args(annotation)[0] if get_origin(annotation) is list else annotation
        plain = (descriptor.file_annotation is None and info.parser is None and not descriptor.is_choice
                 and item in (str, Path, int, float, bool) and info.min is None and info.max is None
                 and not (item is Path and _param_types._path_options_requested(info)))
        if not plain:
            return typer_build(descriptor)
        return Quick(parameter_info=info, annotation=annotation, descriptor=descriptor, item=item,
                     listed=get_origin(annotation) is list)

    typer_core.build_runtime_param = build
    typer_core._tfbuild_coercion = True  # type: ignore[attr-defined]
