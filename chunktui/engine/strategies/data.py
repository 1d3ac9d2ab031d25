"""`data`: the header row plus `rows` evenly spaced rows, the first and the last among them.

From autowiki's data chunking: schema plus a sample gives the structure of a big
table for a fraction of its tokens. The header is a chunk of its own; sampled rows
that are adjacent in the file share a chunk, and each row chunk's context_text
repeats the header so it reads on its own. Rows left out are declared gaps
("sampled out"), so the app and the manifest show exactly what was skipped.
"""

from __future__ import annotations

from . import Param, Proposal, Strategy, register, sampled_out_gaps
from ..core.model import Span
from ..readers.tables import read_table, shape_warnings


def sample_indexes(total: int, wanted: int) -> list[int]:
    """`wanted` of the row indexes 0..total-1, spread evenly from the first to the last (a fixed step
    total // wanted stopped short of the end: 20 of 22 rows left the last two out)."""
    if total <= wanted:
        return list(range(total))
    if wanted == 1:
        return [0]
    return [i * (total - 1) // (wanted - 1) for i in range(wanted)]


def run(doc, params, ctx) -> Proposal:
    table = read_table(doc, ctx)
    if table.header is None:
        return Proposal([], notes=["data: no rows"])
    text = doc.text
    header_text = text[table.header.start : table.header.end]
    spans = [Span(0, table.header.end, "row", "header", table.chunk_metadata(row_numbers=[], section="header"))]
    picked = sample_indexes(len(table.rows), params["rows"])
    runs: list[list[int]] = []
    for i in picked:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for run_ in runs:
        first, last = table.rows[run_[0]], table.rows[run_[-1]]
        numbers = [i + 1 for i in run_]
        label = f"row {numbers[0]}" if len(numbers) == 1 else f"rows {numbers[0]}-{numbers[-1]}"
        body = text[first.start : last.end]
        meta = table.chunk_metadata(row_numbers=numbers, section="sample")
        spans.append(Span(first.start, last.end, "sample", label, meta, context_text=header_text + body))
    gaps = sampled_out_gaps(spans, len(text))
    notes = [
        f"data: header + {len(picked):,} of {len(table.rows):,} rows, evenly spaced from the first to the last, "
        f"delimiter {table.delimiter!r}{' (sniffed)' if table.sniffed else ''}"
    ]
    return Proposal(spans, gaps=gaps, notes=notes, warnings=shape_warnings(table, doc))


register(
    Strategy(
        name="data",
        summary="Header row plus evenly spaced sample rows of a CSV/TSV file; skipped rows are declared gaps.",
        params=(
            Param(
                "rows",
                "int",
                20,
                "How many evenly spaced rows to sample besides the header.",
                min=1,
                max=1_000_000,
                step=5,
            ),
        ),
        run=run,
        kinds=("csv", "tsv"),
        covering=False,
        size_param="rows",
        overlap_param=None,
    )
)
