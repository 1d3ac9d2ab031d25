"""`log`: three samples of a log: head (format), middle (patterns), tail (recency).

From autowiki's log chunking: the first `head_lines` lines, `middle_lines` lines
centred in the middle third, and the last `tail_lines` lines; the rest is skipped
and declared as "sampled out" gaps, so the app and the manifest show what was not
read. Samples never overlap: the middle moves clear of head and tail, sections
that touch merge into one chunk, and when the three together reach the file's
length (a short file) the whole file is one chunk with no gap. A middle sample that would open inside a
multi-line record (a stack trace) slides to the next record, keeping its length; the tail is the last
`tail_lines` lines exactly, as `tail -n` gives them, and says `opens_mid_record` when its first line
continues a record. For JSONL the head names
every top-level key seen in the file (`json_keys`), which is the schema an agent needs.
"""

from __future__ import annotations

from dataclasses import replace

from . import Param, Proposal, Strategy, register, sampled_out_gaps
from ..readers.logs import iter_lines, json_keys, level_counts, next_record_start, start_pattern, timestamp_of
from ..core.model import Span


def sections(total: int, head: int, middle: int, tail: int) -> list[tuple[str, int, int]]:
    """(name, first, last) 1-based inclusive line ranges; overlapping or touching ones merge."""
    out: list[list] = []
    if head + middle + tail >= total:  # the samples would reach the whole file: read all of it, once
        names = "+".join(n for n, k in (("head", head), ("middle", middle), ("tail", tail)) if k)
        return [(names, 1, total)] if total else []
    if head:
        out.append(["head", 1, head])
    if middle:
        centre = (total + 1) // 2
        # centred, but moved clear of head and tail: there is room, and a line sampled twice is a wasted line
        first = max(head + 1, min(centre - middle // 2, total - tail - middle + 1))
        out.append(["middle", first, first + middle - 1])
    if tail:
        out.append(["tail", max(1, total - tail + 1), total])
    merged: list[list] = []
    for name, first, last in sorted(out, key=lambda s: s[1]):
        if first > last:  # an empty file
            continue
        if merged and first <= merged[-1][2] + 1:  # overlapping or touching: one section
            merged[-1][0] += "+" + name
            merged[-1][2] = max(merged[-1][2], last)
        else:
            merged.append([name, first, last])
    return [tuple(s) for s in merged]


def add_time_range(meta: dict, first: str, last: str) -> None:
    """ts_start / ts_end from the timestamps of two lines, when either has one."""
    stamps = [t for t in (timestamp_of(first), timestamp_of(last)) if t]
    if stamps:
        meta["ts_start"], meta["ts_end"] = stamps[0], stamps[-1]


def run(doc, params, ctx) -> Proposal:
    total = doc.line_count
    spans = []
    sampled = 0
    pattern = start_pattern(doc)
    parts = sections(total, params["head_lines"], params["middle_lines"], params["tail_lines"])
    for k, (name, first, last) in enumerate(parts):
        ctx.check()
        opens = next_record_start(doc, pattern, first, last)
        meta: dict = {"section": name}
        if last == total:  # the tail is the last N lines, like `tail -n`, even inside a record
            if opens != first:
                meta["opens_mid_record"] = True
        else:  # head or middle: slide to the record's start, keeping its length where the next sample allows
            limit = parts[k + 1][1] - 1 if k + 1 < len(parts) else total
            first, last = opens, min(last + opens - first, limit)
        part = list(iter_lines(doc, first, last))  # only the sampled lines become strings
        sampled += len(part)
        meta["levels"] = level_counts(part)
        add_time_range(meta, part[0], part[-1])
        spans.append(Span(doc.line_start(first), doc.line_end(last), "sample", f"{name} (lines {first}-{last})", meta))
    notes = []
    if doc.kind == "jsonl" and spans:
        keys, bad = json_keys(iter_lines(doc))
        extra = {"json_keys": keys, "json_invalid_lines": bad}
        spans[0] = replace(spans[0], metadata={**spans[0].metadata, **extra})
        notes.append(f"log: JSON keys seen: {', '.join(keys) or 'none'}")
    gaps = sampled_out_gaps(spans, len(doc.text))
    notes.append(f"log: sampled {sampled:,} of {total:,} lines")
    return Proposal(spans, gaps=gaps, notes=notes)


def _max_size(p):
    return "lines", p["head_lines"] + p["middle_lines"] + p["tail_lines"]


def _check(values: dict) -> None:
    from ..core.errors import ParamError

    if not (values["head_lines"] or values["middle_lines"] or values["tail_lines"]):
        raise ParamError("head_lines", "head, middle and tail cannot all be 0")


register(
    Strategy(
        name="log",
        summary="Head, middle and tail samples of a log or JSONL file; skipped lines are declared gaps.",
        params=(
            Param(
                "head_lines", "int", 8, "Lines from the start of the file (the format).", min=0, max=10_000_000, step=10
            ),
            Param(
                "middle_lines",
                "int",
                8,
                "Lines centred in the middle third (the patterns).",
                min=0,
                max=10_000_000,
                step=10,
            ),
            Param(
                "tail_lines",
                "int",
                8,
                "Lines from the end of the file (the most recent events).",
                min=0,
                max=10_000_000,
                step=10,
            ),
        ),
        run=run,
        kinds=("log", "jsonl"),
        validate_extra=_check,
        covering=False,
        size_param="middle_lines",
        overlap_param=None,
        max_size=_max_size,
    )
)
