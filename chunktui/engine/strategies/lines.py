"""`lines` (fixed-count): N lines a chunk, each starting `overlap` lines before its core.

From aiwg's fixed-count: a question that spans a boundary is answerable from
either side, because neighbours share `overlap` lines (chunk 1 at lines 1-218,
chunk 2 at 199-412 in aiwg's manifest). Only the start reaches back, as in
`semantic` and `adaptive`, so `--overlap N` means N shared lines, not 2N.
"""

from __future__ import annotations

from . import Order, Param, Proposal, Strategy, register
from ..core.model import Span


def run(doc, params, ctx) -> Proposal:
    size, overlap = params["size"], params["overlap"]
    total = doc.line_count
    spans = []
    for core_first in range(1, total + 1, size):
        ctx.check()
        core_last = min(total, core_first + size - 1)
        first = max(1, core_first - overlap)
        start, end = doc.line_start(first), doc.line_end(core_last)
        spans.append(Span(
            start, end, "line", f"lines {core_first}-{core_last}",
            metadata={"core_start_line": core_first, "core_end_line": core_last},
        ))
    return Proposal(spans)


register(Strategy(
    name="lines",
    summary="A fixed number of lines per chunk; neighbours share `overlap` lines.",
    params=(
        Param("size", "int", 200, "Lines per chunk (the core, before overlap).", min=1, max=1_000_000, step=10),
        Param("overlap", "int", 20, "Lines each chunk repeats from the end of the previous one.", min=0, max=1_000_000, step=5),
    ),
    run=run,
    aliases=("fixed-count",),
    constraints=(Order("overlap", "size"),),
    max_size=lambda p: ("lines", p["size"] + p["overlap"]),
))
