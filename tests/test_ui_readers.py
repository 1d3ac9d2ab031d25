"""The app on a PDF: page breaks in the document's gutter, pages in the detail pane."""

from __future__ import annotations

import re
from pathlib import Path

from support.ui import opened, run, settle

PDF = Path(__file__).parent / "fixtures" / "docs" / "columns.pdf"


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
