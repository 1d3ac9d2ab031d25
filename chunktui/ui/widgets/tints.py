"""Chunk tints blended onto the current theme's background, so they read on dark and light themes."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from textual.color import Color

# Alternating hues: three, so a chunk never shares a hue with either neighbour.
CHUNK_HUES = ("#3b82f6", "#f59e0b", "#10b981")
OVERLAP_HUE = "#e11d48"
GAP_HUE = "#808080"
HIT_HUE = "#22c55e"  # reference text the current chunking retrieves (query pane)
MISSED_HUE = "#ef4444"  # reference text it misses
TINT = 0.20
SELECTED_TINT = 0.42
OVERLAP_TINT = 0.45


@dataclass(frozen=True)
class Tints:
    """Rich styles for every kind of span in the document view, for one theme."""

    chunk: tuple[Style, ...]
    chunk_selected: tuple[Style, ...]
    overlap: Style
    overlap_selected: Style
    gap: Style
    hatch: Style
    plain: Style
    line_number: Style
    cursor_number: Style
    gutter: Style
    more: Style
    reference_hit: Style
    reference_missed: Style
    ranked: Style

    def for_chunk(self, index: int, selected: bool) -> Style:
        return (self.chunk_selected if selected else self.chunk)[index % len(self.chunk)]

    def marker(self, index: int) -> Style:
        """Gutter mark of a chunk: its hue as the text colour, bold."""
        return Style(color=self.chunk_selected[index % len(self.chunk)].bgcolor, bold=True) + self.gutter


def build_tints(background: Color, foreground: Color, accent: Color) -> Tints:
    def tint(hue: str, amount: float, **extra) -> Style:
        bg = background.blend(Color.parse(hue), amount)
        return Style(color=foreground.rich_color, bgcolor=bg.rich_color, **extra)

    dim_fg = background.blend(foreground, 0.55)
    return Tints(
        chunk=tuple(tint(h, TINT) for h in CHUNK_HUES),
        chunk_selected=tuple(tint(h, SELECTED_TINT) for h in CHUNK_HUES),
        # underlined as well as red: in a 256- or 16-colour terminal the red blend and a chunk's
        # orange one can fall on the same palette colour (both 52 on argparse.py, textual-dark)
        overlap=tint(OVERLAP_HUE, OVERLAP_TINT - 0.12, underline=True),
        overlap_selected=tint(OVERLAP_HUE, OVERLAP_TINT, underline=True),
        gap=Style(
            color=dim_fg.rich_color, bgcolor=background.blend(Color.parse(GAP_HUE), 0.12).rich_color, italic=True
        ),
        hatch=Style(
            color=background.blend(foreground, 0.18).rich_color,
            bgcolor=background.blend(Color.parse(GAP_HUE), 0.12).rich_color,
        ),
        plain=Style(color=foreground.rich_color, bgcolor=background.rich_color),
        line_number=Style(color=dim_fg.rich_color, bgcolor=background.rich_color),
        cursor_number=Style(color=background.rich_color, bgcolor=accent.rich_color, bold=True),
        gutter=Style(bgcolor=background.rich_color),
        more=Style(color=dim_fg.rich_color, bgcolor=background.rich_color, italic=True),
        # drawn over the chunk tint: the text's colour (blended toward the foreground so it reads on
        # the tint), bold and underlined, so a monochrome terminal still shows where a reference lies
        reference_hit=Style(color=foreground.blend(Color.parse(HIT_HUE), 0.8).rich_color, bold=True, underline=True),
        reference_missed=Style(
            color=foreground.blend(Color.parse(MISSED_HUE), 0.8).rich_color, bold=True, underline=True, italic=True
        ),
        ranked=Style(color=background.rich_color, bgcolor=accent.rich_color, bold=True),
    )
