"""What the screen shows of a chunking that costs a pass over every chunk, made in the worker thread.

A 100 MB log under `log-records` is 117,000 chunks: the stats, the histogram's bars, the
table's column widths and the document view's lookup lists each took 40-170 ms of the event
loop per result (the longest stall of a `[` was 250-600 ms), and so did the detail pane's scope
tree. They are made here, next to the chunking, and the event loop only draws what is visible.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from itertools import accumulate
from operator import attrgetter

from chunktui.engine import ChunkSet, Stats
from chunktui.engine.core import slices
from .widgets.chunk_detail import prepare_panels
from .widgets.chunk_table import ColumnSizes, column_sizes
from .widgets.histogram import HistogramData, histogram_data


@dataclass(frozen=True)
class Prepared:
    """One chunking's figures for the screen: its stats at the run's budget (and the sorted
    token counts that give them at any other), its histogram in both units, the table's column
    widths, and each chunk's start and the furthest end so far (the document view's lookups)."""

    chunkset: ChunkSet
    stats: Stats
    sorted_tokens: list[int]
    histogram: HistogramData
    columns: ColumnSizes
    starts: list[int]
    max_ends: list[int]

    def stats_at(self, budget: int) -> Stats:
        """The stats with `budget`'s over-budget count (a budget change redraws without a pass)."""
        if budget == self.stats.budget:
            return self.stats
        return replace(
            self.stats, budget=budget, over_budget=len(self.sorted_tokens) - bisect_right(self.sorted_tokens, budget)
        )


def prepare(cs: ChunkSet, budget: int) -> Prepared:
    chunks = cs.chunks
    prepare_panels(cs)
    cs.chunk_at(0)  # builds the chunk starts its lookups bisect (the cursor's chunk), here rather than on first use
    # each pass over every chunk a slice at a time (slices.py): a C call over 117,000 chunks holds the GIL
    starts, ends = slices.mapped(attrgetter("start"), chunks), slices.mapped(attrgetter("end"), chunks)
    max_ends: list[int] = []
    for i in range(0, len(ends), slices.STEP):
        part = accumulate(ends[i : i + slices.STEP], max, initial=max_ends[-1] if max_ends else 0)
        next(part)  # the carry: the furthest end of the slices before
        max_ends += part
    return Prepared(
        chunkset=cs,
        stats=cs.stats(budget),
        sorted_tokens=slices.sorted_in_slices(slices.mapped(attrgetter("embed_tokens"), chunks)),
        histogram=histogram_data(chunks),
        columns=column_sizes(chunks),
        starts=starts,
        max_ends=max_ends,
    )
