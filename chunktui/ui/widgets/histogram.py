"""Histogram of chunk sizes (tokens or chars) with the token budget as a labelled vertical line."""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from operator import attrgetter
from typing import TypeGuard

from textual_plotext import PlotextPlot

from chunktui.engine import ChunkSet

MAX_BINS = 20
CLEAN_COLOR = "blue"
FLAGGED_COLOR = "orange"
BUDGET_COLOR = "red"


def bin_edges(values: list[int], bins: int) -> tuple[int, int]:
    """(first edge, whole-number bin width) so `bins` bins of equal width cover every value."""
    lo, hi = min(values), max(values)
    width = max(1, ceil((hi - lo + 1) / bins))
    return lo, width


def binned(values: list[int], flagged: list[bool], bins: int) -> tuple[list[float], list[int], list[int], int]:
    """Bin centres and the clean and flagged counts per bin, and the bin width (whole units)."""
    lo, width = bin_edges(values, bins)
    count = (max(values) - lo) // width + 1
    clean, bad = [0] * count, [0] * count
    for v, f in zip(values, flagged):
        (bad if f else clean)[(v - lo) // width] += 1
    centres = [lo + width * (i + 0.5) for i in range(count)]
    return centres, clean, bad, width


def count_ticks(top: int) -> list[int]:
    """Whole-number y ticks from 0 to `top` (chunk counts are never fractional), at most 6 of them."""
    step = max(1, ceil(top / 5))
    return list(range(0, top + step, step))


def budget_in_range(mark: float | None, smallest: int, largest: int) -> TypeGuard[float]:
    """Draw the budget line when it lands near the bars, not when it would squash them into one corner."""
    return mark is not None and smallest * 0.5 <= mark <= largest * 1.5


def fit_title(title: str, width: int) -> str:
    """As many of the title's ` · `-separated parts as fit `width` (plotext drops a title that does
    not fit whole, and in a narrow pane the budget's part went with it)."""
    parts = title.split(" · ")
    while len(parts) > 1 and len(" · ".join(parts)) > width:
        parts.pop()
    return " · ".join(parts)


@dataclass(frozen=True)
class HistogramData:
    """A chunking's sizes in both units and their bars, made off the event loop (`histogram_data`)."""

    values: dict[str, list[int]]  # "tokens" (embedded) and "chars", one per chunk
    bars: dict[str, tuple]  # per unit: `binned` (centres, clean and flagged counts, bin width)
    extent: dict[str, tuple[int, int]]  # per unit: the smallest and largest size
    chars_per_token: float | None
    flagged: bool  # some chunk is flagged (its share of each bar is drawn orange)


def histogram_data(chunks, flagged=()) -> HistogramData:
    """Every chunk's size in tokens and chars, binned with the `flagged` indexes set apart: a pass
    over all chunks, for a worker thread to make."""
    values = {"tokens": list(map(attrgetter("embed_tokens"), chunks)), "chars": list(map(attrgetter("chars"), chunks))}
    marked = [False] * len(chunks)
    for i in flagged:
        marked[i] = True
    bins = min(MAX_BINS, max(5, len(chunks) // 2))
    tokens = sum(values["tokens"])
    return HistogramData(
        values,
        {unit: binned(v, marked, bins) if v else () for unit, v in values.items()},
        {unit: (min(v), max(v)) if v else (0, 0) for unit, v in values.items()},
        sum(values["chars"]) / tokens if tokens else None,
        any(marked),
    )


class SizeHistogram(PlotextPlot):
    """Redrawn from the chunkset; `unit` is "tokens" or "chars" (the `t` key toggles it).

    Flagged chunks (quality flags, set by a subclass) stack in their own colour on each bar.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.unit = "tokens"
        self.values: list[int] = []
        self.flagged: set[int] = set()
        self.budget_mark: float | None = None

    def show(
        self,
        chunkset: ChunkSet | None,
        budget: int,
        unit: str,
        flagged: set[int] | None = None,
        data: HistogramData | None = None,
    ) -> None:
        """Draw `chunkset`'s sizes in `unit`: from `data` when a worker made it, else from its chunks."""
        self.unit = unit
        if data is None:
            data = histogram_data(chunkset.chunks if chunkset is not None else [], flagged or ())
        self.values = data.values[unit]
        any_flagged = data.flagged
        self.budget_mark = (
            float(budget)
            if unit == "tokens"
            else (budget * data.chars_per_token if data.chars_per_token is not None else None)
        )
        plt = self.plt
        plt.clear_figure()
        sign = "=" if unit == "tokens" else "≈"
        title = f"chunk sizes in {unit}"
        if self.values:
            centres, clean, bad, width = data.bars[unit]
            # each bar is its total (orange: flagged) with its clean part drawn over it, over the same x
            # positions so both get the same width (plotext's stacked bars draw empty layers as lines)
            # no plotext legend: it sits in the top-left corner, where the budget's label may need to go
            if any_flagged:
                plt.bar(centres, [a + b for a, b in zip(clean, bad)], color=FLAGGED_COLOR, width=0.8)
                title += f" · {FLAGGED_COLOR}: flagged"
            plt.bar(centres, clean, color=CLEAN_COLOR, width=0.8)
            top = max(a + b for a, b in zip(clean, bad))
            ticks = count_ticks(top)
            plt.yticks(list[float](ticks))  # plotext's hint asks for a list of floats (ints are drawn as ints)
            lo, hi = centres[0] - width / 2, centres[-1] + width / 2
            edges = [round(lo + width * i) for i in range(len(centres) + 1)]
            every = max(1, ceil(len(edges) / 5))
            plt.xticks(edges[::every], [f"{e:,}" for e in edges[::every]])
            mark = self.budget_mark
            smallest, largest = data.extent[unit]
            if budget_in_range(mark, smallest, largest):
                lo, hi = min(lo, mark), max(hi, mark)
                room = ticks[-1] + max(1, ticks[1] // 2)  # a row above the bars for the budget's label
                plt.ylim(0, room)
                plt.vline(mark, BUDGET_COLOR)
                plt.text(
                    f"budget {mark:,.0f}",
                    mark,
                    room,
                    color=BUDGET_COLOR,
                    background="default",
                    alignment="right" if mark > (lo + hi) / 2 else "left",
                )
            else:
                plt.ylim(0, ticks[-1])
            if mark is not None and not budget_in_range(mark, smallest, largest):
                side = "all below" if mark > largest else "all above"
                title = f"{side} budget {sign} {mark:,.0f} · {unit}" + (
                    f" · {FLAGGED_COLOR}: flagged" if any_flagged else ""
                )
            plt.xlim(lo, hi)
        plt.title(
            fit_title(title, self.size.width - 2)
        )  # no x label: the title names the unit and the plot keeps a row for its bars
        self.refresh()
