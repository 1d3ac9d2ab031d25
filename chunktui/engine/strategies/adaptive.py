"""`adaptive` (aiwg): smaller chunks where the text is dense, larger where it is sparse.

Density of the region a chunk would cover (the `size` lines from its first core
line) mixes two measures, each 0..1:

    code_share = code-like lines / non-blank lines
                 (braces, semicolons, calls, assignments and comparison
                  operators, or indented four spaces / a tab outside lists)
    fill       = min(1, average line length incl. blank lines / 80)
    density    = (code_share + fill) / 2
    target     = round(size * 2 ** (1 - 2 * density))   # 2x at density 0, 1x at 0.5, 0.5x at 1

The cut is then chosen exactly like `semantic` (same boundary scores, +-25%
window around the adapted target, same line overlap), and each chunk records
the density and target_lines it was cut with.
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate

from . import Order, Param, Proposal, Strategy, register
from ..core.derived import derived
from .semantic import classify, max_lines, max_tokens_param, overlap_lines_param, plan

FULL_LINE = 80  # characters: a line this long counts as completely filled
MIN_FACTOR, MAX_FACTOR = 0.5, 2.0

_CODE_SIGNAL = re.compile(r"[{};]|\w\(|[=!<>]=|=>|->|:=|&&|\|\||[+\-*/]=|\s=\s")
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")


def is_code_like(line: str) -> bool:
    if _CODE_SIGNAL.search(line):
        return True
    return line.startswith(("    ", "\t")) and not _LIST_ITEM.match(line)


def density_factor(density: float) -> float:
    return min(MAX_FACTOR, max(MIN_FACTOR, 2 ** (1 - 2 * density)))


class DensityMap:
    """Prefix sums over lines so the density of any line range costs O(1).

    Kept per document between runs, so the sums are typed arrays (8 bytes a line, not ~36).
    """

    def __init__(self, lines: list[str]):
        nonblank = [1 if l.strip() else 0 for l in lines]
        code = [1 if b and is_code_like(l) else 0 for l, b in zip(lines, nonblank)]
        self._nonblank = array("q", [0, *accumulate(nonblank)])
        self._code = array("q", [0, *accumulate(code)])
        self._length = array("q", [0, *accumulate(len(l) for l in lines)])
        self.count = len(lines)

    def density(self, first: int, last: int) -> float:
        """Density of 1-based lines first..last inclusive."""
        last = min(last, self.count)
        lines = last - first + 1
        if lines <= 0:
            return 0.0
        nonblank = self._nonblank[last] - self._nonblank[first - 1]
        code = self._code[last] - self._code[first - 1]
        share = code / nonblank if nonblank else 0.0
        fill = min(1.0, (self._length[last] - self._length[first - 1]) / lines / FULL_LINE)
        return (share + fill) / 2


def run(doc, params, ctx) -> Proposal:
    size, overlap = params["chunk_lines"], params["overlap_lines"]
    cls = classify(doc)
    dmap = derived(doc, ("density_map", doc.kind, doc.language), lambda: DensityMap(cls.lines))
    chosen: dict[int, float] = {}

    def target_for(first: int) -> int:
        d = chosen[first] = dmap.density(first, first + size - 1)
        return max(1, round(size * density_factor(d)))

    def extra(first: int, target: int) -> dict:
        return {"density": round(chosen[first], 3), "target_lines": target}

    return Proposal(plan(doc, ctx, cls, target_for, overlap, extra, params["max_tokens"]))


register(
    Strategy(
        name="adaptive",
        summary="Chunk length follows density: fewer lines where code is dense, more where prose is sparse.",
        params=(
            Param(
                "chunk_lines",
                "int",
                200,
                "Base lines per chunk before the density factor (0.5x dense .. 2x sparse).",
                min=1,
                max=1_000_000,
                step=10,
                aliases=("size",),
            ),
            overlap_lines_param(),
            max_tokens_param(),
        ),
        run=run,
        constraints=(Order("overlap_lines", "chunk_lines"),),
        size_param="chunk_lines",
        overlap_param="overlap_lines",
        max_size=lambda p: ("lines", max_lines(round(p["chunk_lines"] * MAX_FACTOR), p["overlap_lines"])),
    )
)
