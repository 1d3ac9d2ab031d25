"""The size histogram once the quality of the shown chunkset is known: flagged chunks stack in orange."""

from __future__ import annotations

from chunktui.engine import ChunkSet
from .histogram import SizeHistogram


class FlaggedHistogram(SizeHistogram):
    """Like SizeHistogram; remembers which chunks of which chunkset are flagged and redraws with them."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._flags_for: ChunkSet | None = None
        self._last: tuple | None = None

    def show(self, chunkset: ChunkSet | None, budget: int, unit: str, flagged: set[int] | None = None) -> None:
        self._last = (chunkset, budget, unit)
        mine = self.flagged if chunkset is not None and chunkset is self._flags_for else set()
        super().show(chunkset, budget, unit, mine)

    def mark_flagged(self, chunkset: ChunkSet | None, indexes) -> None:
        """Flagged chunk indexes of `chunkset`; redraws when it is the one shown."""
        self._flags_for, self.flagged = chunkset, set(indexes)
        if self._last is not None and self._last[0] is chunkset:
            self.show(*self._last)
