"""The scope tree: which definition encloses which, and what a range of code lives in."""

from __future__ import annotations

from bisect import bisect_right

from .languages import CONTAINER_KINDS, SCOPE_KINDS


def nest(defs: list) -> None:
    """Parent links by containment (defs in file order); a function directly in a class-like scope is a method."""
    stack: list = []
    for e in defs:
        while stack and not (stack[-1].start_byte <= e.start_byte and e.end_byte <= stack[-1].end_byte):
            stack.pop()
        if stack:
            e.parent = stack[-1]
            if stack[-1].children:
                stack[-1].children.append(e)
            else:
                stack[-1].children = [e]
            if e.kind == "function" and e.parent.kind in CONTAINER_KINDS:
                e.kind = "method"
        stack.append(e)


class ScopeTree:
    """Definitions as a tree, with lookups by character range."""

    def __init__(self, defs: list):
        self.defs = defs
        self.roots = [e for e in defs if e.parent is None]
        self._starts = [e.start for e in defs]
        self._level_starts: dict = {}  # scope entity (None: the top level) -> its children's starts

    def chain_for(self, start: int, end: int) -> list:
        """Entities (outermost first) whose extent holds all of [start, end)."""
        chain, owner, level = [], None, self.roots
        while level:
            starts = self._level_starts.get(owner)  # entities hash by identity
            if starts is None:
                starts = self._level_starts[owner] = [e.extent_start for e in level]
            i = bisect_right(starts, start) - 1  # siblings never overlap: only this one can hold start
            if i < 0 or not (end <= level[i].end and level[i].kind in SCOPE_KINDS):
                break
            owner = level[i]
            chain.append(owner)
            level = owner.children
        return chain

    def defined_range(self, start: int, end: int) -> tuple[int, int]:
        """Where the definitions that begin inside [start, end) are in `defs` (lo, hi)."""
        return bisect_right(self._starts, start - 1), bisect_right(self._starts, end - 1)
