"""Stats of the current chunking: what a user checks before trusting a configuration."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chunktui.engine import Stats


def compact(value: float) -> str:
    """A count in at most five characters, so that the panel's columns can never run together:
    `9,999`, then `12.3k`/`999k`, `1.2M`/`99M`, `1.5G`."""
    value = round(value)
    if abs(value) < 10_000:
        return f"{value:,}"
    for limit, suffix in ((1e6, "k"), (1e9, "M"), (1e12, "G")):
        scaled = value / (limit / 1000)
        if abs(scaled) < 999.5:
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 99.95 else f"{scaled:.0f}{suffix}"
    return f"{value:.0e}"


def stats_text(stats: Stats) -> Text:
    """The stats as a small table: a label column, then right-aligned figures at most five
    characters wide with a space between, so figures of any size never touch or wrap at the
    narrowest pane (30 columns)."""
    over = "red bold" if stats.over_budget else ""
    text = Text()
    text.append(f"{'chunks':<8}{compact(stats.count):>6} · {compact(stats.total_tokens)} tokens\n", "bold")
    text.append(f"{'':6}{'min':>6}{'med':>6}{'p95':>6}{'max':>6}\n", "dim")
    for name, values in (
        ("chars", (stats.chars_min, stats.chars_median, stats.chars_p95, stats.chars_max)),
        ("tokens", (stats.tokens_min, stats.tokens_median, stats.tokens_p95, stats.tokens_max)),
    ):
        text.append(f"{name:6}" + "".join(f"{compact(v):>6}" for v in values) + "\n")
    if stats.budget is None:
        text.append(f"{'budget':<8}{'none':>6}\n")
    else:
        text.append(f"{'budget':<8}{compact(stats.budget):>6} · {compact(stats.over_budget)} over\n", over)
    text.append(f"{'overlap':<8}{stats.overlap_share:>6.1%}\n")
    text.append(f"{'covered':<8}{stats.coverage:>6.1%}\n")
    text.append(
        f"{'gaps':<8}{compact(stats.gap_count):>6} · {compact(stats.gap_chars)} chars",
        "yellow" if stats.gap_count else "",
    )
    return text


def progress_bar(fraction: float | None, cells: int = 10) -> str:
    """`▰▰▰▱▱▱▱▱▱▱ 30%` in markup, or an ellipsis before the first progress report."""
    if fraction is None:
        return "…"
    done = round(cells * max(0.0, min(1.0, fraction)))
    return f"[$accent]{'▰' * done}[/][dim]{'▱' * (cells - done)}[/] {100 * fraction:.0f}%"


class StatsPanel(Static):
    """Chunk count, token totals, size percentiles, over-budget count, overlap share, coverage, gaps.

    Its height is fixed in app.tcss (the stats always take the same lines), so a new result only
    repaints the panel instead of relaying out the whole screen (40-55 ms per result at 1 MB).
    """

    stats_shown: Text | None = None
    retrieval: Text | None = None  # the line of recall and IoU, when questions are loaded

    def show(self, stats: Stats | None) -> None:
        self.stats_shown = stats_text(stats) if stats is not None else Text("no chunks yet", "dim")
        self._draw()

    def show_retrieval(self, line: Text | None) -> None:
        """The retrieval line under the stats (None: no questions loaded). The panel is one line
        taller while it shows (the `-retrieval` class), a relayout only when questions come or go."""
        if line is None and self.retrieval is None:
            return
        if (line is None) != (self.retrieval is None):
            self.set_class(line is not None, "-retrieval")
        self.retrieval = line
        self._draw()

    def _draw(self) -> None:
        text = (self.stats_shown or Text("no chunks yet", "dim")).copy()
        if self.retrieval is not None:
            text.append("\n")
            text.append_text(self.retrieval)
        self.update(text, layout=False)

    def progress(self, fraction: float | None, running: bool = True) -> None:
        """`chunking ▰▰▰▱▱▱▱▱▱▱ 30%` in the panel's top border while a re-chunk runs (a border title
        repaints without a relayout; the stats below it are the ones being replaced)."""
        self.border_title = f"chunking {progress_bar(fraction)}" if running else None

    @property
    def plain(self) -> str:
        """The stats as drawn, without the retrieval line (see `retrieval`)."""
        content = self.stats_shown if self.stats_shown is not None else self.content
        return content.plain if isinstance(content, Text) else str(content)
