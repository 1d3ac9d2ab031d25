"""The layout at every terminal size from 80x24 up: the document keeps at least half the width,
the side panes share what is left or take turns (< and >), and every control can be reached."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Select, Switch

from chunktui.engine.core.model import Stats
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.widgets.stats_panel import stats_text
from support.ui import FAST, SAMPLES, run, settle

SIZES = [(80, 24), (120, 40), (200, 50)]


def visible(app, selector: str) -> bool:
    node = app.query_one(selector)
    return node.display and node.region.width > 0 and node.region.height > 0


def assert_document_has_half(app) -> None:
    width = app.screen.size.width
    assert app.query_one("#center").region.width * 2 >= width


async def reach_every_control(app, pilot) -> None:
    """Tab through the left pane: each control, once focused, is scrolled into sight."""
    controls = [w for w in app.query("#controls *") if isinstance(w, (Input, Select, Switch))]
    assert controls
    for widget in controls:
        widget.focus()
        await pilot.pause()
        await pilot.pause()
        region = widget.region
        assert region.height > 0, widget
        hit, _ = app.screen.get_widget_at(region.x + region.width // 2, region.y)
        assert hit is widget or widget in hit.ancestors, (widget, hit)  # drawn there, not clipped or covered


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@run
async def test_document_keeps_half_the_width_and_every_pane_can_be_reached(size):
    app = ChunktuiApp(SAMPLES / "guide.md", strategy="markdown", debounce=FAST)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert_document_has_half(app)
        assert visible(app, "#doc") and visible(app, "#left")
        await reach_every_control(app, pilot)
        both = size[0] >= 160
        app.view.focus()  # single-key bindings act outside the text inputs
        assert visible(app, "#right") == both
        if not both:
            await pilot.press(">")  # the table takes the left pane's place
            await pilot.pause()
            assert visible(app, "#right") and not visible(app, "#left")
            assert_document_has_half(app)
            assert app.query_one("#table").row_count == len(app.chunkset.chunks)
            await pilot.press("<")
            await pilot.pause()
            assert visible(app, "#left") and not visible(app, "#right")
        else:
            await pilot.press("<")  # hiding a pane gives its width to the document
            await pilot.pause()
            assert not visible(app, "#left") and visible(app, "#right")


@run
async def test_help_fits_an_80_column_terminal():
    app = ChunktuiApp(SAMPLES / "guide.md", strategy="markdown", debounce=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help-box")
        assert box.region.right <= 80 and box.region.x >= 0


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@run
async def test_main_screen_at_size(size, svg_snapshot):  # noqa: F811
    app = ChunktuiApp(SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}, debounce=FAST)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert svg_snapshot == app.export_screenshot(title="chunktui")


counts = st.integers(min_value=0, max_value=10**13)


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts, counts, counts, st.floats(0, 1), st.one_of(st.none(), counts))
def test_stats_figures_never_touch_or_wrap(count, tokens, low, high, gap_chars, share, budget):
    """Figures of any magnitude keep a space between them and fit the narrowest left pane (30
    columns inside its border); seen before: `chars  4,84710,84311,47811,804`."""
    low, high = min(low, high), max(low, high)
    stats = Stats(
        count,
        high,
        tokens,
        low,
        (low + high) / 2,
        high,
        high,
        low,
        low,
        high,
        high,
        share,
        0,
        share,
        gap_chars,
        count,
        count,
        budget,
    )
    lines = stats_text(stats).plain.splitlines()
    assert max(len(line) for line in lines) <= 30
    for line in lines[2:4]:  # the chars and tokens rows under min/med/p95/max
        assert len(line.split()) == 5


@pytest.mark.parametrize("system", ["truecolor", "256", "standard"])
def test_overlap_stands_apart_from_every_chunk_tint_in_every_theme_and_colour_depth(system):
    """In argparse.py the overlap and its chunk were both palette colour 52 in a 256-colour
    terminal (textual-dark); the overlap must read differently in every theme and colour depth."""
    from rich.color import ColorSystem
    from textual.color import Color
    from textual.theme import BUILTIN_THEMES

    from chunktui.ui.widgets.tints import build_tints

    depth = {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT, "standard": ColorSystem.STANDARD}[system]

    def seen(style):
        return style.bgcolor.downgrade(depth), bool(style.underline), bool(style.reverse)

    for name, theme in BUILTIN_THEMES.items():
        colours = theme.to_color_system().generate()
        tints = build_tints(*(Color.parse(colours[key]) for key in ("background", "foreground", "accent")))
        for overlap in (tints.overlap, tints.overlap_selected):
            assert all(seen(overlap) != seen(chunk) for chunk in tints.chunk + tints.chunk_selected), name


@run
async def test_every_strategy_summary_shows_whole_at_80_columns():
    from chunktui.engine import all_strategies

    app = ChunktuiApp(SAMPLES / "guide.md", strategy="markdown", debounce=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        summary = app.query_one("#strategy-summary")
        for strategy in all_strategies():
            summary.update(strategy.summary)
            await pilot.pause()
            needed = summary.get_content_height(summary.size, app.size, summary.content_region.width)
            assert summary.content_region.height >= needed, strategy.name


@run
async def test_the_footer_shows_whole_keys_and_the_pane_toggles():
    """At 80 columns the footer ended `n Next p▏^p palette` (a key cut under the palette key) and at
    100 `s Strat▏`, and < and >, the only way to the other side pane there, were past its end.
    Each key shown now lies whole before the palette key, < and > among them; at 100 columns
    more fit; the app resized keeps it so."""
    from textual.widgets import Footer

    def shown(app) -> list:
        footer = app.query_one(Footer)
        palette = footer.query_one(".-command-palette")
        keys = [k for k in footer.query("FooterKey") if k.display and k is not palette]
        assert all(k.region.right <= palette.region.x for k in keys)
        assert {"toggle_pane('left')", "toggle_pane('right')"} <= {k.action for k in keys}
        return keys

    app = ChunktuiApp(SAMPLES / "guide.md", debounce=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        narrow = len(shown(app))
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert len(shown(app)) > narrow
