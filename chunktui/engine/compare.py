"""Compare two chunkings of one document by where they cut it.

A boundary is any chunk start or end strictly inside the document; with overlap a cut
shows up as two boundaries (where the next chunk starts, where this one ends).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ChunktuiError
from .model import ChunkSet, Stats
from .quality import DEFAULT_BUDGET, DEFAULT_MIN_TOKENS, Quality, assess, scan_structure


class CompareError(ChunktuiError):
    """The two chunk sets are not of the same document."""


@dataclass(frozen=True)
class Boundary:
    offset: int
    line: int
    side: str  # "a", "b" or "both"


@dataclass(frozen=True)
class Side:
    name: str  # strategy and params, for headings and the summary
    stats: Stats
    quality: Quality
    boundaries: int


@dataclass(frozen=True)
class Comparison:
    boundaries: list[Boundary]
    a: Side
    b: Side

    @property
    def only_a(self) -> list[int]:
        return [b.offset for b in self.boundaries if b.side == "a"]

    @property
    def only_b(self) -> list[int]:
        return [b.offset for b in self.boundaries if b.side == "b"]

    @property
    def both(self) -> list[int]:
        return [b.offset for b in self.boundaries if b.side == "both"]

    def summary(self) -> str:
        return (f"A: {self.a.stats.count} chunks, score {self.a.quality.score.score:g}; "
                f"B: {self.b.stats.count} chunks, score {self.b.quality.score.score:g}; "
                f"boundaries: {len(self.both)} in both, {len(self.only_a)} only in A, {len(self.only_b)} only in B")


def boundaries_of(cs: ChunkSet) -> set[int]:
    n = len(cs.document.text)
    return {p for c in cs.chunks for p in (c.start, c.end) if 0 < p < n}


def describe(cs: ChunkSet) -> str:
    params = " ".join(f"{k}={v}" for k, v in sorted(cs.params.items()))
    return f"{cs.strategy} {params}".strip()


def compare(a: ChunkSet, b: ChunkSet, budget: int = DEFAULT_BUDGET,
            min_tokens: int = DEFAULT_MIN_TOKENS) -> Comparison:
    """Boundaries only in A, only in B and in both, with each side's stats and quality."""
    if a.document.text != b.document.text:
        raise CompareError(f"{a.document.name} and {b.document.name}: the two chunk sets are of different documents")
    doc = a.document
    ba, bb = boundaries_of(a), boundaries_of(b)
    marks = [Boundary(p, doc.line_of(p), "both" if p in ba and p in bb else "a" if p in ba else "b")
             for p in sorted(ba | bb)]

    # one structure scan (a tree-sitter parse for code) serves both sides when they share the Document
    structure = scan_structure(doc) if b.document is doc else None

    def side(cs, bounds):
        return Side(describe(cs), cs.stats(budget), assess(cs, budget, min_tokens, structure), len(bounds))

    return Comparison(boundaries=marks, a=side(a, ba), b=side(b, bb))
