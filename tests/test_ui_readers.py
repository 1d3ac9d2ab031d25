"""The app on a PDF: read in a worker with a progress bar, page breaks in the document's gutter,
pages in the chunk table and the detail pane, --password for documents and reviews."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from support.cli import run as cli_run
from support.ui import FAST, SAMPLES, SIZE, opened, run, settle
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.compat import notifications

DOCS = Path(__file__).parent / "fixtures" / "docs"
PDF = DOCS / "columns.pdf"
MANUAL = DOCS / "libtasn1-8pages.pdf"
LOCKED = DOCS / "libtasn1-encrypted.pdf"


@run
async def test_pdf_page_breaks_in_the_gutter_and_pages_in_the_detail_pane():
    async with opened(PDF, strategy="recursive", params={"size": 1200, "overlap": 0}) as (app, pilot):
        doc, view, cs = app.doc, app.view, app.chunkset
        second_page = doc.line_of(doc.page_starts[1])
        app.action_goto_line(second_page)
        await settle(pilot)
        rows = [view.render_line(y).text for y in range(view.scrollable_content_region.height)]
        marked = [r for r in rows if re.match(rf"\s*{second_page} ", r)]
        assert len(marked) == 1 and "─ page 2" in marked[0], rows
        across = next(c for c in cs.chunks if c.metadata["page_start"] < c.metadata["page_end"])
        app.select_chunk(across.index)
        await settle(pilot)
        head = " ".join(strip.text for strip in app.query_one("#detail").lines[:3])
        assert f"pages {across.metadata['page_start']}-{across.metadata['page_end']}" in head


@pytest.fixture(scope="module")
def long_pdfs(tmp_path_factory):
    """400- and 401-page PDFs: the manual's eight pdfTeX pages over and over (two files, so that
    neither is in the extraction cache when the other was read first)."""
    import pypdfium2 as pdfium

    folder = tmp_path_factory.mktemp("long")
    pages = pdfium.PdfDocument(MANUAL)
    made = []
    for count in (400, 401):
        out = pdfium.PdfDocument.new()
        while len(out) < count:
            out.import_pages(pages, list(range(min(len(pages), count - len(out)))))
        out.save(folder / f"long{count}.pdf")
        made.append(folder / f"long{count}.pdf")
    return made


def paced_reads(monkeypatch, gate_at: float) -> threading.Event:
    """Make every read take a while (5 ms a page) and stop once `gate_at` of it is read until the
    test sets the returned event: a 400-page read takes well under a second on a quiet machine, so
    without this the read could end before the test's first turn and the test would race it."""
    from chunktui.engine.readers import Watch

    release = threading.Event()
    report = Watch.report

    def paced(self, fraction: float) -> None:
        time.sleep(0.005)
        if fraction >= gate_at:
            release.wait(60)
        report(self, fraction)

    monkeypatch.setattr(Watch, "report", paced)
    return release


async def statuses_while_reading(app, pilot, limit: float = 120.0) -> list[str]:
    """The status line each time the event loop gave the test a turn while a read ran."""
    seen = []
    deadline = time.monotonic() + limit
    while app.reading is not None and time.monotonic() < deadline:
        seen.append(str(app.query_one("#status").content))
        await pilot.pause(0.02)
    return seen


@run
async def test_a_long_pdf_is_read_in_a_worker_with_a_progress_bar_and_pages_in_the_table(long_pdfs, monkeypatch):
    release = paced_reads(monkeypatch, gate_at=0.9)
    app = ChunktuiApp(path=long_pdfs[0], debounce=FAST, strategy="recursive", params={"size": 2000, "overlap": 0})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seen, shares = [], set()
        deadline = time.monotonic() + 60
        # the screen stays live through the read: the test has turns, and they show the bar's progress
        while not any(0 < share < 100 for share in shares) and time.monotonic() < deadline:
            seen += await statuses_while_reading(app, pilot, limit=0.5)
            shares = {
                int(m.group(1)) for s in seen if (m := re.search(r"reading \[b\]long400\.pdf\[/b\] .*▱.* (\d+)%", s))
            }
        release.set()
        assert any(0 < share < 100 for share in shares), seen
        await settle(pilot)
        assert app.doc.extraction.page_count == 400 and "reading" not in str(app.query_one("#status").content)
        header = app.table.render_line(0).text
        assert header.split()[:2] == ["#", "pages"], header  # at this width the line range gives its cells to the label
        pages = {app.table.get_cell_at((c.index, 6)) for c in app.chunkset.chunks}
        across = next(c for c in app.chunkset.chunks if c.metadata["page_start"] < c.metadata["page_end"])
        assert (
            app.table.get_cell_at((across.index, 6)) == f"{across.metadata['page_start']}-{across.metadata['page_end']}"
        )
        assert "400" in pages or any(p.endswith("-400") for p in pages)
        assert app.table.render_line(1 + across.index).text.split()[1] == app.table.get_cell_at((across.index, 6))


@run
async def test_opening_another_file_during_a_read_drops_the_read(long_pdfs, monkeypatch):
    guide = SAMPLES / "guide.md"
    release = paced_reads(monkeypatch, gate_at=0.1)  # the read waits a tenth of the way in
    app = ChunktuiApp(path=long_pdfs[1], debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.reading is not None and app.doc is None  # the read runs while the screen is live
        await app.open_path(guide)
        release.set()
        await settle(pilot)
        assert app.doc.path == str(guide) and app.reading is None
        assert "reading" not in str(app.query_one("#status").content)
        # the dropped read stopped at its next page, before it was cached
        from chunktui.engine.readers import _cache

        assert not any(key[0] == app_digest(long_pdfs[1]) for key in _cache)


def app_digest(path) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@run
async def test_the_app_reads_an_encrypted_pdf_with_the_password_and_reviews_it(tmp_path):
    guide = SAMPLES / "guide.md"
    async with opened(guide, reader_options={"password": "wrong"}) as (app, pilot):
        await app.open_path(LOCKED)
        await settle(pilot)
        assert app.doc.path == str(guide)  # the open document stays
        assert any("wrong password for this encrypted PDF" in str(n.message) for n in notifications(app))
    async with opened(LOCKED, reader_options={"password": "s3cret"}) as (app, pilot):
        assert app.doc.extraction.page_count == 8
    code, _, err = cli_run(
        "chunk", LOCKED, "-s", "recursive", "-f", "yaml", "-o", tmp_path / "out", "--password", "s3cret"
    )
    assert code == 0, err
    async with opened(tmp_path / "out" / "chunks.yaml", reader_options={"password": "s3cret"}) as (app, pilot):
        assert app.mode == "review" and "unchanged" in str(app.query_one("#banner").content)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.mode == "tune" and app.doc.extraction.page_count == 8 and app.chunkset.strategy == "recursive"


@run
async def test_a_review_extracts_its_source_again_in_the_reading_worker(tmp_path, monkeypatch):
    """Checking a saved PDF's source extracts it again, seconds for a long PDF: it ran on the event
    loop, so the screen froze until it ended."""
    from chunktui.engine.readers import _cache

    code, _, err = cli_run("chunk", DOCS / "lo-notes.pdf", "-f", "yaml", "-o", tmp_path / "out")
    assert code == 0, err
    _cache.clear()  # the review extracts the PDF again
    release = paced_reads(monkeypatch, gate_at=0.0)  # it waits at its first page
    app = ChunktuiApp(path=tmp_path / "out" / "chunks.yaml", debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.reading is not None and app.mode != "review"  # the screen is live meanwhile
        assert "reading [b]chunks.yaml[/b]" in str(app.query_one("#status").content)
        release.set()
        await settle(pilot)
        assert app.mode == "review" and app.reading is None
        assert "unchanged" in str(app.query_one("#banner").content)
