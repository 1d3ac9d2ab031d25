"""The chunk table: one row a chunk; highlighting a row selects that chunk."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from ...engine import ChunkSet

COLUMNS = ("#", "lines", "chars", "tokens", "type", "label")


class ChunkTable(DataTable):
    """#, line range, chars, tokens (red over budget), boundary type, label (scope chain / header path)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.add_column(name, key=name)

    def show(self, chunkset: ChunkSet | None, budget: int) -> None:
        self.clear()
        if chunkset is None:
            return
        rows = []
        for c in chunkset.chunks:
            tokens = Text(f"{c.tokens:,}", "red bold" if c.tokens > budget else "", justify="right")
            label = c.label
            if c.metadata.get("split_entity"):
                label = "✂ " + label
            if c.metadata.get("oversized"):
                label = "⚠ " + label
            rows.append((Text(str(c.index + 1), justify="right"), f"{c.start_line}-{c.end_line}",
                         Text(f"{c.chars:,}", justify="right"), tokens, c.boundary_type, label))
        self.add_rows(rows)
