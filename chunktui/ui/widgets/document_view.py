"""The document with its chunks drawn in: a Line API view that renders only visible lines.

Each screen row is one source line. Work per row is a bisect into the chunk and
gap lists plus the row's own characters, and finished rows are kept in an LRU
cache keyed by (line, chunkset generation, selection, cursor, width), so a 50 MB
document scrolls like a small one: nothing ever walks the whole text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from itertools import accumulate

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.color import Color
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from chunktui.engine import Chunk, ChunkSet, Document
from chunktui.engine.core.model import one_line
from .tints import Tints, build_tints

MAX_COLUMNS = 1000  # characters of one line drawn; the rest is summarised as "… +N chars"
MARK_WIDTH = 13  # gutter cells for the chunk mark
CACHE_LINES = 2048
_DISPLAY = {i: "·" for i in range(32)} | {9: "    ", 10: "", 13: "", 127: "·"}


def display_text(raw: str) -> str:
    """Text as drawn: tabs as four spaces, control characters as a middle dot."""
    return raw.translate(_DISPLAY)


class DocumentView(ScrollView, can_focus=True):
    """Source lines with chunk tints, overlap tints, gap marks and a gutter naming each chunk."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Line up", show=False, id="doc.up", tooltip="Move the cursor one line up"),
        Binding("down", "cursor(1)", "Line down", show=False, id="doc.down", tooltip="Move the cursor one line down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="doc.pageup", tooltip="Move the cursor one page up"),
        Binding(
            "pagedown", "page(1)", "Page down", show=False, id="doc.pagedown", tooltip="Move the cursor one page down"
        ),
        Binding("home", "edge(0)", "Top", show=False, id="doc.home", tooltip="Go to the first line"),
        Binding("end", "edge(1)", "Bottom", show=False, id="doc.end", tooltip="Go to the last line"),
    ]

    cursor_line: reactive[int] = reactive(1, always_update=False)

    class CursorMoved(Message):
        """The user moved the cursor: the app selects the chunk under it."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document: Document | None = None
        self.chunkset: ChunkSet | None = None
        self.generation = 0
        self.selected: int | None = None
        self._starts: list[int] = []
        self._max_end: list[int] = []
        self._gap_starts: list[int] = []
        self._page_lines: dict[int, int] = {}
        self._cache: OrderedDict[tuple, Strip] = OrderedDict()
        self._tints: Tints | None = None
        self._number_width = 1
        self._text_width = 0
        self._quiet_cursor = False
        self.ranks: dict[int, int] = {}  # chunk index -> its rank for the question in the query pane
        self._marks: list[tuple[int, int, bool]] = []  # reference spans: (start, end, retrieved)
        self._mark_starts: list[int] = []

    # -- data -------------------------------------------------------------------------------

    def set_document(self, document: Document) -> None:
        """Show a new document (no chunks yet); sizes come from the line index only."""
        self.document = document
        self.chunkset = None
        self.selected = None
        self._starts, self._max_end, self._gap_starts = [], [], []
        self.ranks, self._marks, self._mark_starts = {}, [], []
        # a PDF's page breaks: the line each page's text starts on, marked in the gutter
        self._page_lines = {
            document.line_of(at): n for n, at in enumerate(getattr(document, "page_starts", ()), 1) if n > 1
        }
        starts = document.line_starts
        longest = max((b - a for a, b in zip(starts, starts[1:])), default=0)
        longest = max(longest, len(document.text) - starts[-1])
        self._number_width = len(str(max(1, document.line_count)))
        self._text_width = min(longest, MAX_COLUMNS + 16)
        self._cache.clear()
        self.virtual_size = Size(self.gutter_width + self._text_width, max(1, document.line_count))
        self._quiet_cursor = True
        self.cursor_line = 1
        self._quiet_cursor = False
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def set_chunkset(
        self, chunkset: ChunkSet, generation: int, starts: list[int] | None = None, max_ends: list[int] | None = None
    ) -> None:
        """Draw a new chunking of the current document; rows re-render lazily as they show.
        `starts` and `max_ends` (each chunk's start, the furthest end up to it) are the lookups
        its rows bisect: made by the chunking's worker, else here."""
        self.chunkset = chunkset
        self.generation = generation
        chunks = chunkset.chunks
        if starts is None or max_ends is None:
            starts, max_ends = [c.start for c in chunks], list(accumulate((c.end for c in chunks), max))
        self._starts, self._max_end = starts, max_ends
        self._gap_starts = [g.start for g in chunkset.gaps]
        self.ranks = {}  # positions in the old chunking; the reference marks stay until the new ones come
        if self.selected is not None and self.selected >= len(chunks):
            self.selected = None
        self._cache.clear()
        self.refresh()

    def set_retrieval(self, ranks: dict[int, int], marks: list[tuple[int, int, bool]]) -> None:
        """Draw the query pane's results: `ranks` badges the retrieved chunks in the gutter, and
        `marks` (sorted, disjoint) colours the questions' reference text green where the
        current chunking retrieves it and red where it misses."""
        if ranks == self.ranks and marks == self._marks:
            return
        self.ranks, self._marks = ranks, marks
        self._mark_starts = [m[0] for m in marks]
        self._cache.clear()
        self.refresh()

    def select(self, index: int | None, scroll: bool = False) -> None:
        """Highlight chunk `index`; with scroll, bring its first line to the top and put the cursor there."""
        self.selected = index
        if scroll and index is not None and self.chunkset is not None:
            chunk = self.chunkset.chunks[index]
            self.scroll_to(y=max(0, chunk.start_line - 1), animate=False, immediate=True)
            self._quiet_cursor = True
            self.cursor_line = chunk.start_line
            self._quiet_cursor = False
        self.refresh()

    @property
    def gutter_width(self) -> int:
        return self._number_width + 1 + MARK_WIDTH + 1

    @property
    def first_visible_line(self) -> int:
        return int(self.scroll_y) + 1

    @property
    def last_visible_line(self) -> int:
        return int(self.scroll_y) + self.scrollable_content_region.height

    # -- cursor -----------------------------------------------------------------------------

    def watch_cursor_line(self, old: int, new: int) -> None:
        if self.document is None:
            return
        top = int(self.scroll_y)
        height = max(1, self.scrollable_content_region.height)
        if new - 1 < top:
            self.scroll_to(y=new - 1, animate=False)
        elif new - 1 >= top + height:
            self.scroll_to(y=new - height, animate=False)
        self.refresh()
        if not self._quiet_cursor:
            self.post_message(self.CursorMoved(new))

    def _move_cursor(self, line: int) -> None:
        if self.document is not None:
            self.cursor_line = max(1, min(max(1, self.document.line_count), line))

    def action_cursor(self, delta: int) -> None:
        self._move_cursor(self.cursor_line + delta)

    def action_page(self, direction: int) -> None:
        self._move_cursor(self.cursor_line + direction * max(1, self.scrollable_content_region.height - 1))

    def action_edge(self, end: int) -> None:
        self._move_cursor(self.document.line_count if end and self.document else 1)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self._move_cursor(int(self.scroll_y) + offset.y + 1)

    # -- rendering --------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._retint())

    def _retint(self) -> None:
        self._tints = None
        self._cache.clear()
        self.refresh()

    @property
    def tints(self) -> Tints:
        if self._tints is None:
            variables = self.app.theme_variables
            background = self.background_colors[1]
            if background.a == 0:
                background = Color.parse(variables.get("background", "#000000"))
            self._tints = build_tints(
                background,
                Color.parse(variables.get("foreground", "#e0e0e0")),
                Color.parse(variables.get("accent", "#ffa62b")),
            )
        return self._tints

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        doc = self.document
        line = int(self.scroll_y) + y + 1
        if doc is None or line > doc.line_count:
            return Strip.blank(width, self.tints.plain)
        text_width = max(self._text_width, width - self.gutter_width)
        scroll_x = int(self.scroll_x)
        key = (line, self.generation, self._selection_key(line), line == self.cursor_line, text_width, scroll_x, width)
        strip = self._cache.get(key)
        if strip is None:
            full = self._render_source_line(doc, line, text_width)
            gutter = self.gutter_width
            body = full.crop(gutter + scroll_x, scroll_x + width)
            strip = Strip.join([full.crop(0, gutter), body]).adjust_cell_length(width, self.tints.plain)
            self._cache[key] = strip
            if len(self._cache) > CACHE_LINES:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return strip

    def _selection_key(self, line: int) -> int | None:
        """The selected chunk, if it touches this line; else None, so other rows stay cached."""
        if self.selected is None or self.chunkset is None:
            return None
        chunk = self.chunkset.chunks[self.selected]
        return self.selected if chunk.start_line <= line <= chunk.end_line else None

    @property
    def _chunks(self) -> list[Chunk]:
        """The drawn chunks (none before the first chunking)."""
        return self.chunkset.chunks if self.chunkset is not None else []

    def _chunks_on(self, start: int, end: int) -> list[int]:
        """Indexes of chunks intersecting [start, end), in order, by bisect on starts."""
        j = bisect_left(self._starts, end) - 1
        found = []
        chunks = self._chunks
        while j >= 0 and self._max_end[j] > start:
            if chunks[j].end > start:
                found.append(j)
            j -= 1
        found.reverse()
        return found

    def _gap_at(self, offset: int):
        i = bisect_right(self._gap_starts, offset) - 1
        if i >= 0 and self.chunkset is not None:
            gap = self.chunkset.gaps[i]
            if gap.start <= offset < gap.end:
                return gap
        return None

    def _render_source_line(self, doc: Document, line: int, text_width: int) -> Strip:
        tints = self.tints
        start, end = doc.line_start(line), doc.line_end(line)
        shown_end = min(end, start + MAX_COLUMNS)
        cursor = line == self.cursor_line
        number = Segment(f"{line:>{self._number_width}} ", tints.cursor_number if cursor else tints.line_number)
        if self.chunkset is None:
            segments = [Segment(display_text(doc.text[start:shown_end]), tints.plain)]
            mark = [Segment(" " * MARK_WIDTH + " ", tints.gutter)]
            tail_style = tints.plain
        else:
            on_line = self._chunks_on(start, end)
            mark = self._mark(line, start, end, on_line)
            segments, tail_style = self._body(doc.text, start, end, shown_end, on_line)
        if shown_end < end:
            rest = (
                end
                - shown_end
                - len(doc.text[max(shown_end, end - 2) : end])
                + len(doc.text[max(shown_end, end - 2) : end].rstrip("\r\n"))
            )  # no copy of a huge line
            if rest:
                segments.append(Segment(f" … +{rest} chars", tints.more))
        body = Strip(segments)
        if body.cell_length < text_width:
            if tail_style is tints.gap:  # uncovered text: hatch the rest of the row so gaps stand out
                body = Strip([*body, Segment("╱" * (text_width - body.cell_length), tints.hatch)])
            else:
                body = body.extend_cell_length(text_width, tail_style)
        return Strip([number, *mark, *body])

    def _body(self, text: str, start: int, end: int, shown_end: int, on_line: list[int]):
        """Segments of the line's characters, styled by how many chunks cover each piece."""
        tints, chunks = self.tints, self._chunks
        cuts = {start, shown_end}
        for i in on_line:
            c = chunks[i]
            if start < c.start < shown_end:
                cuts.add(c.start)
            if start < c.end < shown_end:
                cuts.add(c.end)
        marks = self._marks_on(start, shown_end)
        for m_start, m_end, _ in marks:
            cuts.update(p for p in (m_start, m_end) if start < p < shown_end)
        points = sorted(cuts)
        segments = []
        for a, b in zip(points, points[1:]):
            style = self._style_at(a, on_line)
            mark = next((m for m in marks if m[0] <= a < m[1]), None)
            if mark is not None:
                style += tints.reference_hit if mark[2] else tints.reference_missed
            segments.append(Segment(display_text(text[a:b]), style))
        newline_at = end - 1 if end > start and text[end - 1] == "\n" else None
        tail = (
            self._style_at(newline_at, on_line)
            if newline_at is not None
            else (segments[-1].style if segments else tints.plain)
        )
        return segments, tail

    def _marks_on(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """Reference marks intersecting [start, end), by bisect on their starts."""
        if not self._marks:
            return []
        i = max(0, bisect_right(self._mark_starts, start) - 1)
        found = []
        while i < len(self._marks) and self._marks[i][0] < end:
            if self._marks[i][1] > start:
                found.append(self._marks[i])
            i += 1
        return found

    def _style_at(self, offset: int, on_line: list[int]) -> Style:
        chunks, tints = self._chunks, self.tints
        covering = [i for i in on_line if chunks[i].start <= offset < chunks[i].end]
        if not covering:
            return tints.gap
        selected = self.selected in covering
        if len(covering) > 1:
            return tints.overlap_selected if selected else tints.overlap
        return tints.for_chunk(covering[0], selected)

    def _mark(self, line: int, start: int, end: int, on_line: list[int]) -> list[Segment]:
        """Gutter cell: '#N label' where a chunk's own text starts (after the overlap it repeats
        from the chunk before, which the bar marks), '░ reason' where a gap starts, '─ page N' where a
        PDF page starts, a bar elsewhere."""
        tints, chunks = self.tints, self._chunks
        starting = [
            i
            for i in on_line
            if start <= _core_start(chunks[i]) < end
            or (chunks[i].start >= start and _core_start(chunks[i]) >= chunks[i].end)
        ]
        if starting:
            first = chunks[starting[0]]
            more = f"+{len(starting) - 1}" if len(starting) > 1 else ""
            label = one_line(first.boundary_label) or first.boundary_type  # a line feed would break the gutter
            rank = self.ranks.get(first.index)
            text = f"#{first.index + 1}{more} {f'★{rank} ' if rank else ''}{label}"
            style = tints.marker(first.index)
            if first.index == self.selected:
                style = tints.for_chunk(first.index, True) + Style(bold=True)
            elif rank:
                style = tints.ranked
            return [Segment(_fit(text, MARK_WIDTH), style), Segment(" ", tints.gutter)]
        covering = [i for i in on_line if chunks[i].start <= start < chunks[i].end]
        if not covering:
            gap = self._gap_at(start)
            if gap is not None and gap.start >= start:
                text = f"░ gap: {gap.reason}"
            else:
                text = "░"
            return [Segment(_fit(text, MARK_WIDTH), tints.more), Segment(" ", tints.gutter)]
        bar = "┃" if len(covering) > 1 else "│"
        if line in self._page_lines:
            bar = f"{bar}─ page {self._page_lines[line]}"
        style = (
            Style(color=tints.overlap_selected.bgcolor, bold=True) + tints.gutter
            if len(covering) > 1
            else tints.marker(covering[-1])
        )
        rank = min((self.ranks[i] for i in covering if i in self.ranks), default=None)
        if rank is not None and line not in self._page_lines:
            bar, style = f"{bar} ★{rank}", tints.ranked
        return [Segment(_fit(bar, MARK_WIDTH), style), Segment(" ", tints.gutter)]


def _core_start(chunk) -> int:
    """Where the chunk's new text starts: after the overlap shared with the chunk before."""
    return chunk.start + chunk.overlap_prev_chars


def _fit(text: str, width: int) -> str:
    """Text cut or padded to exactly `width` terminal cells (wide characters count twice)."""
    text = display_text(text)
    if cell_len(text) > width:
        return set_cell_size(text, width - 1) + "…"
    return set_cell_size(text, width)
