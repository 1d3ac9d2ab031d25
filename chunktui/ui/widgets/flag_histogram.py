"""The size histogram with flagged chunks stacked in their own colour on each bar."""

from __future__ import annotations

from ...engine import ChunkSet
from .histogram import SizeHistogram

FLAGGED_COLOR = "orange"
CLEAN_COLOR = "blue"


def binned(values: list[int], flagged: list[bool], bins: int) -> tuple[list[str], list[int], list[int]]:
    """Bar labels (bin start) and the clean and flagged counts per bin, over a shared range."""
    lo, hi = min(values), max(values)
    step = (hi - lo) / bins if hi > lo else 1
    clean, bad = [0] * bins, [0] * bins
    for v, f in zip(values, flagged):
        i = min(bins - 1, int((v - lo) / step)) if hi > lo else 0
        (bad if f else clean)[i] += 1
    labels = [f"{lo + step * i:.0f}" for i in range(bins)]
    return labels, clean, bad


class FlaggedHistogram(SizeHistogram):
    """Like SizeHistogram; once the quality of the shown chunkset is known, flagged chunks stack in orange."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.flagged: set[int] = set()
        self._flags_for: ChunkSet | None = None
        self._last: tuple | None = None

    def show(self, chunkset: ChunkSet | None, budget: int, unit: str) -> None:
        self._last = (chunkset, budget, unit)
        if chunkset is None or chunkset is not self._flags_for or not self.flagged:
            super().show(chunkset, budget, unit)
            return
        chunks = chunkset.chunks
        values = [c.tokens if unit == "tokens" else c.chars for c in chunks]
        self.unit, self.values = unit, values
        plt = self.plt
        plt.clear_figure()
        bins = min(20, max(5, len(values) // 2))
        labels, clean, bad = binned(values, [c.index in self.flagged for c in chunks], bins)
        plt.title(f"chunk sizes in {unit}: {len(self.flagged)} flagged (orange) · budget {budget} tokens")
        plt.stacked_bar(labels, [clean, bad], color=[CLEAN_COLOR, FLAGGED_COLOR], labels=["clean", "flagged"])
        tokens = sum(c.tokens for c in chunks)
        mark = budget if unit == "tokens" else (budget * sum(c.chars for c in chunks) / tokens if tokens else None)
        self.budget_mark = mark
        lo, hi = min(values), max(values)
        if mark is not None and hi > lo and lo <= mark <= hi:
            plt.vline(1 + (mark - lo) / ((hi - lo) / bins) - 0.5, "red")  # bars sit at x = 1..bins
        plt.xlabel(unit)
        self.refresh()

    def mark_flagged(self, chunkset: ChunkSet | None, indexes) -> None:
        """Flagged chunk indexes of `chunkset`; redraws when it is the one shown."""
        self._flags_for, self.flagged = chunkset, set(indexes)
        if self._last is not None and self._last[0] is chunkset:
            self.show(*self._last)
