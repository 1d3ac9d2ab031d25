"""Histogram of chunk sizes (tokens or chars) with the token budget as a vertical line."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from ...engine import ChunkSet


class SizeHistogram(PlotextPlot):
    """Redrawn from the chunkset; `unit` is "tokens" or "chars" (the `t` key toggles it)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.unit = "tokens"
        self.values: list[int] = []
        self.budget_mark: float | None = None

    def show(self, chunkset: ChunkSet | None, budget: int, unit: str) -> None:
        self.unit = unit
        chunks = chunkset.chunks if chunkset is not None else []
        self.values = [c.tokens if unit == "tokens" else c.chars for c in chunks]
        if unit == "tokens":
            self.budget_mark = float(budget)
        else:
            # the budget is in tokens: mark its equivalent in chars at this document's chars per token
            tokens = sum(c.tokens for c in chunks)
            self.budget_mark = budget * sum(c.chars for c in chunks) / tokens if tokens else None
        plt = self.plt
        plt.clear_figure()
        plt.title(f"chunk sizes in {unit} (budget {'=' if unit == 'tokens' else '≈'} {budget} tokens)")
        if self.values:
            plt.hist(self.values, bins=min(30, max(5, len(self.values) // 2)))
            if self.budget_mark is not None:
                # widen the x range so the budget line shows even when every chunk is far below it
                plt.xlim(min(0, min(self.values)), max(max(self.values), self.budget_mark) * 1.03)
                plt.vline(self.budget_mark, "red")
        plt.xlabel(unit)
        self.refresh()
