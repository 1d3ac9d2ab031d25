"""SVG snapshots of the screens the README shows; baselines live in snapshots/ at the repo root.

Update them with `pytest tests/test_ui_snapshots.py --snapshot-update` (or `make snapshots`)
after an intended change to the screens, then look at the SVGs before committing.
"""

from __future__ import annotations

from pathlib import Path

from chunktui.ui.app import ChunktuiApp
from support.ui import FAST, SIZE, run, settle

SAMPLES = Path("sample_docs")  # relative: see svg_snapshot


async def screenshot(app: ChunktuiApp, *keys: str) -> str:
    """The app's screen as SVG once it is idle: every debounced run shown, then `keys` pressed."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        return app.export_screenshot(title="chunktui")


@run
async def test_main_screen_markdown(svg_snapshot):
    app = ChunktuiApp(path=SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}, debounce=FAST)
    assert svg_snapshot == await screenshot(app, "n", "n")


@run
async def test_main_screen_code(svg_snapshot):
    app = ChunktuiApp(path=SAMPLES / "auth_middleware.ts", strategy="code", debounce=FAST)
    assert svg_snapshot == await screenshot(app, "n", "n", "n")


@run
async def test_main_screen_subtitles(svg_snapshot):
    app = ChunktuiApp(path=SAMPLES / "talk.vtt", strategy="cues", params={"size": 600}, debounce=FAST)
    assert svg_snapshot == await screenshot(app)  # the WEBVTT header shows as a gap with its reason


@run
async def test_export_dialog(svg_snapshot):
    app = ChunktuiApp(path=SAMPLES / "inventory.py", strategy="code", debounce=FAST)
    assert svg_snapshot == await screenshot(app, "e")


@run
async def test_help_screen(svg_snapshot):
    app = ChunktuiApp(path=SAMPLES / "notes.md", strategy="markdown", debounce=FAST)
    assert svg_snapshot == await screenshot(app, "question_mark")


async def query_pane_screenshot(size: tuple[int, int]) -> str:
    """guide.md with its hand-written questions at k=1: the ninth is asked from the pane's list; its
    top chunk (starred) holds three quarters of its answer, drawn retrieved, and misses the rest,
    drawn missed; the stats carry recall and IoU."""
    app = ChunktuiApp(
        path=SAMPLES / "guide.md",
        strategy="markdown",
        params={"max_char": 400, "chunk_overlap": 0},
        debounce=FAST,
        queries=SAMPLES / "queries" / "guide.jsonl",
    )
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        k = app.query_one("#query-k")
        k.value = "1"
        k.focus()
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        app.query_one("#query-list").focus()
        await pilot.press(*["down"] * 8, "enter")
        await pilot.pause(0.3)  # the question's debounce
        await settle(pilot)
        app.clear_notifications()
        await pilot.pause()
        return app.export_screenshot(title="chunktui")


@run
async def test_query_pane(svg_snapshot):
    assert svg_snapshot == await query_pane_screenshot(SIZE)


@run
async def test_query_pane_80x24(svg_snapshot):
    assert svg_snapshot == await query_pane_screenshot((80, 24))
