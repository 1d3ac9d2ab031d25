"""Stats of the current chunking: what a user checks before trusting a configuration."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ...engine import Stats


def _n(value: float) -> str:
    return f"{value:,.0f}"


def stats_text(stats: Stats) -> Text:
    """The stats as aligned lines of plain text (one fact a line, so tests and eyes can read them)."""
    over = "red bold" if stats.over_budget else ""
    text = Text()
    text.append(f"chunks        {stats.count:,}\n", "bold")
    text.append(f"total tokens  {stats.total_tokens:,}\n")
    text.append(f"{'':6}{'min':>6}{'med':>6}{'p95':>6}{'max':>6}\n", "dim")
    for name, values in (("chars", (stats.chars_min, stats.chars_median, stats.chars_p95, stats.chars_max)),
                         ("tokens", (stats.tokens_min, stats.tokens_median, stats.tokens_p95, stats.tokens_max))):
        low, median, p95, high = (_n(v) for v in values)
        text.append(f"{name:6}{low:>6}{median:>6}{p95:>6}{high:>6}\n")
    text.append(f"over budget   {stats.over_budget:,} (> {stats.budget} tokens)\n", over)
    text.append(f"overlap share {stats.overlap_share:.1%}\n")
    text.append(f"coverage      {stats.coverage:.1%}\n")
    text.append(f"gaps          {stats.gap_count:,} ({stats.gap_chars:,} chars)",
                "yellow" if stats.gap_count else "")
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

    def show(self, stats: Stats | None) -> None:
        self.update(stats_text(stats) if stats is not None else Text("no chunks yet", "dim"), layout=False)

    def progress(self, fraction: float | None, running: bool = True) -> None:
        """`chunking ▰▰▰▱▱▱▱▱▱▱ 30%` in the panel's top border while a re-chunk runs (a border title
        repaints without a relayout; the stats below it are the ones being replaced)."""
        self.border_title = f"chunking {progress_bar(fraction)}" if running else None

    @property
    def plain(self) -> str:
        content = self.content
        return content.plain if isinstance(content, Text) else str(content)
