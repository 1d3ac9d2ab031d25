"""Detail-pane panels of format strategies: email thread tree, cue timings, gaps of sampling strategies."""

from __future__ import annotations

import re

from rich.console import Console

from chunktui.engine import Document, chunk_document, load_document
from chunktui.formats.store import save_chunkset
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.widgets.cue_times import cue_panel, duration
from chunktui.ui.widgets.gaps import gaps_panel
from chunktui.ui.widgets.thread_tree import thread_panel
from support.ui import SAMPLES, opened, run, settle


def detail_lines(app: ChunktuiApp) -> list[str]:
    return [strip.text.rstrip() for strip in app.query_one("#detail").lines]


def flat(lines: list[str]) -> str:
    """The pane's text without tree guides or wrapping, so assertions do not depend on the pane's width."""
    return re.sub(r"\s+", " ", re.sub(r"[│├└─]", " ", " ".join(lines)))


def line_with(lines: list[str], needle: str) -> str:
    found = [line for line in lines if needle in line]
    assert len(found) == 1, (needle, found)
    return found[0]


async def select_with_n(pilot, index: int) -> None:
    """Walk to chunk `index` with the `n` key, as a user would."""
    pilot.app.view.focus()
    while pilot.app.selected < index:
        await pilot.press("n")
    await settle(pilot)


@run
async def test_thread_tree_shows_threads_forks_and_follows_the_selection():
    async with opened(SAMPLES / "threads.mbox") as (app, pilot):
        cs = app.chunkset
        assert cs.strategy == "email"  # auto picked it for .mbox
        lines = detail_lines(app)
        text = flat(lines)
        subjects = list(dict.fromkeys(c.metadata["subject"] for c in cs.chunks))
        assert len(subjects) == 2
        assert "Thread tree 2 threads" in text
        assert f"▾ {subjects[0]}" in text and f"▸ {subjects[1]}" in text  # the selected chunk's thread is open
        assert f"▶ {cs.chunks[0].id}" in text
        fork = next(c for c in cs.chunks if c.metadata.get("fork_of"))
        holder = next(c for c in cs.chunks if fork.metadata["fork_of"] in c.metadata["message_ids"])
        assert f"⑂ fork of {holder.id}" in text
        # the fork hangs one level under the window it forks from
        node = {
            c.id: next(line.index(c.id) for line in lines if re.search(f"── [▶ ] {c.id}", line))
            for c in (fork, holder, cs.chunks[0])
        }
        assert node[fork.id] > node[holder.id] == node[cs.chunks[0].id]
        first = cs.chunks[0].metadata
        emails = f"{first['email_count']} email{'s' if first['email_count'] != 1 else ''}"
        assert f"{emails} · {len(first['participants'])} participants" in text

        other = next(c for c in cs.chunks if c.metadata["subject"] == subjects[1])
        await select_with_n(pilot, other.index)
        assert app.selected == other.index
        lines = detail_lines(app)
        text = flat(lines)
        assert f"▶ {other.id}" in text and f"▾ {subjects[1]}" in text and f"▸ {subjects[0]}" in text
        assert not [line for line in lines if re.search(f"── [▶ ] {fork.id}", line)]  # a closed thread is one line


@run
async def test_thread_tree_in_review_of_a_saved_chunks_yaml(tmp_path):
    cs = chunk_document(
        load_document(SAMPLES / "threads.mbox"), "email", {"max_emails_per_chunk": 2, "overlap_emails": 1}
    )
    save_chunkset(cs, tmp_path / "chunks.yaml")
    async with opened(tmp_path / "chunks.yaml") as (app, pilot):
        assert app.mode == "review"
        text = flat(detail_lines(app))
        thread = [c for c in cs.chunks if c.metadata["thread_id"] == cs.chunks[0].metadata["thread_id"]]
        assert f"{len(thread)} chunks" in text
        assert all(c.id in text for c in thread)


@run
async def test_cue_panel_shows_the_selected_chunks_times():
    async with opened(SAMPLES / "talk.vtt") as (app, pilot):
        cs = app.chunkset
        assert cs.strategy == "cues"
        for index in (0, 1):
            await select_with_n(pilot, index)
            meta = cs.chunks[index].metadata
            lines = detail_lines(app)
            text = flat(lines)
            assert f"Cue times {meta['ts_start']} → {meta['ts_end']}" in text
            assert f"{meta['cue_count']} cues" in text
            assert line_with(lines, f"#{index + 1} ").startswith("▶")
            others = [c for c in cs.chunks if c.index != index]
            assert all(f"{c.metadata['ts_start']} → {c.metadata['ts_end']}" in text for c in others)


def test_duration_and_speakers():
    assert duration(67814) == "1:07.8"
    assert duration(3_725_000) == "1:02:05.0"
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v Dana>Hello there.\n\n"
        "00:00:03.500 --> 00:00:05.000\n<v Lee>Hi Dana.\n"
    )
    cs = chunk_document(Document.from_text(vtt, path="talk.vtt"), "cues", {})
    console = Console(width=100, record=True, color_system=None)
    console.print(cue_panel(cs.chunks[0], cs))
    text = console.export_text()
    assert "00:00:01.000 → 00:00:05.000  0:04.0  2 cues" in text
    assert "speakers: Dana, Lee" in text


@run
async def test_gaps_panel_lists_sampled_out_ranges_with_totals():
    async with opened(SAMPLES / "service.log") as (app, pilot):
        cs, doc = app.chunkset, app.doc
        assert cs.strategy == "log" and cs.gaps
        assert {g.reason for g in cs.gaps} == {"sampled out"}
        covered = sum(c.end_line - c.start_line + 1 for c in cs.chunks)  # head, middle, tail never overlap
        chars = sum(g.chars for g in cs.gaps)
        assert chars == cs.stats().gap_chars
        share = round(100 * chars / len(doc.text))
        text = flat(detail_lines(app))
        assert f"sampled out: {doc.line_count - covered:,} lines, {chars:,} chars ({share}%)" in text
        for g in cs.gaps:
            assert f"lines {g.start_line}-{g.end_line} {g.end_line - g.start_line + 1} lines {g.chars:,} chars" in text

        await select_with_n(pilot, 1)  # the middle sample: a gap runs into it and one out of it
        lines = detail_lines(app)
        assert line_with(lines, f"lines {cs.gaps[0].start_line}-").startswith("↓")
        assert line_with(lines, f"lines {cs.gaps[1].start_line}-").startswith("↑")


def test_panels_stay_out_of_chunk_sets_they_do_not_describe():
    log = chunk_document(load_document(SAMPLES / "service.log"), "log", {})
    assert thread_panel(log.chunks[0], log) is None
    assert cue_panel(log.chunks[0], log) is None  # log chunks have ts_start/ts_end but are no cues
    essay = chunk_document(load_document(SAMPLES / "essay.txt"), "prose", {})
    assert not essay.gaps and gaps_panel(essay.chunks[0], essay) is None


async def click_detail(pilot, needle: str, occurrence: int = 0) -> None:
    """Click on `needle` where the (zoomed) detail pane draws it, as a user would with the mouse."""
    detail = pilot.app.query_one("#detail")
    spots = [(line.index(needle), y) for y, line in enumerate(detail_lines(pilot.app)) if needle in line]
    x, y = spots[occurrence]
    top = detail.scroll_offset.y
    assert 0 <= y - top < detail.scrollable_content_region.height, "not in view"
    # content starts one cell right (padding) and one row down (the top border) of the widget's corner
    assert await pilot.click("#detail", offset=(x + 2, y - top + 1))
    await settle(pilot)


@run
async def test_clicking_panels_selects_chunks_and_jumps_to_gaps():
    async with opened(SAMPLES / "threads.mbox") as (app, pilot):
        detail = app.query_one("#detail")
        await pilot.press("z")  # the panels sit below the fold of the normal pane
        await settle(pilot)
        assert app.screen.maximized is detail and detail.size.height > 30
        target = app.chunkset.chunks[2]
        await click_detail(pilot, target.id, occurrence=-1)  # its node in the thread tree
        assert app.selected == 2 and app.table.cursor_row == 2
        assert app.view.cursor_line == target.start_line
        assert app.screen.maximized is detail  # still zoomed, now on the clicked chunk
        await pilot.press("z")
        await settle(pilot)
        assert app.screen.maximized is None and detail.size.height < 20

        assert await app.open_path(SAMPLES / "service.log")
        await settle(pilot)
        gap = app.chunkset.gaps[-1]
        await pilot.press("z")
        await settle(pilot)
        await click_detail(pilot, f"lines {gap.start_line}-{gap.end_line}")
        assert app.view.cursor_line == gap.start_line and app.view.first_visible_line == gap.start_line


@run
async def test_clicking_the_scope_tree_selects_the_chunk_of_a_definition():
    async with opened(SAMPLES / "inventory.py", strategy="code", params={"max_chunk_size": 1500}) as (app, pilot):
        await pilot.press("z")
        await settle(pilot)
        last = app.chunkset.chunks[-1]
        lines = detail_lines(app)
        assert any(last.id in line for line in lines)
        await click_detail(pilot, last.id, occurrence=-1)
        assert app.selected == last.index


class PassCounter(list):
    """A chunk list that counts the passes made over it."""

    passes = 0

    def __iter__(self):
        self.passes += 1
        return super().__iter__()


def test_selecting_a_cue_or_an_email_chunk_makes_no_pass_over_the_chunking():
    """The cue times and the thread tree walked every chunk at each selection, on the event loop
    (100,000 chunks of a long recording or a big mailbox); that pass is made once per chunking now,
    by prepare_panels in the chunking's worker, and a selection draws from it."""
    from chunktui.ui.widgets.chunk_detail import prepare_panels

    console = Console(width=100, record=True, color_system=None)
    for path, strategy, panel in (
        (SAMPLES / "talk.vtt", "cues", cue_panel),
        (SAMPLES / "threads.mbox", "email", thread_panel),
    ):
        cs = chunk_document(load_document(path), strategy, {})
        fresh = chunk_document(load_document(path), strategy, {})
        prepare_panels(cs)
        cs.chunks = counted = PassCounter(cs.chunks)
        picks = (len(cs.chunks) - 1, 0, 1)
        for index in picks:
            console.print(panel(cs.chunks[index], cs))
        drawn = console.export_text()
        assert counted.passes == 0, strategy
        for index in picks:
            console.print(panel(fresh.chunks[index], fresh))  # made on the spot, as before: the same panels
        assert console.export_text() == drawn and drawn.count("▶") >= 3


def test_the_figures_prepared_in_slices_are_those_of_one_pass(monkeypatch):
    """The worker makes the document view's lookups a slice at a time (slices.py), the furthest end
    carried from slice to slice; across slice ends they are what one pass over all chunks gives."""
    from itertools import accumulate

    from chunktui.engine.core import slices
    from chunktui.ui.prepared import prepare

    monkeypatch.setattr(slices, "STEP", 7)
    cs = chunk_document(load_document(SAMPLES / "guide.md"), "recursive", {"size": 200, "overlap": 40})
    assert len(cs.chunks) > 20
    prepared = prepare(cs, 100)
    assert prepared.starts == [c.start for c in cs.chunks]
    assert prepared.max_ends == list(accumulate((c.end for c in cs.chunks), max))
    assert prepared.sorted_tokens == sorted(c.embed_tokens for c in cs.chunks)
