"""Cue timings in the detail pane: when the selected subtitle chunk plays, and where it sits in the talk.

Reads the cues strategy's metadata (ts_start, ts_end, start_ms, end_ms, cue_count,
speakers), so a reloaded chunks.yaml shows the same. The list of every chunk's time
range is cut to a window around the selected chunk so a long recording stays cheap, and the
pass over every chunk is made once per chunking, in its worker (`cue_index`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from chunktui.engine import Chunk, ChunkSet
from .chunk_detail import on_click, register_detail_panel

BAR_WIDTH = 48  # cells of the timeline bar
AROUND = 8  # chunks listed before and after the selected one


def is_cue_chunk(chunk: Chunk) -> bool:
    meta = chunk.metadata
    return "cue_count" in meta and "ts_start" in meta and "ts_end" in meta


def duration(ms: int) -> str:
    """Milliseconds as m:ss.s, or h:mm:ss.s past an hour."""
    seconds = ms / 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{int(hours)}:{int(minutes):02d}:{secs:04.1f}" if hours >= 1 else f"{int(minutes)}:{secs:04.1f}"


def _cues(n: int) -> str:
    return f"{n} cue{'s' if n != 1 else ''}"


def _span(chunk: Chunk) -> tuple[int, int] | None:
    start, end = chunk.metadata.get("start_ms"), chunk.metadata.get("end_ms")
    return (start, end) if isinstance(start, int) and isinstance(end, int) else None


def _bar(chunk: Chunk, cues: CueIndex) -> Text | None:
    """The recording as a bar with the selected chunk's stretch filled in."""
    mine = _span(chunk)
    if cues.first is None or cues.last is None or mine is None:
        return None
    first, last = cues.first, cues.last
    total = max(1, last - first)
    a = int((mine[0] - first) / total * BAR_WIDTH)
    b = max(a + 1, round((mine[1] - first) / total * BAR_WIDTH))
    bar = Text("─" * a, style="dim")
    bar.append("█" * (b - a), style="bold cyan")
    bar.append("─" * (BAR_WIDTH - b), style="dim")
    bar.append(f"  at {duration(mine[0])} of {duration(last)}", style="dim")
    return bar


@dataclass(frozen=True)
class CueIndex:
    """A chunk set's cue chunks in order, where each sits among them (by chunk index), and when the
    recording starts and ends: a pass over every chunk, made once per chunk set in the chunking's
    worker (`prepare_panels`), not at each selection on the event loop."""

    chunks: list[Chunk]
    position: dict[int, int]
    first: int | None
    last: int | None


_cache: tuple = (None, None)  # (chunkset, its CueIndex), replaced whole: a worker thread fills it


def cue_index(cs: ChunkSet) -> CueIndex:
    global _cache
    shown, cues = _cache
    if shown is not cs:
        chunks = [c for c in cs.chunks if is_cue_chunk(c)]
        spans = [s for s in map(_span, chunks) if s]
        cues = CueIndex(
            chunks,
            {c.index: i for i, c in enumerate(chunks)},
            min((s for s, _ in spans), default=None),
            max((e for _, e in spans), default=None),
        )
        _cache = (cs, cues)
    return cues


def cue_panel(chunk: Chunk, cs: ChunkSet):
    """The selected chunk's timing, a bar over the whole recording, and nearby chunks' ranges; None off subtitles."""
    if not is_cue_chunk(chunk):
        return None
    meta = chunk.metadata
    head = Text()
    head.append(f"{meta['ts_start']} → {meta['ts_end']}", style="bold")
    span = _span(chunk)
    if span:
        head.append(f"  {duration(span[1] - span[0])}")
    head.append(f"  {_cues(meta['cue_count'])}")
    if meta.get("speakers"):
        head.append(f"\nspeakers: {', '.join(meta['speakers'])}")
    index = cue_index(cs)
    cues = index.chunks
    parts: list[Text | Table] = [head]
    bar = _bar(chunk, index)
    if bar is not None:
        parts.append(bar)
    here = index.position.get(chunk.index, 0)
    lo, hi = max(0, here - AROUND), min(len(cues), here + AROUND + 1)
    rows = Table.grid(padding=(0, 1))
    for _ in range(5):
        rows.add_column(no_wrap=True)
    if lo:
        parts.append(Text(f"  … {lo} earlier", style="dim"))
    for c in cues[lo:hi]:
        mine = c is chunk
        s = _span(c)
        rows.add_row(
            Text("▶" if mine else " ", style="bold"),
            Text(f"#{c.index + 1}", style=on_click(f"select_chunk({c.index})", "bold" if mine else "dim")),
            Text(f"{c.metadata['ts_start']} → {c.metadata['ts_end']}", style="bold reverse" if mine else ""),
            Text(duration(s[1] - s[0]) if s else "", style="dim"),
            Text(_cues(c.metadata["cue_count"]), style="dim"),
        )
    parts.append(rows)
    if hi < len(cues):
        parts.append(Text(f"  … {len(cues) - hi} later", style="dim"))
    return Group(*parts)


register_detail_panel("Cue times", cue_panel, cue_index)
