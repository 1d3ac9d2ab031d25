"""Pilot tests of the chunk table: what each row says, how its cursor moves, and that it stays lazy."""

from __future__ import annotations

import pytest

from chunktui.engine import Document, Span, build_chunkset
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.widgets import chunk_table
from support.ui import FAST, SAMPLES, SIZE, engine_result, opened, run, settle


def row_text(table, row: int) -> str:
    """The row as drawn on screen (the table must have scrolled it into view)."""
    y = row - int(table.scroll_y) + 1  # line 0 is the header
    assert 1 <= y < table.scrollable_content_region.height, f"row {row} is not in view"
    return table.render_line(y).text


def tokens_segment(table, row: int):
    chunk = table.chunkset.chunks[row]
    y = row - int(table.scroll_y) + 1
    return next(s for s in table.render_line(y) if s.text.strip() == f"{chunk.tokens:,}")


def test_a_label_with_line_feeds_is_drawn_on_one_line():
    """A label from a plugin strategy or a chunks.yaml saved before labels were made one line (a
    PDF's table of contents gave `i\\nTable of Contents`) must not break its table row or the
    detail pane's head line."""
    from chunktui.ui.widgets.chunk_detail import detail_renderable

    text = "i\nTable of Contents\n1 Introduction\n\nNotes\n"
    cs = build_chunkset(
        Document.from_text(text),
        [
            Span(0, 35, "paragraph", "i\nTable of Contents\n1 Introduction"),
            Span(35, len(text), "paragraph", "\tNotes\r"),
        ],
        strategy="prose",
        params={},
        tokenizer="cl100k_base",
    )
    assert [chunk_table.chunk_label(c, 40) for c in cs.chunks] == ["i Table of Contents 1 Introduction", "Notes"]
    head = detail_renderable(cs.chunks[0], cs).renderables[0].plain.splitlines()
    assert head[1] == "paragraph: i Table of Contents 1 Introduction"


@pytest.mark.parametrize("size", [(220, 50), SIZE])
@run
async def test_a_row_per_chunk_with_the_engines_numbers(size):
    """Wide, every column shows; in a narrower pane the type and lines columns give their cells to the label."""
    app = ChunktuiApp(SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}, debounce=FAST)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table, expected = app.table, engine_result(app).chunks
        if size == SIZE:
            header = table.render_line(0).text.split()
            assert header == ["#", "chars", "tokens", "label"]
            return
        assert table.row_count == len(expected)
        header = table.render_line(0).text.split()
        assert header == ["#", "lines", "chars", "tokens", "type", "label"]
        for c in expected:
            cells = [table.get_cell_at((c.index, column)) for column in range(5)]
            assert cells == [
                str(c.index + 1),
                f"{c.start_line}-{c.end_line}",
                f"{c.chars:,}",
                f"{c.tokens:,}",
                c.boundary_type,
            ]
            assert row_text(table, c.index).split()[:5] == cells


@run
async def test_over_budget_tokens_are_red_and_bold_in_dark_and_light_themes():
    async with opened(SAMPLES / "guide.md", strategy="markdown", params={"max_char": 1200}, budget=240) as (app, pilot):
        table, chunks = app.table, app.chunkset.chunks
        over = next(c.index for c in chunks if c.tokens > 240 and c.index != table.cursor_row)
        under = next(c.index for c in chunks if c.tokens <= 240 and c.index != table.cursor_row)
        backgrounds = []
        for theme in ("textual-dark", "textual-light"):
            app.theme = theme
            await pilot.pause()
            red = tokens_segment(table, over).style
            r, g, b = red.color.get_truecolor()
            assert red.bold and r > g and r > b, theme
            plain = list(table.render_line(under - int(table.scroll_y) + 1))
            assert not any(s.style.bold for s in plain) and red.color not in {s.style.color for s in plain}
            backgrounds.append(plain[0].style.bgcolor)
        assert backgrounds[0] != backgrounds[1]  # the rows were drawn again in the new theme's colours
        table.move_cursor(row=over)
        on_cursor = tokens_segment(table, over).style
        assert on_cursor.bold and on_cursor.underline  # red would not read on the cursor's colour


@run
async def test_keys_move_the_row_cursor_and_the_document_follows():
    async with opened(SAMPLES / "service.log", strategy="lines", params={"size": 5, "overlap": 0}) as (app, pilot):
        table, chunks = app.table, app.chunkset.chunks
        visible = table.scrollable_content_region.height - 1
        assert len(chunks) > 2 * visible  # enough rows to scroll
        table.focus()
        await pilot.press("down", "down", "down")
        assert table.cursor_row == app.selected == 3
        assert app.view.first_visible_line == chunks[3].start_line
        await pilot.press("pagedown")
        assert table.cursor_row == 3 + visible
        assert str(3 + visible + 1) == row_text(table, table.cursor_row).split()[0]  # scrolled into view
        await pilot.press("end")
        assert table.cursor_row == app.selected == len(chunks) - 1
        assert row_text(table, len(chunks) - 1).split()[0] == str(len(chunks))
        assert table.render_line(0).text.split()[0] == "#"  # the header stays on top
        assert app.view.cursor_line == chunks[-1].start_line
        await pilot.press("home")
        assert table.cursor_row == app.selected == 0 and table.scroll_y == 0
        await pilot.press("pageup", "up")  # nothing above the first row
        assert table.cursor_row == 0


@run
async def test_clicking_a_row_selects_that_chunk():
    async with opened(SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0}) as (app, pilot):
        target = app.chunkset.chunks[4]
        assert target.start_line > app.view.last_visible_line
        await pilot.click("#table", offset=(3, 5))  # line 0 is the header, so line 5 is row 4
        await pilot.pause()
        assert app.table.cursor_row == app.selected == 4
        assert app.view.first_visible_line == target.start_line
        assert app.query_one("#detail").shown is target
        await pilot.click("#table", offset=(3, 0))  # the header selects nothing
        await pilot.pause()
        assert app.selected == 4


@run
async def test_enter_selects_the_highlighted_row_again_after_the_document_moved():
    async with opened(SAMPLES / "service.log", strategy="lines", params={"size": 20, "overlap": 0}) as (app, pilot):
        table = app.table
        table.focus()
        await pilot.press("down", "down")
        app.view.scroll_to(y=0, animate=False, immediate=True)  # the user scrolled the document away
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected == 2 and app.view.first_visible_line == app.chunkset.chunks[2].start_line


@run
async def test_document_cursor_brings_the_chunks_row_into_view():
    async with opened(SAMPLES / "service.log", strategy="lines", params={"size": 3, "overlap": 0}) as (app, pilot):
        app.view.focus()
        await pilot.press("end")
        await pilot.pause()
        last = len(app.chunkset.chunks) - 1
        assert app.selected == app.table.cursor_row == last
        assert row_text(app.table, last).split()[0] == str(last + 1)


@run
async def test_marks_for_oversized_and_split_chunks_precede_the_label():
    async with opened(SAMPLES / "guide.md", strategy="lines") as (app, pilot):
        doc = Document.from_text("def a():\n    pass\n\ndef b():\n    pass\n", kind="code")
        spans = [
            Span(0, 18, "function", "a", {"oversized": True}),
            Span(18, 36, "function", "b", {"split_entity": True, "scope_chain": ["module", "b"]}),
        ]
        cs = build_chunkset(doc, spans, strategy="code", params={}, tokenizer="chars")
        app.table.show(cs, 5)
        await pilot.pause()
        assert app.table.get_cell_at((0, 5)) == "⚠ a"
        assert app.table.get_cell_at((1, 5)) == "✂ module > b"
        assert row_text(app.table, 1).rstrip().endswith("✂ module > b")


@run
async def test_thousands_of_chunks_render_only_the_rows_in_view(tmp_path, monkeypatch):
    path = tmp_path / "big.log"
    path.write_text("".join(f"event {i}\n" for i in range(6000)), encoding="utf-8")
    labelled = []
    label = chunk_table.chunk_label
    monkeypatch.setattr(
        chunk_table, "chunk_label", lambda chunk, *args: labelled.append(chunk.index) or label(chunk, *args)
    )
    async with opened(path, strategy="lines", params={"size": 1, "overlap": 0}) as (app, pilot):
        table = app.table
        assert table.row_count == len(app.chunkset.chunks) == 6000
        rows = table.scrollable_content_region.height
        assert len(set(labelled)) <= rows  # only the rows drawn so far were ever turned into text
        table.move_cursor(row=5999)
        await pilot.pause()
        last = app.chunkset.chunks[5999]
        assert last.text == "event 5999\n"
        assert row_text(table, 5999).split()[:3] == ["6000", f"{last.chars}", f"{last.tokens}"]
        assert len(set(labelled)) <= 2 * rows


@run
async def test_every_label_is_cut_in_the_middle_to_the_column():
    """textwrap.py under `code` at 170 columns: `def wrap(text, width=70, **k` (a boundary label)
    was cut on the right by the pane's edge beside `TextWrapper >…ence_endings` (a scope cut in the
    middle). Every label now fits its column, and a cut one keeps both its ends."""
    import textwrap

    app = ChunktuiApp(textwrap.__file__, strategy="code", debounce=FAST)
    async with app.run_test(size=(170, 40)) as pilot:
        await settle(pilot)
        table = app.table
        assert table.virtual_size.width <= table.scrollable_content_region.width
        chunks = app.chunkset.chunks
        rows = range(min(table.row_count, table.scrollable_content_region.height - 1))
        labels = {row: table.get_cell_at((row, 5)) for row in rows}
        assert any(not chunks[row].metadata.get("scope_chain") for row in rows)  # some are boundary labels
        cut = [label for label in labels.values() if "…" in label]
        assert cut and all(not label.endswith("…") for label in cut)
        for row, label in labels.items():
            assert row_text(table, row).rstrip().endswith(label)


@run
async def test_wide_character_labels_are_cut_in_cells(tmp_path):
    """A label's column is measured in cells: CJK text takes two a character, so a label of 40
    cells in a narrower column loses its middle, whole characters at a time, and fits it."""
    from rich.cells import cell_len

    path = tmp_path / "cjk.txt"
    path.write_text("日本語の文章です。これは二番目の文です。\n\n段落が変わります。\n", encoding="utf-8")
    async with opened(path, strategy="prose") as (app, pilot):
        table = app.table
        label = table.get_cell_at((0, 5))
        assert label.startswith("日本語の文章") and label.endswith("目の文です。") and "…" in label
        assert cell_len(label) <= table._widths[-1] - 1
        assert row_text(table, 0).rstrip().endswith(label)


def test_labels_show_the_level_that_tells_neighbours_apart_and_cut_in_the_middle():
    releases = [["Rust releases", f"Version 1.{v}.0 (2024-07-{v - 60})", "Cargo"] for v in (81, 80, 79)]
    label = chunk_table.distinct_label(releases[1], [releases[0], releases[2]], 60)
    assert label == "… > Version 1.80.0 (2024-07-20) > Cargo"
    cut = chunk_table.distinct_label(releases[1], [releases[0], releases[2]], 24)
    assert len(cut) == 24 and cut.startswith("… > Version 1.8") and cut.endswith("Cargo")
    section = ["fs", "Promises API", "Class: `FileHandle`"]
    assert (
        chunk_table.distinct_label(section, [section, section], 40, part=3, root=1)
        == "Promises API > Class: `FileHandle` (3)"
    )
    assert chunk_table.middle_cut("abcdefghij", 5) == "ab…ij"


@run
async def test_split_pieces_of_one_section_get_distinct_labels(tmp_path):
    """Rows of one long section read `…: FileHandle` thirteen times in Node's fs.md; each row now
    says which piece it is, and rows under different versions keep their version."""
    body = "".join(f"Paragraph {i} about file handles and what they do. " * 6 + "\n\n" for i in range(12))
    doc = (
        "# fs\n\n## Class: FileHandle\n\n"
        + body
        + "## 1.80.0\n\nReleased in July.\n\n### Cargo\n\nA.\n\n## 1.79.0\n\nReleased in June.\n\n### Cargo\n\nB.\n"
    )
    path = tmp_path / "fs.md"
    path.write_text(doc, encoding="utf-8")
    async with opened(path, strategy="markdown", params={"max_char": 400, "min_char": 0}) as (app, pilot):
        labels = [app.table.get_cell_at((i, 5)) for i in range(app.table.row_count)]
        assert len(set(labels)) == len(labels), labels
        assert any("1.80.0" in label and "Cargo" in label for label in labels)


@run
async def test_at_80_columns_the_lines_column_gives_its_cells_to_the_label():
    """At 80x24 the table pane showed a label column of about 6 cells beside `332→397` token cells
    (a code chunk embedded with its context): the type column, then the lines column (both in the
    detail pane) give their cells to the label, so each row's scope is read whole without scrolling."""
    import textwrap

    app = ChunktuiApp(textwrap.__file__, strategy="code", debounce=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")  # the table pane, in place of the controls
        await pilot.pause()
        table = app.table
        assert table.render_line(0).text.split() == ["#", "chars", "tokens", "label"]
        assert "→" in table.get_cell_at((0, 3))
        room = table.scrollable_content_region.width
        assert room - table.render_line(0).text.index(" label") - 1 >= chunk_table.MIN_LABEL_WIDTH
        scoped = [
            row
            for row in range(min(table.row_count, table.scrollable_content_region.height - 1))
            if app.chunkset.chunks[row].metadata.get("scope_chain")
        ]
        assert len(scoped) >= 5
        for row in scoped:  # a scope is cut to the room left (a boundary label scrolls sideways)
            assert row_text(table, row).rstrip().endswith(table.get_cell_at((row, 5)))
