"""Pilot tests of the app: what a user sees must equal what the engine computes for the same settings."""

from __future__ import annotations

import gc
import re
import threading
import traceback
import weakref

import pytest
from plotext import uncolorize
from textual.widgets import Input, Select

from chunktui.engine import all_strategies
from chunktui.ui import app as app_module, gc_pacing
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.compat import notifications
from chunktui.ui.widgets.stats_panel import stats_text
from support.ui import FAST, SAMPLES, SIZE, assert_screen_matches_engine, opened, run, set_input, settle


@run
async def test_each_kind_of_sample_opens_with_the_engines_chunks():
    """One app visits every sample doc (markdown, prose, code, log, jsonl, csv, tsv, vtt, srt, mbox)."""
    samples = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")
    app = ChunktuiApp(path=samples[0], debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        for path in samples:
            if path != samples[0]:
                assert await app.open_path(path)
            await settle(pilot)
            assert app.doc.name == path.name
            assert app.chunkset is not None and app.chunkset.chunks, path.name
            assert_screen_matches_engine(app)
            assert app.selected == 0 and app.view.first_visible_line == 1
        assert not [n for n in notifications(app) if n.severity == "error"]


@run
async def test_strategy_size_and_overlap_changes_rechunk_like_the_engine():
    async with opened(SAMPLES / "guide.md") as (app, pilot):
        app.query_one("#strategy", Select).value = "lines"
        await settle(pilot)
        assert app.controls.strategy_name == "lines"
        assert_screen_matches_engine(app)
        await set_input(pilot, "#param-max_tokens", "0")  # sized by lines alone
        before = len(app.chunkset.chunks)

        await set_input(pilot, "#param-chunk_lines", "30")
        await set_input(pilot, "#param-overlap_lines", "4")
        assert_screen_matches_engine(app)
        assert len(app.chunkset.chunks) > before

        app.view.focus()
        await pilot.press("right_square_bracket")  # size + step (10 for lines)
        await settle(pilot)
        assert app.query_one("#param-chunk_lines", Input).value == "40"
        await pilot.press("left_curly_bracket")  # overlap - step (5 for lines), clamped at 0
        await settle(pilot)
        assert app.query_one("#param-overlap_lines", Input).value == "0"
        assert_screen_matches_engine(app)
        assert app.chunkset.stats().overlap_share == 0

        app.query_one("#tokenizer", Select).value = "o200k_base"
        await settle(pilot)
        assert app.chunkset.tokenizer == "o200k_base"
        assert_screen_matches_engine(app)


@run
async def test_strategy_from_palette_action_and_remembered_params():
    async with opened(SAMPLES / "essay.txt", strategy="recursive") as (app, pilot):
        await set_input(pilot, "#param-size", "300")
        await app.run_action("strategy('split')")
        await settle(pilot)
        assert app.chunkset.strategy == "split"
        assert_screen_matches_engine(app)
        await app.run_action("strategy('recursive')")
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "300"
        assert_screen_matches_engine(app)


@run
async def test_switching_the_unit_to_tokens_takes_the_token_defaults_but_keeps_a_size_typed():
    """1000 characters read as 1000 tokens were twice the budget: a size and overlap still at their
    defaults follow the unit; a size the user typed stays, and so does the overlap with it, as
    `--unit tokens --size 700` keeps the documented overlap 200."""
    async with opened(SAMPLES / "essay.txt", strategy="recursive") as (app, pilot):
        app.query_one("#param-unit", Select).value = "tokens"
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "200"
        assert app.query_one("#param-overlap", Input).value == "40"
        assert app.chunkset.params["size"] == 200 and max(c.tokens for c in app.chunkset.chunks) <= 200
        assert_screen_matches_engine(app)
        app.query_one("#param-unit", Select).value = "chars"
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "1000"
        await set_input(pilot, "#param-size", "700")
        app.query_one("#param-unit", Select).value = "tokens"
        await settle(pilot)
        assert app.query_one("#param-size", Input).value == "700"
        assert app.query_one("#param-overlap", Input).value == "200"
        assert app.chunkset.params == {"size": 700, "overlap": 200, "unit": "tokens"}
        assert_screen_matches_engine(app)


@pytest.mark.parametrize(
    "value, problem",
    [
        ("abc", "whole number"),
        ("-5", "at least 0"),
        ("200", "smaller than chunk_lines"),
    ],
)
@run
async def test_invalid_value_is_marked_and_does_not_rechunk(value, problem):
    async with opened(SAMPLES / "service.log", strategy="lines", params={"size": 100, "overlap": 10}) as (app, pilot):
        shown, generation = app.chunkset, app.generation
        await set_input(pilot, "#param-overlap_lines", value)
        field = app.controls.field("overlap_lines")
        assert field.has_class("-invalid")
        assert problem in field.problem
        assert app.chunkset is shown and app.generation == generation
        await set_input(pilot, "#param-overlap_lines", "5")
        assert not field.has_class("-invalid")
        assert app.generation == generation + 1
        assert_screen_matches_engine(app)


@run
async def test_selecting_a_row_scrolls_the_document_there():
    async with opened(
        SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0, "max_tokens": 0}
    ) as (app, pilot):
        target = app.chunkset.chunks[12]
        assert app.view.first_visible_line == 1 and target.start_line > app.view.last_visible_line
        app.table.focus()
        app.table.move_cursor(row=12)
        await pilot.pause()
        assert app.selected == 12
        assert app.view.first_visible_line == target.start_line
        assert app.view.cursor_line == target.start_line
        assert app.query_one("#detail").shown is target


@run
async def test_moving_the_cursor_selects_the_chunk_under_it():
    async with opened(
        SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0, "max_tokens": 0}
    ) as (app, pilot):
        app.view.focus()
        await pilot.press("pagedown", "down", "down")
        await pilot.pause()
        line = app.view.cursor_line
        assert line == 1 + app.view.scrollable_content_region.height - 1 + 2
        expected = app.chunkset.chunk_at(app.doc.line_start(line))
        assert app.selected == expected.index == (line - 1) // 20
        assert app.table.cursor_row == expected.index
        await pilot.press("n")
        await pilot.pause()
        following = app.chunkset.chunks[expected.index + 1]
        assert app.selected == following.index and app.view.first_visible_line == following.start_line


@run
async def test_engine_error_becomes_a_notification_not_a_crash():
    async with opened(SAMPLES / "guide.md", strategy="lines") as (app, pilot):
        shown = app.chunkset
        await app.run_action("strategy('cues')")  # a markdown guide is not a subtitle file
        await settle(pilot)
        assert app.is_running
        errors = [n for n in notifications(app) if n.severity == "error"]
        assert errors and errors[-1].title == "Chunking failed"
        assert app.chunkset is shown


@run
async def test_histogram_toggles_between_tokens_and_chars():
    async with opened(SAMPLES / "guide.md") as (app, pilot):
        histogram = app.query_one("#histogram")
        assert histogram.values == [c.tokens for c in app.chunkset.chunks]
        assert histogram.budget_mark == app.budget
        await pilot.press("t")
        assert histogram.values == [c.chars for c in app.chunkset.chunks]


@run
async def test_document_view_marks_chunk_starts_gaps_and_overlaps():
    async with opened(SAMPLES / "talk.vtt", strategy="cues", params={"size": 600}) as (app, pilot):
        view, cs = app.view, app.chunkset
        rows = {y + 1: view.render_line(y).text for y in range(view.scrollable_content_region.height)}
        header = cs.gaps[0]
        assert f"gap: {header.reason}" in rows[header.start_line]
        first = cs.chunks[0]
        assert f"#1 {first.boundary_label}"[:10] in rows[first.start_line]
        assert "╱" in rows[header.end_line - 1]  # a gap row is hatched after its text

    async with opened(SAMPLES / "essay.txt", strategy="lines", params={"size": 4, "overlap": 2}) as (app, pilot):
        view, second = app.view, app.chunkset.chunks[1]
        core_line = app.doc.line_of(second.start + second.overlap_prev_chars)
        assert core_line > second.start_line  # the label marks where chunk 2's own lines start
        assert f"#2 {second.boundary_label}" in view.render_line(core_line - 1).text
        assert "#2" not in view.render_line(second.start_line - 1).text
        shared = second.start_line  # still inside chunk 1: chunk 2 repeats chunk 1's last two lines
        assert app.chunkset.chunks[0].end_line == shared + 1
        styles = {seg.style.bgcolor for seg in view.render_line(shared - 1) if seg.text.strip()}
        assert view.tints.overlap.bgcolor in styles or view.tints.overlap_selected.bgcolor in styles


@run
async def test_auto_opens_as_the_strategy_it_picks_with_its_parameters_to_tune():
    async with opened(SAMPLES / "guide.md", params={"max_tokens": 1500}) as (app, pilot):
        assert app.controls.strategy_name == "prose"
        assert app.query_one("#strategy", Select).value == "prose"
        assert app.query_one("#param-max_tokens", Input).value == "1500"  # params given with auto reach the pick
        assert "auto picked prose because .md" in str(app.query_one("#status").content)
        assert_screen_matches_engine(app)
        app.view.focus()
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.query_one("#param-max_tokens", Input).value != "1500"
        assert_screen_matches_engine(app)

        app.query_one("#strategy", Select).value = "lines"  # still free to switch, and back to auto
        await settle(pilot)
        assert app.controls.strategy_name == "lines" and app.chunkset.strategy == "lines"
        app.query_one("#strategy", Select).value = "auto"
        await settle(pilot)
        assert app.controls.strategy_name == "prose" and app.chunkset.strategy == "prose"
        assert app.query_one("#strategy", Select).value == "prose"


@run
async def test_histogram_counts_whole_chunks_and_labels_the_budget_in_range():
    async with opened(SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}, budget=250) as (app, pilot):
        plot = uncolorize(app.query_one("#histogram").plt.build())
        ticks = re.findall(r"^\s*([\d.]+)\s*┤", plot, re.MULTILINE)
        assert ticks and all(float(t) == int(float(t)) for t in ticks), ticks
        assert "budget 250" in plot
        await set_input(pilot, "#budget", "100000")  # far beyond every chunk: no line squashing the bars
        plot = uncolorize(app.query_one("#histogram").plt.build())
        assert "all below budget = 100,000" in plot and "┤" in plot


@run
async def test_table_labels_show_the_most_specific_end_of_the_header_path():
    async with opened(SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}) as (app, pilot):
        deep = [c for c in app.chunkset.chunks if len(c.metadata.get("header_path") or ()) > 2]
        assert deep
        for c in deep:
            label = str(app.table.get_cell_at((c.index, 5))).strip()
            path = c.metadata["header_path"]
            # the title every row shares is left out; a path too long for the pane keeps its end whole
            assert path[0] not in label and label.endswith(path[-1]) or "…" in label and label.endswith(path[-1][-4:])


@pytest.mark.parametrize("name", ["essay.txt", "orders.csv"])
@run
async def test_s_steps_through_the_strategies_that_can_read_the_document(name):
    """Format-only strategies (cues, email, data…) are skipped on documents of other kinds: no error on the way."""
    async with opened(SAMPLES / name, strategy="lines") as (app, pilot):
        kind = app.doc.kind
        readable = [s.name for s in all_strategies() if s.name != "auto" and (not s.kinds or kind in s.kinds)]
        assert len(readable) < len(all_strategies()) - 1  # some strategies are made for other formats
        seen = []
        for _ in readable:
            await pilot.press("s")
            await settle(pilot)
            seen.append(app.controls.strategy_name)
            assert app.chunkset.strategy == seen[-1]
        assert sorted(seen) == sorted(readable) and seen[-1] == "lines"  # each once, then round to the start
        assert not [n for n in notifications(app) if n.severity == "error"]


@run
async def test_cycles_are_collected_once_the_app_is_quiet_and_the_collector_is_restored_on_exit(monkeypatch):
    monkeypatch.setattr(app_module, "GC_CHECK_SECONDS", 0.05)
    monkeypatch.setattr(gc_pacing, "QUIET_SECONDS", 0.1)
    monkeypatch.setattr(gc_pacing, "DUE_AFTER", 0)
    enabled = gc.isenabled()
    async with opened(SAMPLES / "guide.md") as (app, pilot):
        assert not gc.isenabled()  # no automatic pass lands in the middle of a re-chunk

        class Node:
            pass

        node = Node()
        node.me = node  # only the cyclic collector can free it
        gone = weakref.ref(node)
        del node
        assert gone() is not None
        await pilot.pause(0.5)  # quiet: the app's own pass frees it
        assert gone() is None
    assert gc.isenabled() == enabled and gc.get_freeze_count() == 0


@run
async def test_a_chunking_of_the_previous_document_that_arrives_after_another_opens_is_dropped():
    """Opening a document does not cancel a run on the last one; its late result must not be drawn
    over the new document's text (its offsets belong to the other text)."""
    from chunktui.ui.app import ChunksReady

    async with opened(SAMPLES / "guide.md") as (app, pilot):
        old = app.chunkset
        await app.open_path(SAMPLES / "essay.txt")
        app.on_chunks_ready(ChunksReady(app.generation, old))  # the old run lands before the new one starts
        assert app.chunkset is None or app.chunkset.document is app.doc
        await settle(pilot)
        assert app.chunkset.document is app.doc and app.doc.name == "essay.txt"
        assert_screen_matches_engine(app)


@run
async def test_a_quality_result_that_lands_after_exit_leaves_the_collector_as_it_was():
    """The app freezes long-lived objects out of the cyclic GC while it runs and unfreezes them on exit;
    a late worker result must not freeze the heap again for the rest of the process."""
    from chunktui.engine.analysis.quality import assess
    from chunktui.ui.quality_actions import QualityReady

    async with opened(SAMPLES / "guide.md") as (app, pilot):
        cs = app.chunkset
    assert gc.get_freeze_count() == 0
    app.on_quality_ready(QualityReady(cs, assess(cs, app.budget), None))
    assert gc.get_freeze_count() == 0


@run
async def test_a_failure_of_the_previous_document_that_arrives_after_another_opens_is_dropped():
    """A late error from the last document's run must not be reported (or mark a field) on the new one."""
    from chunktui.ui.app import ChunkingFailed

    async with opened(SAMPLES / "guide.md") as (app, pilot):
        old = app.doc
        await app.open_path(SAMPLES / "essay.txt")
        app.on_chunking_failed(ChunkingFailed(app.generation, old, "size: must be at least 1", "size"))
        await settle(pilot)
        assert app.doc.name == "essay.txt" and app.chunkset.document is app.doc
        assert not [n for n in notifications(app) if n.severity == "error"]
        assert_screen_matches_engine(app)


@run
async def test_a_failing_semantic_fallback_is_reported_and_the_app_settles(monkeypatch):
    """No grammar → the app falls back to `semantic`; if that fails too, the user is told and the app
    does not wait for a result that never comes."""
    import asyncio

    from chunktui.engine import ChunkingError
    from chunktui.engine.code.languages import UnsupportedLanguageError

    def failing(doc, strategy, params, **kwargs):
        raise (
            ChunkingError("semantic: cannot read this")
            if strategy == "semantic"
            else UnsupportedLanguageError(f"{doc.name}: no grammar")
        )

    monkeypatch.setattr(app_module, "chunk_document", failing)
    app = ChunktuiApp(path=SAMPLES / "inventory.py", strategy="code", debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await asyncio.wait_for(settle(pilot), timeout=20)
        messages = [str(n.message) for n in notifications(app)]
        assert any("no grammar" in m for m in messages) and any("semantic: cannot read this" in m for m in messages)


@run
async def test_a_big_documents_token_index_is_built_once_in_the_background_and_reused(tmp_path, monkeypatch):
    """`log` samples a log and counts no tokens over all of it; switching to `log-records` then paid
    the whole-text encode (20-35 s at 100 MB). The app builds the index once the first chunks show,
    and the switch and the size steps after it reuse it, with the engine's exact counts."""
    from chunktui.engine.core import token_index
    from chunktui.engine.core.tokens import INDEX_MIN_CHARS, get_encoding

    text = (SAMPLES / "service.log").read_text(encoding="utf-8")
    path = tmp_path / "service-week.log"
    path.write_text(
        "".join(text.replace("2025-01-14 ", f"2025-01-{13 + day} ") for day in range(1, 4)), encoding="utf-8"
    )
    token_index.clear_cache()
    built = []
    index_class = token_index.TokenIndex
    monkeypatch.setattr(
        token_index,
        "TokenIndex",
        lambda *args, **options: built.append(len(args[0])) or index_class(*args, **options),
    )
    async with opened(path, strategy="log") as (app, pilot):
        assert len(app.doc.text) >= INDEX_MIN_CHARS
        assert built == [len(app.doc.text)]  # in the background, after the first chunks
        assert token_index.cached_index(app.doc.text, "cl100k_base") is not None
        app.query_one("#strategy", Select).value = "log-records"
        await settle(pilot)
        app.view.focus()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert app.controls.strategy_name == "log-records" and app.query_one("#param-size", Input).value == "880"
        assert len(built) == 1
        assert_screen_matches_engine(app)
        direct = get_encoding("cl100k_base").encode_ordinary
        assert [c.tokens for c in app.chunkset.chunks[:50]] == [len(direct(c.text)) for c in app.chunkset.chunks[:50]]


class LoopWatchedChunks(list):
    """A chunking's chunk list that notes every pass over it made on the event loop's thread."""

    loop_passes: list = []

    def __iter__(self):
        if threading.current_thread() is threading.main_thread():
            LoopWatchedChunks.loop_passes.append(traceback.format_stack(limit=2)[0])  # who made the pass
        return super().__iter__()


@run
async def test_a_result_is_shown_without_a_pass_over_its_chunks_on_the_event_loop(monkeypatch):
    """The stats, the histogram's bars, the table's column widths, the document view's lookups and
    the scope tree are made in the workers; at 117,000 chunks each pass on the event loop was
    40-170 ms of a stall. The loop may index the chunks it draws, never walk them all."""
    chunk_document = app_module.chunk_document

    def watched(*args, **kwargs):
        cs = chunk_document(*args, **kwargs)
        cs.chunks = LoopWatchedChunks(cs.chunks)
        return cs

    monkeypatch.setattr(app_module, "chunk_document", watched)
    LoopWatchedChunks.loop_passes = []
    async with opened(SAMPLES / "service.log", strategy="log-records", params={"size": 1}) as (app, pilot):
        assert isinstance(app.chunkset.chunks, LoopWatchedChunks) and len(app.chunkset.chunks) > 300
        assert app.quality is not None  # the flags are in: the histogram was redrawn with them
        await pilot.press("left_square_bracket", "right_square_bracket")  # size 1 -> 1 (clamped) -> 21
        await settle(pilot)
        app.query_one("#budget", Input).value = "100"  # a new budget redraws the stats and the histogram
        await settle(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert LoopWatchedChunks.loop_passes == []
        assert app.query_one("#stats").plain == stats_text(app.chunkset.stats(100)).plain
        assert_screen_matches_engine(app)
