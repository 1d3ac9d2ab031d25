"""The chunk table: one row a chunk; highlighting a row selects that chunk."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from ...engine import ChunkSet

COLUMNS = ("#", "lines", "chars", "tokens", "type", "label")
LABEL_WIDTH = 60  # the label column scrolls sideways past this


class ChunkTable(DataTable):
    """#, line range, chars, tokens (red over budget), boundary type, label (scope chain / header path)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)

    def on_mount(self) -> None:
        self._set_columns([len(name) for name in COLUMNS])

    def _set_columns(self, widths: list[int]) -> None:
        """Columns sized from the rows up front, so the table never re-measures (or shifts) after drawing."""
        self.clear(columns=True)
        for name, width in zip(COLUMNS, widths):
            self.add_column(name, key=name, width=width)

    def show(self, chunkset: ChunkSet | None, budget: int) -> None:
        if chunkset is None:
            self._set_columns([len(name) for name in COLUMNS])
            return
        rows = []
        for c in chunkset.chunks:
            label = c.label
            if c.metadata.get("split_entity"):
                label = "✂ " + label
            if c.metadata.get("oversized"):
                label = "⚠ " + label
            rows.append((str(c.index + 1), f"{c.start_line}-{c.end_line}", f"{c.chars:,}", f"{c.tokens:,}",
                         c.boundary_type, label))
        widths = [max([len(name)] + [cell_len(row[i]) for row in rows]) for i, name in enumerate(COLUMNS)]
        widths[-1] = min(widths[-1], LABEL_WIDTH)
        self._set_columns(widths)
        over = {i for i, c in enumerate(chunkset.chunks) if c.tokens > budget}
        self.add_rows(
            (Text(n, justify="right"), lines, Text(chars, justify="right"),
             Text(tokens, "red bold" if i in over else "", justify="right"), kind, label)
            for i, (n, lines, chars, tokens, kind, label) in enumerate(rows)
        )
