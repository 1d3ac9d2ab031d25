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
    app = ChunktuiApp(path=SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200},
                      debounce=FAST)
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
