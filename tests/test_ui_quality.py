"""Pilot tests of quality in the app: what the panels and screens show equals what the engine computes."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from textual.widgets import DataTable, Input, TextArea

from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis.compare import compare
from chunktui.engine.analysis.facts import check_facts
from chunktui.engine.analysis.quality import assess
from chunktui.engine.analysis.sweep import SMALL_WORK, sweep
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.host import AppHost
from chunktui.ui.screens.compare import CompareScreen
from chunktui.ui.screens.facts import FactsScreen
from chunktui.ui.screens.sweep import SweepScreen
from chunktui.ui.widgets.flag_histogram import FlaggedHistogram

GUIDE = Path(__file__).resolve().parent.parent / "sample_docs" / "guide.md"
SIZE = (160, 48)
PARAMS = {"size": 15, "overlap": 0}


def run(test):
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def settle(pilot, screen=None) -> None:
    """Chunking shown, then the quality (or the screen's) worker done and its message handled."""
    for _ in range(4):  # a change travels through several messages, one pause a hop (see support/ui.py)
        await pilot.pause()
    await pilot.app.wait_idle()
    await pilot.app.workers.wait_for_complete()
    if screen is not None:
        await screen.workers.wait_for_complete()
    await pilot.pause()


def engine(params=PARAMS):
    return chunk_document(load_document(GUIDE), "lines", params)


@run
async def test_flags_panel_and_histogram_show_the_engine_quality():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        expected = assess(engine(), app.budget)
        assert app.quality.score == expected.score
        panel = app.query_one("#flags").plain
        assert f"score {expected.score.score:g}/100" in panel
        histogram = app.query_one("#histogram", FlaggedHistogram)
        assert histogram.flagged == set(expected.flagged_indexes()) and histogram.flagged
        # a smaller budget re-assesses: every chunk over 100 tokens becomes over_budget
        budget = app.query_one("#budget", Input)
        budget.value = "100"
        await settle(pilot)
        tighter = assess(engine(), 100)
        assert app.quality.score == tighter.score and tighter.score.counts["over_budget"] > 0
        assert f"score {tighter.score.score:g}/100" in app.query_one("#flags").plain


@run
async def test_f_and_shift_f_step_through_flagged_chunks():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        flagged = assess(engine(), app.budget).flagged_indexes()
        assert len(flagged) >= 2
        app.select_chunk(flagged[0])
        await pilot.press("f")
        await pilot.pause()
        assert app.selected == flagged[1]
        assert app.query_one("#doc").cursor_line == app.chunkset.chunks[flagged[1]].start_line
        await pilot.press("F")
        await pilot.pause()
        assert app.selected == flagged[0]
        await pilot.press("F")  # wraps to the last flagged chunk
        await pilot.pause()
        assert app.selected == flagged[-1]
        reasons = [f.reason for f in assess(engine(), app.budget).by_chunk()[flagged[-1]]]
        assert reasons[0][:30] in app.query_one("#flags").plain.replace("\n", " ")


@run
async def test_sweep_screen_lists_the_engine_cells_and_applies_the_chosen_one():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        screen.query_one("#sweep-sizes", Input).value = "10,20,30"
        screen.query_one("#sweep-overlaps", Input).value = "0,2"
        await pilot.click("#sweep-run")
        await settle(pilot, screen)
        expected = sweep(load_document(GUIDE), ["lines"], [10, 20, 30], [0, 2], budget=app.budget, workers=1)
        assert screen.result.cells == expected.cells
        table = screen.query_one("#sweep-table", DataTable)
        assert table.row_count == len(expected.cells)
        best = expected.best()
        assert table.cursor_row == expected.cells.index(best)
        await pilot.press("down" if table.cursor_row + 1 < table.row_count else "up")
        chosen = expected.cells[table.cursor_row]
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, SweepScreen)
        assert app.controls.raw_values == {
            "chunk_lines": str(chosen.size),
            "overlap_lines": str(chosen.overlap),
            "max_tokens": "512",
        }
        shown = app.chunkset
        assert [(c.start, c.end) for c in shown.chunks] == [
            (c.start, c.end) for c in engine({"size": chosen.size, "overlap": chosen.overlap}).chunks
        ]


@run
async def test_sweep_screen_runs_the_grid_in_worker_processes(tmp_path):
    """A document big enough for the sweep to farm its cells out to processes (Node's fs.md did;
    it failed with "bad value(s) in fds_to_keep": Textual's stand-in stderr has no file number,
    and multiprocessing passes stderr's to the helper process it starts)."""
    big = tmp_path / "big.md"
    big.write_text(GUIDE.read_text(encoding="utf-8") * 40, encoding="utf-8")
    sizes, overlaps = [20, 40, 60], [0, 2]
    assert len(big.read_text()) * len(sizes) * len(overlaps) >= SMALL_WORK  # the pool path, not in-process
    app = ChunktuiApp(big, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#sweep-sizes", Input).value = ",".join(map(str, sizes))
        screen.query_one("#sweep-overlaps", Input).value = ",".join(map(str, overlaps))
        await pilot.click("#sweep-run")
        await settle(pilot, screen)
        assert "error" not in str(screen.query_one("#sweep-status").content)
        expected = sweep(load_document(big), ["lines"], sizes, overlaps, budget=app.budget, workers=1)
        assert screen.result.cells == expected.cells


@run
async def test_compare_screen_marks_boundaries_like_the_engine():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        box = screen.query_one("#compare-b", Input)
        assert box.value == "lines chunk_lines=15 max_tokens=512 overlap_lines=0"
        box.value = "lines size=30 overlap=0"
        await pilot.press("enter")
        await settle(pilot, screen)
        expected = compare(engine(), engine({"size": 30, "overlap": 0}))
        assert screen.comparison.only_a == expected.only_a and screen.comparison.both == expected.both
        assert expected.both and expected.only_a and not expected.only_b
        view = screen.query_one("#compare-view")
        await pilot.press("n")
        first_diff = min(b.line for b in expected.boundaries if b.side != "both")
        assert view.top_line == first_diff
        box.value = "lines size=zero"
        box.focus()  # `n` moved the focus to the view, where enter submits nothing
        await pilot.press("enter")
        await settle(pilot, screen)
        assert "--size: expected a whole number" in str(screen.query_one("#compare-summary").content)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CompareScreen)


@run
async def test_facts_screen_reports_and_jumps_and_the_panel_keeps_the_tally():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("k")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FactsScreen)
        phrases = ["Shell completion", "# a comment", "no such phrase here"]
        screen.query_one("#facts-input", TextArea).text = "\n".join(phrases)
        await pilot.press("ctrl+r")
        await pilot.pause()
        expected = check_facts(engine(), ["Shell completion", "no such phrase here"])
        assert [(f.status, f.chunk_ids) for f in screen.facts] == [(f.status, f.chunk_ids) for f in expected]
        table = screen.query_one("#facts-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, FactsScreen)
        assert app.selected == int(expected[0].chunk_ids[0].split("-")[1]) - 1
        assert "facts: 1 whole, 0 split, 1 missing" in app.query_one("#flags").plain


@run
async def test_a_long_key_fact_keeps_its_chunks_in_sight():
    """A long phrase pushed the chunks column off the table; the chunks come first now and the
    phrase is cut in the middle to the room left."""
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("k")
        await pilot.pause()
        screen = app.screen
        phrase = "Shell completion " + "and a great deal more that nobody would ever search for " * 6
        screen.query_one("#facts-input", TextArea).text = "Shell completion\n" + phrase
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.pause()
        table = screen.query_one("#facts-table", DataTable)
        shown = [table.render_line(y).text for y in range(1, 3)]
        whole = screen.facts[0]
        assert whole.status == "whole" and whole.chunk_ids[0] in shown[0]
        assert "…" in shown[1] and "missing" in shown[1].lower() or screen.facts[1].reason[:10] in shown[1]


@run
async def test_results_that_arrive_while_the_app_shuts_down_are_dropped():
    """A worker finishing after the user quits must not crash the exit on widgets already gone."""
    from chunktui.ui.app import ChunksReady
    from chunktui.ui.quality_actions import QualityReady

    app = ChunktuiApp(path=GUIDE, strategy="lines", params=PARAMS, debounce=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cs = app.chunkset
    assert not app.is_running
    app.on_quality_ready(QualityReady(cs, assess(cs, app.budget), None))
    app.on_chunks_ready(ChunksReady(app.generation, cs))
    assert app.chunkset is cs


@run
async def test_the_app_is_what_the_quality_mixin_expects():
    app = ChunktuiApp(GUIDE, strategy="lines", params=PARAMS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app, AppHost)  # every attribute and method it names is there
