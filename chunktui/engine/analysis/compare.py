"""Compare two chunkings of one document by where they cut it.

A boundary is any chunk start or end strictly inside the document; with overlap a cut
shows up as two boundaries (where the next chunk starts, where this one ends). Two boundaries
are the same cut when they land on the same character once the whitespace after them is skipped:
`recursive` starts a chunk at the blank line before a heading, `markdown` at the heading, and
both cut there. The summary counts cuts that way, as the document view marks them (`AB`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import ChunktuiError
from ..core.model import ChunkSet, Stats
from .quality import DEFAULT_BUDGET, DEFAULT_MIN_TOKENS, Quality, assess, scan_structure


_TEXT = re.compile(r"\S")


class CompareError(ChunktuiError):
    """The two chunk sets are not of the same document."""


@dataclass(frozen=True)
class Boundary:
    offset: int
    line: int
    side: str  # "a", "b" or "both": whether the other side cuts at the same place (see cut_at)
    cut: int = 0  # the line of the cut
    at: int = 0  # where the cut is: the first character after the boundary's whitespace


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

    def cuts(self, side: str) -> int:
        """Distinct cuts on `side` ("a", "b" or "both"): boundaries that reach the same character
        once whitespace is skipped are one cut."""
        return len({b.at for b in self.boundaries if b.side == side})

    def summary(self) -> str:
        return (
            f"A: {self.a.stats.count} chunks, score {self.a.quality.score.score:g}; "
            f"B: {self.b.stats.count} chunks, score {self.b.quality.score.score:g}; "
            f"boundaries: {self.cuts('both')} in both, {self.cuts('a')} only in A, {self.cuts('b')} only in B"
        )


def boundaries_of(cs: ChunkSet) -> set[int]:
    n = len(cs.document.text)
    return {p for c in cs.chunks for p in (c.start, c.end) if 0 < p < n}


def cut_at(doc, offset: int) -> int:
    """Where a boundary cuts: the first non-whitespace character from it on (a separator run and
    the text after it are one cut), or the end of the text."""
    m = _TEXT.search(doc.text, offset)
    return m.start() if m else len(doc.text)


def describe(cs: ChunkSet) -> str:
    params = " ".join(f"{k}={v}" for k, v in sorted(cs.params.items()))
    return f"{cs.strategy} {params}".strip()


def compare(a: ChunkSet, b: ChunkSet, budget: int = DEFAULT_BUDGET, min_tokens: int = DEFAULT_MIN_TOKENS) -> Comparison:
    """Boundaries only in A, only in B and in both, with each side's stats and quality."""
    if a.document.text != b.document.text:
        raise CompareError(f"{a.document.name} and {b.document.name}: the two chunk sets are of different documents")
    doc = a.document
    ba, bb = boundaries_of(a), boundaries_of(b)
    cut = {p: cut_at(doc, p) for p in ba | bb}
    cuts_a, cuts_b = {cut[p] for p in ba}, {cut[p] for p in bb}
    marks = [
        Boundary(
            p,
            doc.line_of(p),
            "both" if cut[p] in cuts_a and cut[p] in cuts_b else "a" if p in ba else "b",
            doc.line_of(cut[p]),
            cut[p],
        )
        for p in sorted(ba | bb)
    ]

    # one structure scan (a tree-sitter parse for code) serves both sides when they share the Document
    structure = scan_structure(doc) if b.document is doc else None

    def side(cs, bounds):
        return Side(describe(cs), cs.stats(budget), assess(cs, budget, min_tokens, structure), len(bounds))

    return Comparison(boundaries=marks, a=side(a, ba), b=side(b, bb))
