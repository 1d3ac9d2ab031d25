"""Shared helpers of the UI tests (no tests here): run async tests, wait for the app, compare with the engine."""

from __future__ import annotations

import asyncio
import functools
from contextlib import asynccontextmanager
from pathlib import Path

from textual.widgets import Input

from chunktui.engine import chunk_document, load_document
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.widgets.stats_panel import stats_text

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
SIZE = (160, 48)
FAST = 0.01  # debounce in tests: the same timer path, shorter


def run(test):
    """Run an async test on a fresh event loop (no asyncio plugin needed); fixtures pass through."""

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def settle(pilot) -> None:
    """Let queued messages run, then wait for the debounced run (if any) and its follow-ups to be shown.

    A change reaches the app through up to four messages (select → controls → app → rebuilt fields
    → app), and one pause handles one hop: under load, a single pause let `wait_idle` return before
    the app had even seen the change."""
    for _ in range(4):
        await pilot.pause()
    await pilot.app.wait_idle()
    await pilot.app.workers.wait_for_complete()  # follow-up workers (quality flags) too
    await pilot.pause()


@asynccontextmanager
async def opened(path, **options):
    """The app on `path` running at the tests' size, its first chunking shown: `(app, pilot)`.
    Options go to ChunktuiApp; the debounce is the tests' short one unless given."""
    app = ChunktuiApp(path=path, **{"debounce": FAST, **options})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        yield app, pilot


def engine_result(app: ChunktuiApp):
    """The engine's ChunkSet for exactly the settings the controls show."""
    strategy, values, tokenizer, context_header = app.current_request()
    return chunk_document(
        load_document(app.doc.path), strategy, dict(values), tokenizer=tokenizer, context_header=context_header
    )


def assert_screen_matches_engine(app: ChunktuiApp) -> None:
    expected = engine_result(app)
    shown = app.chunkset
    assert [(c.start, c.end) for c in shown.chunks] == [(c.start, c.end) for c in expected.chunks]
    assert app.table.row_count == len(expected.chunks)
    assert app.query_one("#stats").plain == stats_text(expected.stats(app.budget)).plain
    count = len(expected.chunks)
    assert f"→ {count:,} chunk{'s' if count != 1 else ''}" in str(app.query_one("#status").content)


async def set_input(pilot, selector: str, value: str) -> None:
    box = pilot.app.query_one(selector, Input)
    box.value = value
    await settle(pilot)
