"""Gaps in the detail pane: the text no chunk covers, counted per reason and listed by line range.

Sampling strategies (log, data) leave gaps by design, prose drops boilerplate, cues
skip the header and notes; the user must see how much was left out and why. The
totals come straight from `ChunkSet.gaps`; the list is cut to a window around the
selected chunk, with the gaps just before and after it marked.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from chunktui.engine import Chunk, ChunkSet
from chunktui.engine.core.model import Gap
from .chunk_detail import on_click, register_detail_panel

AROUND = 6  # gaps listed before and after the selected chunk


@dataclass(frozen=True)
class GapTotal:
    reason: str
    count: int
    lines: int
    chars: int
    share: float  # of the document's characters


def gap_lines(gap: Gap) -> int:
    """Lines the gap touches: a gap of a few characters inside one line counts as one."""
    return gap.end_line - gap.start_line + 1


def gap_totals(cs: ChunkSet) -> list[GapTotal]:
    """One total per reason, in order of first appearance."""
    size = max(1, len(cs.document.text))
    sums: dict[str, list[int]] = {}
    for g in cs.gaps:
        total = sums.setdefault(g.reason, [0, 0, 0])
        total[0] += 1
        total[1] += gap_lines(g)
        total[2] += g.chars
    return [GapTotal(reason, n, lines, chars, chars / size) for reason, (n, lines, chars) in sums.items()]


def _share(share: float) -> str:
    return "<1%" if 0 < share < 0.01 else f"{share:.0%}"


def total_line(reason: str, lines: int, chars: int, share: float) -> str:
    """'sampled out: 312 lines, 41,022 chars (78%)'."""
    return f"{reason}: {lines:,} line{'s' if lines != 1 else ''}, {chars:,} chars ({_share(share)})"


def gaps_panel(chunk: Chunk, cs: ChunkSet):
    """Totals per reason and the gaps near `chunk`; None when every character is in a chunk."""
    gaps = cs.gaps
    if not gaps:
        return None
    totals = gap_totals(cs)
    head = Text()
    for t in totals:
        head.append(total_line(t.reason, t.lines, t.chars, t.share) + "\n", style="yellow")
    if len(totals) > 1:
        head.append(
            total_line(
                f"all {len(gaps)} gaps",
                sum(t.lines for t in totals),
                sum(t.chars for t in totals),
                sum(t.share for t in totals),
            )
            + "\n",
            style="bold yellow",
        )
    head.rstrip()
    here = bisect_left([g.start for g in gaps], chunk.start)
    lo, hi = max(0, here - AROUND), min(len(gaps), here + AROUND)
    cells = [
        (
            "↓" if g.end == chunk.start else "↑" if g.start == chunk.end else " ",  # runs into / out of it
            f"lines {g.start_line}-{g.end_line}",
            f"{gap_lines(g):,} lines",
            f"{g.chars:,} chars",
        )
        for g in gaps[lo:hi]
    ]
    rows = Table.grid(padding=(0, 1))
    for n in range(4):  # fixed columns keep their width; a long reason folds instead
        rows.add_column(no_wrap=True, justify="right" if n > 1 else "left", min_width=max(len(c[n]) for c in cells))
    rows.add_column(overflow="fold")
    for (mark, where, *numbers), g in zip(cells, gaps[lo:hi]):  # a click on the line range goes there
        rows.add_row(
            Text(mark, style="bold"),
            Text(where, style=on_click(f"goto_line({g.start_line})")),
            *numbers,
            Text(g.reason, style="dim"),
        )
    parts: list[Text | Table] = [head]
    if lo:
        parts.append(Text(f"  … {lo} earlier gaps", style="dim"))
    parts.append(rows)
    if hi < len(gaps):
        parts.append(Text(f"  … {len(gaps) - hi} later gaps", style="dim"))
    if any(g.end == chunk.start or g.start == chunk.end for g in gaps[lo:hi]):
        parts.append(Text("↓ gap ends where this chunk starts · ↑ gap starts where it ends", style="dim"))
    return Group(*parts)


register_detail_panel("Gaps (text in no chunk)", gaps_panel)
