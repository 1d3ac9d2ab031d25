"""Per-document pre-passes that do not depend on a strategy's parameters, computed once.

Re-chunking the same Document with new parameters (the app's `[` `]` keys, sweeps)
then skips the scans. Document is an unhashable dataclass, so results live on the
instance itself, tagged with the text object they were computed from: a document
whose text was replaced is scanned again. Two threads may both compute a missing
entry; the results are equal and the last one stored wins. Cached values are
shared between runs, so callers must treat them as read-only.
"""

from __future__ import annotations

from typing import TypeVar
from collections.abc import Callable, Hashable

T = TypeVar("T")


def derived(doc, key: Hashable, compute: Callable[[], T]) -> T:
    """`compute()` for `doc`, or the value it returned last time for the same key and text."""
    cache = doc.__dict__.setdefault("_derived", {})
    text = doc.text
    hit = cache.get(key)
    if hit is not None and hit[0] is text:
        return hit[1]
    value = compute()
    cache[key] = (text, value)
    return value


def forget(doc) -> None:
    """Drop what was computed for `doc`: for a document that will not be chunked again, whose
    chunks (which refer to it) may outlive it, the scans (a code parse) would live as long."""
    doc.__dict__.pop("_derived", None)
