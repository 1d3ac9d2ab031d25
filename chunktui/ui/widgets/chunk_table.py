"""The chunk table: one row a chunk; highlighting a row selects that chunk."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable
from textual.widgets._data_table import Row, RowKey

from ...engine import ChunkSet

COLUMNS = ("#", "lines", "chars", "tokens", "type", "label")
LABEL_WIDTH = 60  # the label column scrolls sideways past this
MIN_LABEL_WIDTH = 12
NUMERIC = ("#", "chars", "tokens")
PATH_KEYS = ("scope_chain", "header_path")


def label_tail(parts: list[str], width: int) -> str:
    """The most specific end of a path that fits `width` cells: `… > Install > Shell completion`.

    Every markdown path starts with the same H1 and every code chain with the same module, so the
    end is what tells rows apart; what is cut goes at the left, marked with an ellipsis.
    """
    shown: list[str] = []
    for part in reversed(parts):
        candidate = " > ".join([part, *shown])
        cut = len(shown) + 1 < len(parts)
        if cell_len(candidate) + (2 if cut else 0) > width and shown:
            break
        shown.insert(0, part)
    text = " > ".join(shown)
    if len(shown) < len(parts):
        text = "…" + (" > " if cell_len(text) + 4 <= width else "") + text
    if cell_len(text) > width:
        text = "…" + text[-(width - 1):]
    return text


def chunk_label(chunk, width: int) -> str:
    """Scope chain or header path (its end), else the boundary label."""
    for key in PATH_KEYS:
        value = chunk.metadata.get(key)
        if value:
            return label_tail([str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)], width)
    return chunk.boundary_label


class ChunkTable(DataTable):
    """#, line range, chars, tokens (red over budget), boundary type, label (scope chain / header path)."""

    def __init__(self, **kwargs) -> None:
        # no cell padding: one space before each column instead of two cells around it leaves the label room
        super().__init__(cursor_type="row", zebra_stripes=True, cell_padding=0, **kwargs)

    def on_mount(self) -> None:
        self._set_columns([len(name) for name in COLUMNS])

    def _update_dimensions(self, new_rows) -> None:
        """Skip DataTable's measuring of every new cell: the columns have fixed widths and the rows one
        line, so it can only confirm what is known (1.5 s of the event loop for 6,000 chunks)."""
        super()._update_dimensions(())

    def _append_rows(self, rows) -> None:
        """DataTable.add_row's bookkeeping once for all rows instead of per row, where its cursor
        reactive and idle check cost 0.3 s for 6,000 chunks (Textual is pinned: private fields)."""
        keys = [column.key for column in self.ordered_columns]
        first = index = len(self.rows)
        for cells in rows:
            key = RowKey(None)
            self._row_locations[key] = index
            self._data[key] = dict(zip(keys, cells))
            self.rows[key] = Row(key, 1, None, False)
            self._new_rows.add(key)
            index += 1
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate
        if first == 0 < index and self.show_cursor and self.cursor_type != "none":
            self._highlight_cursor()  # as add_row does when the table gets its first row
        self._update_count += 1
        self.check_idle()

    def _set_columns(self, widths: list[int]) -> None:
        """Columns sized from the rows up front, so the table never re-measures (or shifts) after drawing."""
        self.clear(columns=True)
        for name, width in zip(COLUMNS, widths):
            header = Text(name, justify="right") if name in NUMERIC else Text(" " + name)
            self.add_column(header, key=name, width=width + 1)

    def _label_room(self, chunkset: ChunkSet) -> int:
        """Cells left for the label once the other columns are drawn (a path keeps its end in view)."""
        chunks = chunkset.chunks
        fixed = [len(str(len(chunks))), max((len(f"{c.start_line}-{c.end_line}") for c in chunks), default=5),
                 len(f"{max((c.chars for c in chunks), default=0):,}"),
                 len(f"{max((c.tokens for c in chunks), default=0):,}"),
                 max((len(c.boundary_type) for c in chunks), default=4)]
        used = sum(max(len(name), w) + 1 for name, w in zip(COLUMNS, fixed)) + 1
        room = (self.scrollable_content_region.width or 50) - used
        return max(MIN_LABEL_WIDTH, min(LABEL_WIDTH, room))

    def show(self, chunkset: ChunkSet | None, budget: int) -> None:
        if chunkset is None:
            self._set_columns([len(name) for name in COLUMNS])
            return
        rows = []
        width = self._label_room(chunkset)
        for c in chunkset.chunks:
            marks = ("⚠ " if c.metadata.get("oversized") else "") + ("✂ " if c.metadata.get("split_entity") else "")
            rows.append((str(c.index + 1), f"{c.start_line}-{c.end_line}", f"{c.chars:,}", f"{c.tokens:,}",
                         c.boundary_type, marks + chunk_label(c, width - len(marks))))
        widths = [max([len(name)] + [cell_len(row[i]) for row in rows]) for i, name in enumerate(COLUMNS)]
        widths[-1] = min(widths[-1], LABEL_WIDTH)
        self._set_columns(widths)
        over = {i for i, c in enumerate(chunkset.chunks) if c.tokens > budget}
        self._append_rows(
            (Text(n, justify="right"), " " + lines, Text(chars, justify="right"),
             Text(tokens, "red bold" if i in over else "", justify="right"), " " + kind, " " + label)
            for i, (n, lines, chars, tokens, kind, label) in enumerate(rows)
        )
