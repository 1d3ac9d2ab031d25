"""The size histogram once the quality of the shown chunkset is known: flagged chunks stack in orange."""

from __future__ import annotations

from chunktui.engine import ChunkSet
from .histogram import HistogramData, SizeHistogram, histogram_data


class FlaggedHistogram(SizeHistogram):
    """Like SizeHistogram; remembers which chunks of which chunkset are flagged (and their bars,
    binned by the quality worker) and redraws with them."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._flags_for: ChunkSet | None = None
        self._flagged_data: HistogramData | None = None
        self._last: tuple | None = None

    def show(
        self,
        chunkset: ChunkSet | None,
        budget: int,
        unit: str,
        flagged: set[int] | None = None,
        data: HistogramData | None = None,
    ) -> None:
        self._last = (chunkset, budget, unit, data)
        if chunkset is not None and chunkset is self._flags_for:
            super().show(chunkset, budget, unit, self.flagged, self._flagged_data)
        else:
            super().show(chunkset, budget, unit, None, data)

    def mark_flagged(self, chunkset: ChunkSet | None, indexes, data: HistogramData | None = None) -> None:
        """Flagged chunk indexes of `chunkset` and its bars with them (`histogram_data`, made by the
        quality worker; made here when not given); redraws when it is the one shown."""
        self._flags_for, self.flagged = chunkset, set(indexes)
        self._flagged_data = data if data is not None or chunkset is None else histogram_data(chunkset.chunks, indexes)
        if self._last is not None and self._last[0] is chunkset:
            self.show(*self._last)
