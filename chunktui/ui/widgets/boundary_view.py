"""One document view for a comparison: each boundary marked as only in A, only in B, or in both.

Like the main document view it draws only the visible lines (Line API), so a
large document scrolls just as well; the gutter says A, B or AB and the
character just after each boundary is tinted with that side's colour.
"""

from __future__ import annotations

from bisect import bisect_left

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from chunktui.engine import Document
from chunktui.engine.analysis.compare import Comparison
from .document_view import display_text

SIDE_STYLES = {
    "a": Style(color="black", bgcolor="#60a5fa", bold=True),
    "b": Style(color="black", bgcolor="#f472b6", bold=True),
    "both": Style(color="black", bgcolor="#4ade80", bold=True),
}
SIDE_MARK = {"a": "A ", "b": " B", "both": "AB"}
MAX_COLUMNS = 400
GUTTER = 10  # "  line " + mark + space


class BoundaryView(ScrollView, can_focus=True):
    """Source lines; n / p jump to the next / previous boundary that differs between A and B."""

    BINDINGS = [
        Binding("n", "jump(1)", "Next diff", id="compare.next", tooltip="Next boundary only in A or only in B"),
        Binding("p", "jump(-1)", "Prev diff", id="compare.prev", tooltip="Previous boundary only in A or only in B"),
        Binding("up", "scroll_lines(-1)", "Up", show=False, id="compare.up", tooltip="Scroll up"),
        Binding("down", "scroll_lines(1)", "Down", show=False, id="compare.down", tooltip="Scroll down"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document: Document | None = None
        self.comparison: Comparison | None = None
        self._offsets: list[int] = []
        self._diff_lines: list[int] = []

    def show(self, document: Document, comparison: Comparison | None) -> None:
        self.document, self.comparison = document, comparison
        marks = comparison.boundaries if comparison else []
        self._offsets = [b.offset for b in marks]
        self._diff_lines = sorted({b.line for b in marks if b.side != "both"})
        width = min(
            MAX_COLUMNS, max((b - a for a, b in zip(document.line_starts, document.line_starts[1:])), default=80)
        )
        self.virtual_size = Size(width + GUTTER, max(1, document.line_count))
        self.refresh()

    def action_scroll_lines(self, delta: int) -> None:
        self.scroll_to(y=self.scroll_y + delta, animate=False)

    def action_jump(self, direction: int) -> None:
        """Scroll so the next (or previous) differing boundary is the top line."""
        top = int(self.scroll_y) + 1
        lines = self._diff_lines
        if not lines:
            return
        if direction > 0:
            i = bisect_left(lines, top + 1)
            target = lines[i] if i < len(lines) else lines[0]
        else:
            i = bisect_left(lines, top) - 1
            target = lines[i] if i >= 0 else lines[-1]
        self.scroll_to(y=target - 1, animate=False)

    @property
    def top_line(self) -> int:
        return int(self.scroll_y) + 1

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        doc = self.document
        line = int(self.scroll_y) + y + 1
        if doc is None or line > doc.line_count:
            return Strip.blank(width)
        start, end = doc.line_start(line), doc.line_end(line)
        shown_end = min(end, start + MAX_COLUMNS)
        i = bisect_left(self._offsets, start)
        here = []
        boundaries = self.comparison.boundaries if self.comparison is not None else []
        while i < len(self._offsets) and self._offsets[i] < end:
            here.append(boundaries[i])
            i += 1
        sides = {b.side for b in here}
        mark = "AB" if "both" in sides or sides == {"a", "b"} else SIDE_MARK[next(iter(sides))] if sides else "  "
        mark_style = SIDE_STYLES["both" if mark == "AB" else "a" if mark == "A " else "b"] if sides else Style(dim=True)
        gutter = Strip([Segment(f"{line:>6} ", Style(dim=True)), Segment(mark, mark_style), Segment(" ")])
        segments = []
        text = doc.text
        pos = start
        for b in here:
            if b.offset >= shown_end:
                break
            segments.append(Segment(display_text(text[pos : b.offset])))
            glyph = (
                display_text(text[b.offset : b.offset + 1])
                if text[b.offset : b.offset + 1] not in ("\n", "\r", "")
                else "⏎"
            )
            segments.append(Segment(glyph or "⏎", SIDE_STYLES[b.side]))
            pos = b.offset + 1
        if pos < shown_end:
            segments.append(Segment(display_text(text[pos:shown_end])))
        body_width = max(0, width - GUTTER)
        body = Strip(segments).crop(int(self.scroll_x), int(self.scroll_x) + body_width)
        return Strip.join([gutter, body]).adjust_cell_length(width)
