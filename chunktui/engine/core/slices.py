"""C-level passes over many items made a slice at a time.

A `list(map(...))` or a sort over a whole chunking is one C call that holds the GIL from start to
end: over a 100 MB log's 117,000 chunks or 1.2 M records such a call takes 20-200 ms, during
which the app's event loop, another thread of the same interpreter, cannot draw. Made in slices,
the interpreter can switch threads between them (each slice a few milliseconds).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, AnyStr

STEP = 1 << 14  # items a C call handles at a time: a few ms at most


def mapped(fn: Callable[..., Any], *columns: Sequence, step: int = STEP) -> list:
    """`list(map(fn, *columns))` (columns of equal length), a slice of each column at a time."""
    out: list = []
    for i in range(0, len(columns[0]) if columns else 0, step):
        out += map(fn, *(column[i : i + step] for column in columns))
    return out


def texts(text: AnyStr, starts: Sequence[int], ends: Sequence[int], step: int = STEP) -> list[AnyStr]:
    """`text[s:e]` for each start and end, a slice of them at a time (they copy the whole text)."""
    out: list[AnyStr] = []
    for i in range(0, len(starts), step):
        out += map(text.__getitem__, map(slice, starts[i : i + step], ends[i : i + step]))
    return out


def sorted_in_slices(values: Sequence, step: int = STEP) -> list:
    """`sorted(values)`: each slice sorted on its own, then the sorted runs merged by one more sort,
    which finds the runs and only merges them (a few ms for 117,000 ints, against 20-50 ms for
    sorting them at once)."""
    out: list = []
    for i in range(0, len(values), step):
        out += sorted(values[i : i + step])
    out.sort()
    return out
