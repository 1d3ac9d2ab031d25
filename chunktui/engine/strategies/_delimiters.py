"""Delimiter sets typed on a command line: "\\n" and friends must mean the real characters."""

from __future__ import annotations

from ..core.errors import ParamError

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "0": "\0"}


def decode_delimiters(name: str, value: str) -> str:
    """The characters `value` stands for: \\n \\t \\r \\f \\v \\0 and \\\\ are escapes, the rest literal.

    A lone trailing backslash is an error rather than a guess; duplicates are dropped.
    """
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\":
            if i + 1 >= len(value):
                raise ParamError(name, "ends with a lone backslash (write \\\\ for a backslash)")
            nxt = value[i + 1]
            if nxt not in _ESCAPES:
                raise ParamError(name, f"unknown escape \\{nxt} (known: \\n \\t \\r \\f \\v \\0 \\\\)")
            ch = _ESCAPES[nxt]
            i += 1
        if ch not in out:
            out.append(ch)
        i += 1
    return "".join(out)
