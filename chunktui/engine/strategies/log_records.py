"""`log-records`: every line of a log, in chunks of whole records.

For users who want everything: a chunk holds consecutive records up to `size`
(lines, characters or tokens) and never splits a record, so a stack trace stays
with the line that raised it. A single record larger than `size` is a chunk of its
own, flagged oversized.

A 100 MB log is over a million records and a hundred thousand chunks: the records are grouped
by bisects over their running sizes (one per chunk, not a step per record), each chunk's levels
are counted from the document's per-line level codes, and the spans go to the build as columns.
The scans of the text (record starts, line levels) are kept for the document, so a re-chunk
with another size repeats neither.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's C loop, into a plain dict
from itertools import accumulate, count
from operator import itemgetter

from . import Param, Proposal, Strategy, register
from ..core import slices
from ..core.model import Metadata, SpanTable, one_line
from ..readers.logs import LEVEL_NAMES, line_levels, line_texts, record_starts, timestamps_of

_STEP = 1 << 15  # records mapped per C-level call: a million at once holds the GIL (and the app) 20+ ms


def run(doc, params, ctx) -> Proposal:
    n_lines = doc.line_count
    if not n_lines:
        return Proposal([])
    records = record_starts(doc)
    unit, size = params["unit"], params["size"]
    offsets = _record_offsets(doc, records)
    groups = _groups(_running_sizes(doc, records, offsets, unit, ctx), size, ctx)
    if unit == "tokens":  # token counts of joined records can exceed the sum of their parts
        groups = _exact_token_groups(doc.text, offsets, groups, size, ctx.counter(unit))
    starts = [offsets[a] for a, _, _ in groups]
    ends = [offsets[b] for _, b, _ in groups]
    labels, metadata = _describe(doc, records, groups, size, ctx)
    spans = SpanTable(starts, ends, ["record"] * len(groups), labels, metadata)
    return Proposal(spans, notes=[f"log-records: {len(records):,} records in {len(groups):,} chunks"])


def _record_offsets(doc, records: list[int]) -> list[int]:
    """Where each record starts, and the text's end."""
    line_starts = doc.line_starts
    offsets: list[int] = []
    for i in range(0, len(records), _STEP):
        offsets += map(line_starts.__getitem__, records[i : i + _STEP])
    offsets.append(len(doc.text))
    return offsets


def _running_sizes(doc, records, offsets, unit, ctx) -> list[int]:
    """The size of the records before each record, and of all of them: characters and lines are
    the records' starts; tokens are counted record by record (each exact)."""
    if unit == "chars":
        return offsets
    if unit == "lines":
        return [*records, doc.line_count]
    sizes = ctx.counter(unit).count_spans(doc.text, zip(offsets, offsets[1:]))
    return list(accumulate(sizes, initial=0))


def _groups(running: list[int], size: int, ctx) -> list[tuple[int, int, int]]:
    """(first record, record after the last, size) of each chunk: from its first record, every
    record whose end is within `size` of the chunk's start, and at least one (a record bigger
    than `size` is a chunk of its own). One bisect a chunk."""
    groups: list[tuple[int, int, int]] = []
    a, n = 0, len(running) - 1
    while a < n:
        if len(groups) % 4096 == 0:
            ctx.check()
        b = bisect_right(running, running[a] + size, a + 2) - 1  # at least a + 1
        groups.append((a, b, running[b] - running[a]))
        a = b
    return groups


def _exact_token_groups(text, offsets, groups, size, counter):
    """Re-split any group whose joined records count more tokens than `size` (all of them counted
    in one pass first; only the few over are split and counted again)."""
    counts = counter.count_spans(text, [(offsets[a], offsets[b]) for a, b, _ in groups])
    out = []
    for (a, b, _), n in zip(groups, counts):
        if n <= size or b == a + 1:
            out.append((a, b, n))
            continue
        todo = [(a, b)]
        while todo:
            a, b = todo.pop()
            n = counter.count(text[offsets[a] : offsets[b]])
            if n > size and b > a + 1:
                todo += [(b - 1, b), (a, b - 1)]
                continue
            out.append((a, b, n))
    return out


def _describe(doc, records, groups, size, ctx) -> tuple[list[str], list[Metadata]]:
    """Each chunk's label (its first line) and metadata: record count, levels, time range, oversized.
    Per chunk in C-level passes where they can be (a Python call per value cost 8 us a chunk)."""
    n_records, n_lines = len(records), doc.line_count
    firsts = [records[a] for a, _, _ in groups]
    stops = [records[b] if b < n_records else n_lines for _, b, _ in groups]  # the line after each chunk
    openings = line_texts(doc, firsts)
    labels = slices.mapped(one_line, slices.mapped(_LABEL, openings))  # a TSV log's tabs too
    ts_open = timestamps_of(openings)
    ts_close = timestamps_of(line_texts(doc, [records[b - 1] for _, b, _ in groups]))
    codes = line_levels(doc)
    levels = list(map(_levels, slices.texts(codes, firsts, stops)))
    metadata = []
    for i, (a, b, total), counts, t0, t1 in zip(count(), groups, levels, ts_open, ts_close):
        if i % 4096 == 0:
            ctx.check()
        meta = {"record_count": b - a, "levels": counts}
        if t0 or t1:
            meta["ts_start"], meta["ts_end"] = t0 or t1, t1 or t0
        if b == a + 1 and total > size:
            meta["oversized"] = True
        metadata.append(Metadata(meta))
    return labels, metadata


_LABEL = itemgetter(slice(0, 60))


def _levels(codes: bytes) -> dict[str, int]:
    """What `level_counts` says of the lines whose level codes (line_levels) are `codes`."""
    found: dict[int, int] = {}
    _count_elements(found, codes)
    found.pop(0, None)
    return dict(zip(map(LEVEL_NAMES.__getitem__, found), found.values()))


register(
    Strategy(
        name="log-records",
        summary="Every log record, grouped up to a size, never splitting a multi-line record (stack traces).",
        params=(
            Param(
                "size",
                "int",
                900,
                "Most characters (or lines/tokens, see unit) per chunk; 900 characters of log text are 320-440 tokens.",
                min=1,
                max=100_000_000,
                step=20,
            ),
            Param(
                "unit",
                "choice",
                "chars",
                "What size counts; chars needs no tokenizing, so a 100 MB log stays fast.",
                choices=("lines", "chars", "tokens"),
            ),
        ),
        run=run,
        kinds=("log", "jsonl"),
        overlap_param=None,
        max_size=lambda p: (p["unit"], p["size"]),
    )
)
