"""`lines` (fixed-count): N lines a chunk, each starting `overlap` lines before its core.

From aiwg's fixed-count: a question that spans a boundary is answerable from
either side, because neighbours share `overlap` lines (chunk 1 at lines 1-218,
chunk 2 at 199-412 in aiwg's manifest). Only the start reaches back, as in
`semantic` and `adaptive`, so `--overlap N` means N shared lines, not 2N.
"""

from __future__ import annotations

from . import Order, Param, Proposal, Strategy, register
from ..core.model import Span
from .semantic import TokenCap, max_tokens_param, overlap_lines_param


def run(doc, params, ctx) -> Proposal:
    size, overlap = params["chunk_lines"], params["overlap_lines"]
    cap = TokenCap(doc, ctx, params["max_tokens"]) if params["max_tokens"] else None
    total = doc.line_count
    spans = []
    core_first = 1
    while core_first <= total:
        ctx.check()
        core_last = min(total, core_first + size - 1)
        first = max(1, core_first - overlap)
        oversized = False
        if cap is not None:  # fewer lines where they are over the cap
            first, core_last, oversized = cap.fit(first, core_first, core_last)
        start, end = doc.line_start(first), doc.line_end(core_last)
        meta: dict[str, object] = {"core_start_line": core_first, "core_end_line": core_last}
        if oversized:
            meta["over_max_tokens"] = True  # not `oversized`: that says over the size in lines
        spans.append(Span(start, end, "line", f"lines {core_first}-{core_last}", metadata=meta))
        core_first = core_last + 1
    return Proposal(spans)


register(
    Strategy(
        name="lines",
        summary="A fixed number of lines per chunk; neighbours share `overlap_lines` lines.",
        params=(
            Param(
                "chunk_lines",
                "int",
                200,
                "Lines per chunk (the core, before overlap).",
                min=1,
                max=1_000_000,
                step=10,
                aliases=("size",),
            ),
            overlap_lines_param(),
            max_tokens_param(),
        ),
        run=run,
        aliases=("fixed-count",),
        constraints=(Order("overlap_lines", "chunk_lines"),),
        size_param="chunk_lines",
        overlap_param="overlap_lines",
        max_size=lambda p: ("lines", p["chunk_lines"] + p["overlap_lines"]),
    )
)
