"""`log-records`: every line of a log, in chunks of whole records.

For users who want everything: a chunk holds consecutive records up to `size`
(lines, characters or tokens) and never splits a record, so a stack trace stays
with the line that raised it. A single record larger than `size` is a chunk of its
own, flagged oversized.
"""

from __future__ import annotations

from . import Param, Proposal, Strategy, register
from ..readers.logs import level_counts, line_text, record_starts
from ..core.model import Span, one_line
from .log import add_time_range


def run(doc, params, ctx) -> Proposal:
    n_lines = doc.line_count
    if not n_lines:
        return Proposal([])
    starts = record_starts(doc)
    # each record's [start, end): where its first line starts and where the next record's does
    # (offsets by C-level lookups: two Python calls per record cost 0.6 s at 10 MB)
    line_starts = doc.line_starts
    offsets = list(map(line_starts.__getitem__, starts)) + [len(doc.text)]
    bounds = list(zip(offsets, offsets[1:]))
    unit, size = params["unit"], params["size"]
    sizes = ctx.counter(unit).count_spans(doc.text, bounds)
    groups: list[tuple[int, int, int]] = []  # first record, last record, size
    first, acc = 0, 0
    for i, n in enumerate(sizes):
        if i % 4096 == 0:
            ctx.check()
        if i > first and acc + n > size:
            groups.append((first, i - 1, acc))
            first, acc = i, 0
        acc += n
    groups.append((first, len(sizes) - 1, acc))
    if unit == "tokens":
        groups = _exact_token_groups(doc.text, bounds, groups, size, ctx.counter(unit))
    spans = []
    for a, b, total in groups:
        start, end = bounds[a][0], bounds[b][1]
        opening = line_text(doc, starts[a] + 1)
        meta = {"record_count": b - a + 1, "levels": level_counts(doc.text[start:end].split("\n"))}
        add_time_range(meta, opening, line_text(doc, starts[b] + 1))
        if a == b and total > size:
            meta["oversized"] = True
        spans.append(Span(start, end, "record", one_line(opening, 60), meta))
    return Proposal(spans, notes=[f"log-records: {len(starts)} records in {len(spans)} chunks"])


def _exact_token_groups(text, bounds, groups, size, counter):
    """Token counts of joined records can exceed the sum of their parts: re-split any group that does."""
    out = []
    todo = list(reversed(groups))
    while todo:
        a, b, _ = todo.pop()
        n = counter.count(text[bounds[a][0]:bounds[b][1]])
        if n > size and b > a:
            todo.append((b, b, 0))
            todo.append((a, b - 1, 0))
            continue
        out.append((a, b, n))
    return out


register(Strategy(
    name="log-records",
    summary="Every log record, grouped up to a size, never splitting a multi-line record (stack traces).",
    params=(
        Param("size", "int", 900, "Most characters (or lines/tokens, see unit) per chunk; 900 characters of log text "
              "are 320-440 tokens.", min=1, max=100_000_000, step=20),
        Param("unit", "choice", "chars", "What size counts; chars needs no tokenizing, so a 100 MB log stays fast.",
              choices=("lines", "chars", "tokens")),
    ),
    run=run,
    kinds=("log", "jsonl"),
    overlap_param=None,
    max_size=lambda p: (p["unit"], p["size"]),
))
