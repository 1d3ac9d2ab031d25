"""`data-rows`: every row of a CSV/TSV file, in chunks of whole rows.

For users who want the whole table: a chunk never splits a row (a quoted field
with newlines stays whole), holds at most `max_rows` rows and, when `max_chars` is
set, at most that many characters (with the header it is embedded with); a single row longer than that is a chunk of
its own, flagged oversized. Chunks after the first repeat the header row in
their context_text, so each one can be embedded on its own.
"""

from __future__ import annotations

import sys

from . import Param, Proposal, Strategy, register
from ..core.model import Span
from ..readers.tables import read_table, shape_warnings


def run(doc, params, ctx) -> Proposal:
    table = read_table(doc, ctx)
    if table.header is None:
        blank = [(0, len(doc.text), "blank: no rows")] if doc.text else []  # whitespace only: said, not hidden
        return Proposal([], gaps=blank, notes=["data-rows: no rows"])
    text = doc.text
    size, max_chars = params["max_rows"], params["max_chars"] or sys.maxsize
    header_text = text[table.header.start : table.header.end]
    # each group is [start offset, first row index, last row index]; the first holds the header
    groups: list[list[int]] = []
    start, first = 0, 0
    rows = table.rows
    for i, row in enumerate(rows):
        if i % 4096 == 0:
            ctx.check()
        count = i - first
        stop = rows[i + 1].start if i + 1 < len(rows) else len(text)
        # a chunk after the first is embedded with the header: its characters count too
        if count and (count >= size or stop - start + (len(header_text) if groups else 0) > max_chars):
            groups.append([start, first, i - 1])
            start, first = row.start, i
    if rows:
        groups.append([start, first, len(rows) - 1])
    spans = []
    for k, (s, a, b) in enumerate(groups):
        end = rows[groups[k + 1][1]].start if k + 1 < len(groups) else len(text)
        meta = table.chunk_metadata(row_numbers=list(range(a + 1, b + 2)))
        if a == b and end - s > max_chars:
            meta["oversized"] = True
        label = f"rows {a + 1}-{b + 1}" if b > a else f"row {a + 1}"
        spans.append(Span(s, end, "row", label, meta, context_text=None if k == 0 else header_text + text[s:end]))
    if not spans:  # a header and no rows
        meta = table.chunk_metadata(row_numbers=[])
        if len(text) > max_chars:
            meta["oversized"] = True
        spans.append(Span(0, len(text), "row", "header", meta))
    return Proposal(
        spans,
        notes=[f"data-rows: {len(table.rows):,} rows in {len(spans):,} chunks"],
        warnings=shape_warnings(table, doc),
    )


def _max_size(p):
    return "chars", p["max_chars"] or sys.maxsize


register(
    Strategy(
        name="data-rows",
        summary="Whole CSV/TSV rows per chunk (by count and optional character limit), header repeated in context.",
        params=(
            Param("max_rows", "int", 100, "Most rows per chunk.", min=1, max=10_000_000, step=10, aliases=("size",)),
            Param(
                "max_chars",
                "int",
                700,
                "Most characters per chunk (0 = no limit); a longer row is its own chunk. 700 "
                "characters of dense numeric rows, with the header repeated, embed as at most about 500 tokens.",
                min=0,
                max=1_000_000_000,
                step=500,
            ),
        ),
        run=run,
        kinds=("csv", "tsv"),
        size_param="max_rows",
        overlap_param=None,
        max_size=_max_size,
    )
)
