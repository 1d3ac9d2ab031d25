"""Pilot tests of the app: what a user sees must equal what the engine computes for the same settings."""

from __future__ import annotations

from pathlib import Path

import asyncio
import functools

import pytest
from textual.widgets import Input, Select, Switch

from chunktui.engine import chunk_document, load_document
from chunktui.formats.export import writer_names
from chunktui.formats.profiles import load_profile
from chunktui.formats.store import save_chunkset
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.screens.export import ExportScreen
from chunktui.ui.screens.help import HelpScreen
from chunktui.ui.screens.picker import FilePickerScreen
from chunktui.ui.widgets.stats_panel import stats_text

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
SIZE = (160, 48)


def run(test):
    """Run an async test on a fresh event loop (no asyncio plugin needed); fixtures pass through."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def settle(pilot) -> None:
    """Let queued messages run, then wait for the debounced run (if any) to be shown."""
    await pilot.pause()
    await pilot.app.wait_idle()
    await pilot.pause()


def engine_result(app: ChunktuiApp):
    """The engine's ChunkSet for exactly the settings the controls show."""
    strategy, values, tokenizer = app.current_request()
    return chunk_document(load_document(app.doc.path), strategy, dict(values), tokenizer=tokenizer)


def assert_screen_matches_engine(app: ChunktuiApp) -> None:
    expected = engine_result(app)
    shown = app.chunkset
    assert [(c.start, c.end) for c in shown.chunks] == [(c.start, c.end) for c in expected.chunks]
    assert app.table.row_count == len(expected.chunks)
    assert app.query_one("#stats").plain == stats_text(expected.stats(app.budget)).plain
    assert f"→ {len(expected.chunks):,} chunks" in str(app.query_one("#status").content)


async def set_input(pilot, selector: str, value: str) -> None:
    box = pilot.app.query_one(selector, Input)
    box.value = value
    await settle(pilot)


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.iterdir() if p.name != "README.md"))
@run
async def test_each_sample_opens_with_the_engines_chunks(name):
    app = ChunktuiApp(path=SAMPLES / name)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.doc is not None and app.doc.name == name
        assert app.chunkset is not None and app.chunkset.chunks
        assert_screen_matches_engine(app)
        assert app.selected == 0
        assert app.view.first_visible_line == 1


@run
async def test_strategy_size_and_overlap_changes_rechunk_like_the_engine():
    app = ChunktuiApp(path=SAMPLES / "guide.md")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#strategy", Select).value = "lines"
        await settle(pilot)
        assert app.controls.strategy_name == "lines"
        assert_screen_matches_engine(app)
        before = len(app.chunkset.chunks)

        await set_input(pilot, "#param-size", "30")
        await set_input(pilot, "#param-overlap", "4")
        assert_screen_matches_engine(app)
        assert len(app.chunkset.chunks) > before

        app.view.focus()
        await pilot.press("right_square_bracket")  # size + step (10 for lines)
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "40"
        await pilot.press("left_curly_bracket")  # overlap - step (5 for lines), clamped at 0
        await settle(pilot)
        assert app.query_one("#param-overlap", Input).value == "0"
        assert_screen_matches_engine(app)
        assert app.chunkset.stats().overlap_share == 0

        app.query_one("#tokenizer", Select).value = "o200k_base"
        await settle(pilot)
        assert app.chunkset.tokenizer == "o200k_base"
        assert_screen_matches_engine(app)


@run
async def test_strategy_from_palette_action_and_remembered_params():
    app = ChunktuiApp(path=SAMPLES / "essay.txt", strategy="recursive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await set_input(pilot, "#param-size", "300")
        await app.run_action("strategy('split')")
        await settle(pilot)
        assert app.chunkset.strategy == "split"
        assert_screen_matches_engine(app)
        await app.run_action("strategy('recursive')")
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "300"
        assert_screen_matches_engine(app)


@pytest.mark.parametrize("value, problem", [
    ("abc", "whole number"),
    ("-5", "at least 0"),
    ("200", "smaller than size"),
])
@run
async def test_invalid_value_is_marked_and_does_not_rechunk(value, problem):
    app = ChunktuiApp(path=SAMPLES / "service.log", strategy="lines", params={"size": 100, "overlap": 10})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown, generation = app.chunkset, app.generation
        await set_input(pilot, "#param-overlap", value)
        field = app.controls.field("overlap")
        assert field.has_class("-invalid")
        assert problem in field.problem
        assert app.chunkset is shown and app.generation == generation
        await set_input(pilot, "#param-overlap", "5")
        assert not field.has_class("-invalid")
        assert app.generation == generation + 1
        assert_screen_matches_engine(app)


@run
async def test_selecting_a_row_scrolls_the_document_there():
    app = ChunktuiApp(path=SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        target = app.chunkset.chunks[12]
        assert app.view.first_visible_line == 1 and target.start_line > app.view.last_visible_line
        app.table.focus()
        app.table.move_cursor(row=12)
        await pilot.pause()
        assert app.selected == 12
        assert app.view.first_visible_line == target.start_line
        assert app.view.cursor_line == target.start_line
        assert "chunk-0013" in str(app.query_one("#detail-body").content.renderables[0])


@run
async def test_moving_the_cursor_selects_the_chunk_under_it():
    app = ChunktuiApp(path=SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.view.focus()
        for _ in range(45):
            await pilot.press("down")
        await pilot.pause()
        line = app.view.cursor_line
        assert line == 46
        expected = app.chunkset.chunk_at(app.doc.line_start(line))
        assert app.selected == expected.index == 2
        assert app.table.cursor_row == 2
        await pilot.press("n")
        await pilot.pause()
        assert app.selected == 3 and app.view.first_visible_line == app.chunkset.chunks[3].start_line


@run
async def test_engine_error_becomes_a_notification_not_a_crash():
    app = ChunktuiApp(path=SAMPLES / "guide.md", strategy="lines")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.chunkset
        await app.run_action("strategy('cues')")  # a markdown guide is not a subtitle file
        await settle(pilot)
        assert app.is_running
        errors = [n for n in app._notifications if n.severity == "error"]
        assert errors and errors[-1].title == "Chunking failed"
        assert app.chunkset is shown


@run
async def test_chunks_yaml_opens_in_review_mode_and_can_switch_to_tuning(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text((SAMPLES / "notes.md").read_text(encoding="utf-8"), encoding="utf-8")
    saved = chunk_document(load_document(source), "lines", {"size": 8, "overlap": 2})
    store = save_chunkset(saved, tmp_path / "chunks.yaml")
    app = ChunktuiApp(path=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode == "review"
        assert [(c.start, c.end, c.text) for c in app.chunkset.chunks] == \
            [(c.start, c.end, c.text) for c in saved.chunks]
        assert app.table.row_count == len(saved.chunks)
        assert "unchanged" in str(app.query_one("#banner").content)
        assert app.controls.disabled
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.mode == "tune" and not app.controls.disabled
        assert app.chunkset.strategy == "lines"
        assert [(c.start, c.end) for c in app.chunkset.chunks] == [(c.start, c.end) for c in saved.chunks]


@run
async def test_chunks_yaml_of_a_changed_source_says_so(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text("# One\n\nfirst text\n", encoding="utf-8")
    store = save_chunkset(chunk_document(load_document(source), "lines", {"size": 1, "overlap": 0}),
                          tmp_path / "chunks.yaml")
    source.write_text("# One\n\nchanged text\n", encoding="utf-8")
    app = ChunktuiApp(path=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.mode == "review"
        assert "CHANGED" in str(app.query_one("#banner").content)
        assert app.chunkset.chunks[2].text == "first text\n"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.mode == "review"


@run
async def test_export_dialog_writes_files_and_names_the_manifest(tmp_path):
    out = tmp_path / "out"
    app = ChunktuiApp(path=SAMPLES / "inventory.py")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        count = len(app.chunkset.chunks)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        assert [o for o in writer_names()] == [str(v) for _, v in dialog.query_one("#export-format")._options]
        dialog.query_one("#export-format", Select).value = "json"
        dialog.query_one("#export-dir", Input).value = str(out)
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        assert (out / "manifest.json").is_file() and (out / "chunks.json").is_file()
        assert any(str(out / "manifest.json") in n.message for n in app._notifications)

        # a second export into the now non-empty folder is refused in the dialog, then allowed with overwrite
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#export-dir", Input).value = str(out)
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is dialog
        assert str(dialog.query_one("#export-error").content)
        dialog.query_one("#export-overwrite", Switch).value = True
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is not dialog
        assert len(list(out.glob("chunk-*.txt"))) == count


@run
async def test_save_profile_writes_what_the_controls_show(tmp_path):
    target = tmp_path / "p.yaml"
    app = ChunktuiApp(path=SAMPLES / "essay.txt", strategy="recursive", params={"size": 400, "overlap": 40})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#profile-path", Input).value = str(target)
        await pilot.click("#profile-save")
        await pilot.pause()
    profile = load_profile(target)
    assert profile.strategy == "recursive" and profile.params["size"] == 400 and profile.params["overlap"] == 40
    again = ChunktuiApp(path=SAMPLES / "essay.txt", profile=target)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.chunkset.strategy == "recursive" and again.chunkset.params["size"] == 400


@run
async def test_histogram_toggles_between_tokens_and_chars():
    app = ChunktuiApp(path=SAMPLES / "guide.md")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        histogram = app.query_one("#histogram")
        assert histogram.values == [c.tokens for c in app.chunkset.chunks]
        assert histogram.budget_mark == app.budget
        await pilot.press("t")
        assert histogram.values == [c.chars for c in app.chunkset.chunks]


@run
async def test_no_file_opens_the_picker_and_help_lists_every_binding():
    app = ChunktuiApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FilePickerScreen)
    app = ChunktuiApp(path=SAMPLES / "notes.md")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = {b.id for _, group in app.screen.groups for b in group}
        assert {b.id for b in ChunktuiApp.BINDINGS} <= listed
        assert all(b.id and b.tooltip for _, group in app.screen.groups for b in group)


@run
async def test_demo_steps_through_strategies_with_their_summary():
    app = ChunktuiApp(demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.controls.strategy_name
        await pilot.press("s")
        await settle(pilot)
        strategy = app.controls.strategy
        assert strategy.name != first
        assert strategy.summary in str(app.query_one("#banner").content)
        assert_screen_matches_engine(app)
        assert not strategy.kinds or app.doc.kind in strategy.kinds
