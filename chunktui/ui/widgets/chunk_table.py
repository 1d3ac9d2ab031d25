"""The chunk table: one row a chunk; highlighting a row selects that chunk.

A Line API view (like the document view): the column widths come from one pass over the
chunks that the chunking's worker makes (`column_sizes`), and a row becomes text and segments
when it scrolls into view, so a 117,000-chunk result costs the event loop what the ~40 visible
rows cost, not what every row would.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from chunktui.engine import Chunk, ChunkSet
from chunktui.engine.core.model import one_line
from chunktui.ui.compat import update_scrollbars

COLUMNS = ("#", "lines", "chars", "tokens", "type", "label", "pages")  # the cells, as get_cell_at numbers them
DRAWN = ("#", "lines", "pages", "chars", "tokens", "type", "label")  # left to right; pages only for a PDF
LABEL_WIDTH = 60  # cells a label is cut to (in the middle) however wide the pane
MIN_LABEL_WIDTH = 12
ROOMY_LABEL = 24  # below this much room for the label, the type column gives it its cells, then the lines column
NARROW_DROPS = ("type", "lines")
NUMERIC = ("#", "chars", "tokens")


def page_cell(chunk) -> str:
    """The pages column: `3`, or `3-4` for a chunk across a page break; empty for a source without pages."""
    first, last = chunk.metadata.get("page_start"), chunk.metadata.get("page_end")
    if first is None:
        return ""
    return str(first) if first == last else f"{first}-{last}"


def token_cell(chunk) -> str:
    """The tokens column: the embedded count (what the budget judges), after the span's count
    where the two differ (`431→223`: a cue's span and its cue text)."""
    if chunk.embed_tokens == chunk.tokens:
        return f"{chunk.tokens:,}"
    return f"{chunk.tokens:,}→{chunk.embed_tokens:,}"


PATH_KEYS = ("scope_chain", "header_path")
CACHE_ROWS = 512


def middle_cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut in the middle (`Version 1.80…> Cargo`): a path's start
    and its end both tell rows apart, so every label loses its middle, never one of its ends."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head, tail = "", ""
    left, right = 0, len(text)
    budget = width - 1
    while left < right:  # take a character from each end in turn while it fits
        if cell_len(head) <= cell_len(tail):
            if cell_len(head + text[left]) + cell_len(tail) > budget:
                break
            head += text[left]
            left += 1
        else:
            if cell_len(head) + cell_len(text[right - 1] + tail) > budget:
                break
            tail = text[right - 1] + tail
            right -= 1
    return head + "…" + tail


def end_cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, its end replaced by an ellipsis."""
    if cell_len(text) <= width:
        return text
    while text and cell_len(text) > width - 1:
        text = text[:-1]
    return text + "…"


def _common(a: list[str], b: list[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def distinct_label(parts: list[str], neighbours: list[list[str]], width: int, part: int = 1, root: int = 0) -> str:
    """A path from the shallowest level at which it differs from its neighbours' paths down to its
    end: `… > 1.80.0 (2024-07-25) > Cargo` beside `… > 1.79.0 > Cargo`, not `… > Cargo` twice.
    Rows of one section (its split pieces) share the whole path and are told apart by their part
    number: `Class: FileHandle (2)`. The first `root` levels, shared by every row (a document's
    title), are left out. What does not fit is cut where it says least: the end of the level that
    tells rows apart, then the middle."""
    first = min((_common(parts, other) for other in neighbours), default=0)
    first = min(first, len(parts) - 1)
    if first == len(parts) - 1 and first - 1 >= root:
        first -= 1  # a leaf alone (`Cargo`) recurs under many parents: show the one it is under
    shown = parts[first:]
    lead = "… > " if first > root else ""
    suffix = f" ({part})" if part > 1 else ""
    room = max(1, width - cell_len(suffix))
    text = lead + " > ".join(shown)
    if cell_len(text) > room and len(shown) > 1:
        # keep the level that tells the rows apart from its start, and the path's end whole
        tail = (" > … > " if len(shown) > 2 else " > ") + shown[-1]
        avail = room - cell_len(lead) - cell_len(tail)
        if avail >= 6:
            text = lead + end_cut(shown[0], avail) + tail
    return middle_cut(text, room) + suffix


def _path(chunk) -> list[str] | None:
    for key in PATH_KEYS:
        value = chunk.metadata.get(key)
        if value:
            return [one_line(str(v)) for v in value] if isinstance(value, (list, tuple)) else [one_line(str(value))]
    return None


def chunk_label(chunk, width: int, neighbours: tuple = (), part: int = 1, root: int = 0) -> str:
    """Scope chain or header path (the part that tells it from its neighbours), else the boundary
    label; either is cut in the middle to `width`, so no label is cut on one side only. One line,
    whatever the strategy or a saved chunks.yaml gave: a line feed in a cell would break the row."""
    path = _path(chunk)
    if not path:
        return middle_cut(one_line(chunk.boundary_label), width)
    return distinct_label(path, [p for p in map(_path, neighbours) if p], width, part, root)


def shared_root(chunks) -> int:
    """Levels every row's path starts with, judged from the first and last rows (a document's
    title, a module's name), without a pass over all rows."""
    first, last = (_path(chunks[0]), _path(chunks[-1])) if chunks else (None, None)
    return _common(first, last) if first and last else 0


@dataclass(frozen=True)
class ColumnSizes:
    """What the column widths are made from, from one pass over the chunks (`column_sizes`)."""

    widest: tuple[int, ...]  # the widest text of each column but the label, in DRAWN order
    label: int  # the widest boundary label with its ⚠/✂ marks, in cells
    paths: bool  # some row's label is a path (cut to the room the pane leaves it)
    pages: bool  # some chunk has pages (a PDF's): else there is no pages column

    def label_width(self, room: int) -> int:
        """Label column width: `room` when some label is a path, else the widest boundary label up
        to `room` (a longer one is cut in the middle, as a path is)."""
        return max(len("label"), room if self.paths else min(room, self.label))


def column_sizes(chunks) -> ColumnSizes:
    """The widest cell of each column without building a row's text: a pass over every chunk, for
    the chunking's worker to make (at 117,000 chunks it took 170 ms of the event loop)."""
    longest, paths = 0, False
    for c in chunks:
        meta = c.metadata
        if meta.get("scope_chain") or meta.get("header_path"):
            paths = True
        else:
            label = c.boundary_label  # in cells: wide (CJK) characters take two
            n = (len(label) if label.isascii() else cell_len(label)) + (
                4 if meta.get("oversized") or meta.get("split_entity") else 0
            )
            if n > longest:
                longest = n
    last_page = max((c.metadata.get("page_end") or 0 for c in chunks), default=0)  # ints, no page cells
    widest = (
        len(str(len(chunks))),
        2 * len(str(max(map(attrgetter("end_line"), chunks), default=0))) + 1,  # "start-end", at most
        2 * len(str(last_page)) + 1,
        len(f"{max((c.end - c.start for c in chunks), default=0):,}"),
        max(map(len, map(token_cell, chunks)), default=1),
        max(map(len, map(attrgetter("boundary_type"), chunks)), default=0),
    )
    return ColumnSizes(widest, longest, paths, bool(last_page))


def _marks(chunk) -> str:
    return ("⚠ " if chunk.metadata.get("oversized") else "") + ("✂ " if chunk.metadata.get("split_entity") else "")


class ChunkTable(ScrollView, can_focus=True):
    """#, line range, page range (a PDF's), chars, tokens (red over budget; underlined on the cursor
    row), boundary type, label (scope chain / header path).

    Row 0 of the view is the sticky header; the rows below it scroll. Keys move a row cursor,
    enter or a click selects the row; both post messages the app turns into a chunk selection.
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Row up", show=False, id="table.up", tooltip="Highlight the previous chunk"),
        Binding("down", "cursor(1)", "Row down", show=False, id="table.down", tooltip="Highlight the next chunk"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="table.pageup", tooltip="Move the cursor a page up"),
        Binding(
            "pagedown", "page(1)", "Page down", show=False, id="table.pagedown", tooltip="Move the cursor a page down"
        ),
        Binding("home", "edge(0)", "First", show=False, id="table.home", tooltip="Highlight the first chunk"),
        Binding("end", "edge(1)", "Last", show=False, id="table.end", tooltip="Highlight the last chunk"),
        Binding(
            "enter",
            "select_cursor",
            "Select",
            show=False,
            id="table.select",
            tooltip="Select the highlighted chunk and show it in the document",
        ),
    ]

    COMPONENT_CLASSES = {
        "chunk-table--header",
        "chunk-table--cursor",
        "chunk-table--even-row",
        "chunk-table--over-budget",
        "chunk-table--ranked",
    }

    DEFAULT_CSS = """
    ChunkTable {
        background: $surface;
        color: $foreground;
        &:focus {
            background-tint: $foreground 5%;
            & > .chunk-table--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
        }
        & > .chunk-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .chunk-table--even-row {
            background: $surface-lighten-1 50%;
        }
        &:dark > .chunk-table--even-row {
            background: $surface-darken-1 40%;
        }
        & > .chunk-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .chunk-table--over-budget {
            color: $text-error;
            text-style: bold;
        }
        & > .chunk-table--ranked {
            color: $text-accent;
            text-style: bold;
        }
    }
    """

    class _RowMessage(Message):
        def __init__(self, chunk_table: ChunkTable, cursor_row: int) -> None:
            super().__init__()
            self.chunk_table, self.cursor_row = chunk_table, cursor_row

        @property
        def control(self) -> ChunkTable:
            return self.chunk_table

    class RowHighlighted(_RowMessage):
        """The cursor moved to `cursor_row` (by a key, a click or `move_cursor`)."""

    class RowSelected(_RowMessage):
        """The user chose `cursor_row` (enter or a click)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.chunkset: ChunkSet | None = None
        self.budget = 0
        self._cursor = 0
        self._widths = [len(name) + 1 for name in DRAWN]  # each column (in DRAWN order): one space before its text
        self._room = LABEL_WIDTH  # cells a path label is cut to, so its end shows without scrolling
        self._cache: dict[tuple, Strip] = {}
        self._sizes = column_sizes(())
        self.ranks: dict[int, int] = {}  # chunk index -> its rank for the query pane's question

    # -- the DataTable surface the app and tests use ----------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.chunkset.chunks) if self.chunkset is not None else 0

    @property
    def _chunks(self) -> list[Chunk]:
        """The rows' chunks (none before the first chunking)."""
        return self.chunkset.chunks if self.chunkset is not None else []

    @property
    def cursor_row(self) -> int:
        return self._cursor

    def move_cursor(self, *, row: int, animate: bool = False) -> None:
        """Put the cursor on `row` (clamped), scroll it into view and post RowHighlighted."""
        if not self.row_count:
            return
        row = max(0, min(self.row_count - 1, row))
        self._cursor = row
        top, visible = int(self.scroll_y), self._visible_rows
        if row < top:
            self.scroll_to(y=row, animate=animate)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=animate)
        self.refresh()
        self.post_message(self.RowHighlighted(self, row))

    def get_cell_at(self, coordinate: tuple[int, int]) -> str:
        """The text of a cell as drawn (without the padding space), e.g. `(4, 5)` is row 4's label."""
        row, column = coordinate
        return self._cells(self._chunks[row])[column]

    # -- data -------------------------------------------------------------------------------

    def show(self, chunkset: ChunkSet | None, budget: int, sizes: ColumnSizes | None = None) -> None:
        """Show `chunkset` from its first row; rows render when they scroll into view. `sizes` are its
        `column_sizes`, made by the worker (measured here when not given)."""
        self.chunkset, self.budget, self._cursor = chunkset, budget, 0
        self._sizes = sizes if sizes is not None else column_sizes(chunkset.chunks if chunkset is not None else ())
        self.ranks = {}
        self._measure()
        self.scroll_to(0, 0, animate=False)

    def set_ranks(self, ranks: dict[int, int]) -> None:
        """Mark the chunks the query pane's question retrieves: `★rank` before the label, in the accent colour."""
        if ranks != self.ranks:
            self.ranks = ranks
            self._cache.clear()
            self.refresh()

    def _measure(self) -> None:
        """Column widths from the chunking's column sizes and the pane's width, and the scroll size."""
        self._cache.clear()
        self._parts: dict[int, int] = {}
        self._root = shared_root(self.chunkset.chunks) if self.chunkset is not None else 0
        rows = self.row_count
        view = self.container_size
        width = view.width or 50
        self._fit(width)
        # the rows will need the vertical scrollbar, or the label scrolls sideways (the horizontal
        # bar takes a row, and the view then shows the vertical one too): the label gets less room
        if rows + 1 > view.height or sum(self._widths) > width:
            self._fit(width - self.styles.scrollbar_size_vertical)
        self._set_virtual_size(Size(sum(self._widths), rows + 1))
        self.refresh()

    def _fit(self, width: int) -> None:
        """Column widths in `width` cells: the label gets what the fixed columns leave, and in a narrow
        pane the type column, then the lines column (both in the detail pane), give it their cells."""
        fixed = [max(len(name), w) + 1 for name, w in zip(DRAWN, self._sizes.widest)]
        if not self._sizes.pages:  # a source without pages has no pages column
            fixed[DRAWN.index("pages")] = 0
        room = width - sum(fixed) - 1
        for name in NARROW_DROPS:
            if room >= ROOMY_LABEL:
                break
            room += fixed[DRAWN.index(name)]
            fixed[DRAWN.index(name)] = 0
        self._room = max(MIN_LABEL_WIDTH, min(LABEL_WIDTH, room))
        self._widths = fixed + [1 + self._sizes.label_width(self._room)]

    def _set_virtual_size(self, size: Size) -> None:
        """A new scroll size without a relayout of the whole screen (a `virtual_size` assignment asks for
        one, 40+ ms per result); the scrollbars are updated here, and if one comes or goes its own
        reactive asks for the layout that places it."""
        if size != self.virtual_size:
            self.set_reactive(Widget.virtual_size, size)
            update_scrollbars(self, size)

    # -- cursor -----------------------------------------------------------------------------

    @property
    def _visible_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(row=self._cursor + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(row=self._cursor + direction * self._visible_rows)

    def action_edge(self, end: int) -> None:
        self.move_cursor(row=self.row_count - 1 if end else 0)

    def action_select_cursor(self) -> None:
        if self.row_count:
            self.post_message(self.RowSelected(self, self._cursor))

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < 1:  # the header
            return
        row = int(self.scroll_y) + offset.y - 1
        if row < self.row_count:
            self.move_cursor(row=row)
            self.post_message(self.RowSelected(self, row))

    # -- rendering --------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """Theme or focus changed: the cached rows carry the old colours."""
        super().notify_style_update()
        self._cache.clear()

    def on_resize(self) -> None:
        """A new width gives the label new room; the cursor and scroll position stay."""
        self._measure()

    def _part(self, index: int) -> int:
        """Which piece of a run of rows with the same path this row is (1 for the first)."""
        chunks = self._chunks
        path = _path(chunks[index])
        start = index
        while start > 0 and start not in self._parts and path and _path(chunks[start - 1]) == path:
            start -= 1
        part = self._parts.get(start, 1) + (index - start)
        self._parts[index] = part
        return part

    def _cells(self, chunk) -> tuple[str, ...]:
        """The row's cells, in COLUMNS order."""
        marks = _marks(chunk)
        chunks, i = self._chunks, chunk.index
        if i in self.ranks:
            marks = f"★{self.ranks[i]} " + marks
        neighbours = tuple(chunks[j] for j in (i - 1, i + 1) if 0 <= j < len(chunks))
        label = marks + chunk_label(chunk, self._room - len(marks), neighbours, self._part(i), self._root)
        return (
            str(chunk.index + 1),
            f"{chunk.start_line}-{chunk.end_line}",
            f"{chunk.end - chunk.start:,}",
            token_cell(chunk),
            chunk.boundary_type,
            label,
            page_cell(chunk),
        )

    def _row_segments(self, cells, style: Style, over: Style | None = None) -> list[Segment]:
        segments = []
        by_name = dict(zip(COLUMNS, cells))
        for name, width in zip(DRAWN, self._widths):
            text = by_name[name]
            if not width:
                continue
            if name == "tokens" and over is not None:  # the padding stays plain, only the number is red
                segments += [Segment(" " * (width - len(text)), style), Segment(text, over)]
            elif name in NUMERIC:
                segments.append(Segment(text.rjust(width), style))
            else:
                segments.append(Segment(set_cell_size(" " + text, width), style))
        return segments

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x = int(self.scroll_x)
        row = -1 if y == 0 else int(self.scroll_y) + y - 1
        base = self.rich_style
        if row >= self.row_count:
            return Strip.blank(width, base)
        key = (row, row == self._cursor, self.has_focus, scroll_x, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = Strip(self._render_row(row, base)).crop(scroll_x, scroll_x + width)
            strip = strip.adjust_cell_length(width, base).simplify()
            if len(self._cache) >= CACHE_ROWS:
                self._cache.clear()
            self._cache[key] = strip
        return strip

    def _render_row(self, row: int, base: Style) -> list[Segment]:
        style_of = self.get_component_rich_style
        if row < 0:
            header = base + style_of("chunk-table--header")
            return [
                Segment(name.rjust(width) if name in NUMERIC else (" " + name).ljust(width), header)
                for name, width in zip(DRAWN, self._widths)
                if width
            ]
        chunk = self._chunks[row]
        style = base + (style_of("chunk-table--even-row") if row % 2 == 0 else Style())
        if row in self.ranks:
            style += style_of("chunk-table--ranked", partial=True)
        over = None
        if row == self._cursor:
            style += style_of("chunk-table--cursor")
            if chunk.embed_tokens > self.budget:  # red on the cursor's colour is unreadable in some themes
                over = style + Style(bold=True, underline=True)
        elif chunk.embed_tokens > self.budget:
            over = style + style_of("chunk-table--over-budget", partial=True)
        return self._row_segments(self._cells(chunk), style, over)
