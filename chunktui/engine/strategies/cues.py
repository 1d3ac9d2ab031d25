"""`cues`: consecutive subtitle cues grouped into chunks that keep their timestamps.

From ai_chunk's cues mode: a cue is never split and a cue longer than `size` is a
chunk of its own. `size` counts the characters of cue text (tags stripped, cues
joined by a newline), which is also each chunk's context_text: the text to embed
without timing lines. The chunk's offsets span its cue blocks in the file, up to
the next block, so the file is covered except the WEBVTT header and NOTE, STYLE
and REGION blocks, which are declared gaps ("header", "note", ...), not chunks.
"""

from __future__ import annotations

from dataclasses import replace

from . import Param, Proposal, Strategy, register
from ..core.model import Span


def _groups(cues, size: int):
    group: list = []
    chars = 0
    for cue in cues:
        added = len(cue.text) + (1 if group else 0)
        if group and chars + added > size:
            yield group
            group, added = [], len(cue.text)
            chars = 0
        group.append(cue)
        chars += added
    if group:
        yield group


def run(doc, params, ctx) -> Proposal:
    from ..readers.subtitles import parse_subtitles  # webvtt only when subtitles are chunked

    subs = parse_subtitles(doc)
    # a chunk runs to the start of the next block, so blank separator lines stay covered
    block_starts = sorted([c.block_start for c in subs.cues] + [s for s, _, _ in subs.blocks])
    next_block = {a: b for a, b in zip(block_starts, block_starts[1:])}
    spans = []
    for group in _groups(subs.cues, params["max_chars"]):
        ctx.check()
        first, last = group[0], group[-1]
        earliest = min(group, key=lambda c: c.start_ms)  # first and last in the file unless cues are out of order
        latest = max(group, key=lambda c: c.end_ms)
        text = "\n".join(c.text for c in group)
        meta = {
            "ts_start": earliest.start,
            "ts_end": latest.end,
            "start_ms": earliest.start_ms,
            "end_ms": latest.end_ms,
            "cue_count": len(group),
            "cue_text_chars": len(text),
            "format": subs.format,
            "cue_ids": [c.identifier or f"#{c.index + 1}" for c in group],
        }
        voices = list(dict.fromkeys(c.voice for c in group if c.voice))
        if voices:
            meta["speakers"] = voices
        if len(group) == 1 and len(text) > params["max_chars"]:
            meta["oversized"] = True
        end = next_block.get(last.block_start, len(doc.text))
        spans.append(Span(first.block_start, end, "cue", f"{earliest.start} --> {latest.end}", meta, context_text=text))
    if spans and not subs.blocks:  # SRT: blank lines before the first cue belong to the first chunk
        spans[0] = replace(spans[0], start=0)
    gaps = [] if spans or subs.blocks else [(0, len(doc.text), "blank")]
    for start, _end, kind in subs.blocks:
        gaps.append((start, next_block.get(start, len(doc.text)), kind))
    notes = [f"cues: {len(subs.cues):,} {subs.format.upper()} cues"]
    if subs.header and spans:  # the WEBVTT header's title and metadata travel with the first chunk
        spans[0] = replace(spans[0], metadata={**spans[0].metadata, "header": dict(subs.header)})
    return Proposal(spans, gaps=gaps, notes=notes, warnings=_order_warnings(subs.cues))


def _order_warnings(cues) -> list[str]:
    """One warning naming the first cue that starts before the cue above it, if any: chunks keep the
    file's order, so such a chunk's time range is its cues' earliest start to their latest end."""
    late = next(((a, b) for a, b in zip(cues, cues[1:]) if b.start_ms < a.start_ms), None)
    if late is None:
        return []
    above, cue = late
    return [
        f"cues out of order: cue {cue.identifier or f'#{cue.index + 1}'} (line {cue.line}) starts at {cue.start}, "
        f"before the cue above it ({above.start}); chunks keep file order, each timed from its earliest "
        "start to its latest end"
    ]


register(
    Strategy(
        name="cues",
        summary="Subtitle cues (WebVTT/SRT) grouped up to a size, keeping each chunk's start and end timestamps.",
        params=(
            Param(
                "max_chars",
                "int",
                1000,
                "Most characters of cue text per chunk; a longer cue is a chunk of its own.",
                min=1,
                max=10_000_000,
                step=100,
                aliases=("size",),
            ),
        ),
        run=run,
        kinds=("subtitles",),
        aliases=("subtitles",),
        size_param="max_chars",
        overlap_param=None,
    )
)
