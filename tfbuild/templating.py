"""Rendering of every generated file (C++, Starlark, linker snippets) from Jinja2 templates.

Templates live in ``templates/``; code passes typed values in and never concatenates code.
Undefined variables are errors so a template and its caller cannot drift apart silently.
"""

from __future__ import annotations

import functools
from typing import Any

import jinja2

from tfbuild.resources import data_path, templates_dir


def c_string_literal(value: str) -> str:
    """Quote ``value`` as a C/C++ string literal that can hold nothing but that text.

    Names come from model files, which an attacker may write; escaping every quote, backslash,
    control and non-ASCII byte means a hostile name can never close the literal and inject code.
    """
    out = ['"']
    for byte in value.encode("utf-8"):
        char = chr(byte)
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F and char != "?":  # '?' escaped to rule out trigraphs
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


def starlark_string(value: str) -> str:
    """Quote ``value`` as a Starlark string literal."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


@functools.cache
def _environment(search_path: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([search_path, str(data_path("."))]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["c_string"] = c_string_literal
    env.filters["starlark_string"] = starlark_string
    return env


def render(template_name: str, **values: Any) -> str:
    """Render ``templates/<template_name>`` (or a top-level data file such as
    ``WORKSPACE.append.tmpl``) with ``values``."""
    return _environment(str(templates_dir())).get_template(template_name).render(**values)
