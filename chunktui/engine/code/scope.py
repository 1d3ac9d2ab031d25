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
            if e.kind == "function" and e.parent.kind in CONTAINER_KINDS:
                e.kind = "method"
        stack.append(e)


class ScopeTree:
    """Definitions as a tree, with lookups by character range."""

    def __init__(self, defs: list):
        self.defs = defs
        # each scope's definitions in file order (None: the top level), kept here rather than on
        # the entities, which would then hold each other in a cycle
        self.levels: dict = {}  # entities hash by identity
        for e in defs:
            level = self.levels.get(e.parent)
            if level is None:
                self.levels[e.parent] = [e]
            else:
                level.append(e)
        self.roots = self.levels.get(None, [])
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
            level = self.levels.get(owner)
        return chain

    def defined_range(self, start: int, end: int) -> tuple[int, int]:
        """Where the definitions that begin inside [start, end) are in `defs` (lo, hi)."""
        return bisect_right(self._starts, start - 1), bisect_right(self._starts, end - 1)
