"""DOCX files read as markdown: heading styles, lists, tables, comments, paragraph ranges, bad zips.

guide.docx and empty.docx are written by python-docx (tests/fixtures/docs/make_fixtures.py); the
footnote is added to guide.docx's zip as Word stores one, since python-docx cannot write footnotes.
word-*.docx were written by Word (python-docx's own test files; see fixtures/docs/README.md).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document

DOCS = Path(__file__).parent / "fixtures" / "docs"
GUIDE = DOCS / "guide.docx"
EMPTY = DOCS / "empty.docx"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_styles_become_markdown():
    doc = load_document(GUIDE)
    assert doc.extractor.startswith("python-docx ")
    lines = doc.text.splitlines()
    for line in (
        "# Field guide to chunking",
        "# Why chunk at all",
        "## Sizes",
        "- Pieces follow headings",
        "- Tables stay whole",
        "| recursive | 512 | 64 |",
        "1. Numbered one",
        "> [comment 1] Check this figure against the benchmark.",
        "A comment is attached here.[^c1]",
        "Overlap is measured, never assumed.[^1]",
        "> [footnote 1] Measured from the offsets of both chunks.",
    ):
        assert line in lines, line
    assert lines.index("- Tables stay whole") == lines.index("- Pieces follow headings") + 1  # one list


def test_chunks_name_their_paragraph_range_and_header_path():
    doc = load_document(GUIDE)
    cs = chunk_document(doc, "markdown", {"max_char": 120, "min_char": 0, "chunk_overlap": 0})
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert 1 <= c.metadata["paragraph_start"] <= c.metadata["paragraph_end"]
    sizes = next(c for c in cs.chunks if "| recursive |" in c.text)
    assert sizes.metadata["header_path"][-1] == "Sizes"
    # blocks: title, heading, paragraph, two items, "Sizes" (6), then the table (7)
    assert sizes.metadata["paragraph_start"] == 6 and sizes.metadata["paragraph_end"] >= 7


def test_empty_document_warns_and_gives_no_chunks(tmp_path):
    code, out, err = run("chunk", EMPTY, "-o", tmp_path / "out")
    assert code == 0, err
    assert "the document has no text: no chunks" in err
    assert "0 chunks" in out


def test_corrupt_zip_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "minutes.docx"
    bad.write_bytes(GUIDE.read_bytes()[:6000])
    code, _, err = run("chunk", bad, "-o", tmp_path / "out")
    assert code == 2 and err.strip().count("\n") == 0
    assert err.startswith(f"chunktui: error: {bad}: not a readable DOCX (corrupt zip")
    assert not (tmp_path / "out").exists()


def test_the_app_refuses_a_damaged_docx_at_the_prompt(tmp_path, monkeypatch):
    """`chunktui FILE` says it in one line and exits 2, before the screen takes over (the app's
    worker would only meet it behind a "Cannot open" notice): a cut zip, and a zip that holds no
    Word document."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    cut = tmp_path / "minutes.docx"
    cut.write_bytes(GUIDE.read_bytes()[:6000])
    no_word = tmp_path / "notes.docx"
    with zipfile.ZipFile(GUIDE) as src, zipfile.ZipFile(no_word, "w") as dst:
        for item in src.infolist():
            if item.filename != "word/document.xml":
                dst.writestr(item, src.read(item))
    for bad, problem in ((cut, "not a readable DOCX (corrupt zip"), (no_word, "not a readable DOCX")):
        for args in ((bad,), ("open", bad)):
            code, out, err = run(*args)
            assert code == 2 and out == "" and err.strip().count("\n") == 0, err
            assert err.startswith(f"chunktui: error: {bad}: {problem}"), err
    assert not started


def test_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(GUIDE) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "word/document.xml":
                data = data.replace(b"</w:body>", b"<!--" + b" " * 300_000_000 + b"--></w:body>")
            out.writestr(item, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=1)
    assert bomb.stat().st_size < 2_000_000
    code, _, err = run("chunk", bomb, "-n")
    assert code == 2 and "over the limit" in err and str(bomb) in err


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Normal", "Heading 1", "Heading 2", "List Bullet", "List Number"]),
            st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=60),
        ),
        min_size=0,
        max_size=15,
    ),
    st.sampled_from(["markdown", "prose", "recursive"]),
)
def test_extraction_holds_the_offset_contract(tmp_path_factory, paragraphs, strategy):
    d = docx.Document()
    for style, text in paragraphs:
        d.add_paragraph(text, style=style)
    path = tmp_path_factory.mktemp("d") / "gen.docx"
    d.save(path)
    doc = load_document(path)
    cs = chunk_document(doc, strategy, {"size": 40, "overlap": 5} if strategy == "recursive" else {})
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert raw[c.start_byte : c.end_byte].decode("utf-8") == c.text
        assert c.metadata["paragraph_start"] <= c.metadata["paragraph_end"] <= len(paragraphs)


LO_NOTES = DOCS / "lo-notes.docx"  # written by LibreOffice 7.4 (see fixtures/docs/README.md)


def test_a_docx_written_by_libreoffice_reads_as_markdown():
    doc = load_document(LO_NOTES)
    assert doc.text == (
        "# Release notes\n\n"
        "This release moves the configuration to one file.[^1] Upgrades keep every setting.\n\n"
        "## Changed defaults\n\n"
        "[^c1]The timeout is now 30 seconds.\n\n"
        "| Setting | Value |\n| --- | --- |\n| timeout | 30 s |\n| retries | 3 |\n\n"
        "## Removed\n\n"
        "- The legacy sync command.\n- The XML export.\n\n"
        "> [footnote 1] The old files are read once and then renamed.\n\n"
        "> [comment 1] Check the timeout figure before release.\n"
    )
    cs = chunk_document(doc, "markdown", {"max_char": 120, "min_char": 0, "chunk_overlap": 0})
    table = next(c for c in cs.chunks if "| timeout |" in c.text)
    assert table.metadata["header_path"] == ["Release notes", "Changed defaults"]
    # body blocks: 1 heading, 2 paragraph, 3 heading, 4 paragraph, 5 table
    assert table.metadata["paragraph_end"] == 5


def test_footnotes_are_numbered_in_the_order_the_text_refers_to_them(tmp_path):
    """Not by their w:id (LibreOffice's first footnote is 2, Word's 1 or 2): LibreOffice's file
    with a footnote (w:id 3) referred to from the title, before its own (w:id 2), and one (w:id 4)
    that nothing refers to."""
    notes = tmp_path / "notes.docx"
    with zipfile.ZipFile(LO_NOTES) as src, zipfile.ZipFile(notes, "w") as dst:
        for item in src.infolist():
            data = src.read(item).decode("utf-8")
            if item.filename == "word/document.xml":
                data = data.replace(
                    "<w:t>Release notes</w:t></w:r>",
                    '<w:t>Release notes</w:t></w:r><w:r><w:footnoteReference w:id="3"/></w:r>',
                )
            elif item.filename == "word/footnotes.xml":
                data = data.replace(
                    "</w:footnotes>",
                    "".join(
                        f'<w:footnote w:id="{n}"><w:p><w:r><w:t>{words}</w:t></w:r></w:p></w:footnote>'
                        for n, words in ((3, "Written for 2.0."), (4, "Nothing refers to this one."))
                    )
                    + "</w:footnotes>",
                )
            dst.writestr(item, data)
    doc = load_document(notes)
    lines = doc.text.splitlines()
    assert lines[0] == "# Release notes[^1]"
    assert lines[2] == "This release moves the configuration to one file.[^2] Upgrades keep every setting."
    assert [line for line in lines if line.startswith(">")] == [
        "> [footnote 1] Written for 2.0.",
        "> [footnote 2] The old files are read once and then renamed.",
        "> [footnote 3] Nothing refers to this one.",
        "> [comment 1] Check the timeout figure before release.",
    ]
    cs = chunk_document(doc, "markdown", {"max_char": 120, "min_char": 0, "chunk_overlap": 0})
    assert all(doc.text[c.start : c.end] == c.text for c in cs.chunks)


def test_a_debian_manual_saved_as_docx_by_libreoffice_keeps_its_chapters():
    doc = load_document(DOCS / "lo-users-and-groups.docx")
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings[0] == "# Users and Groups in the Debian System"
    assert {"# Chapter 1. Introduction", "# Chapter 2. Users and Groups"} <= set(headings)
    cs = chunk_document(doc, "markdown", {})
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text and c.metadata["paragraph_start"] <= c.metadata["paragraph_end"]


def assert_exact(doc, cs):
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text and raw[c.start_byte : c.end_byte].decode("utf-8") == c.text


def test_a_table_word_put_in_a_table_cell_keeps_its_text():
    """Word 16 (python-docx's test file, see fixtures/docs/README.md): a cell holds a paragraph, a
    table and a paragraph; the inner table's cells were left out of the pipe table."""
    doc = load_document(DOCS / "word-nested-table.docx")
    assert "| Text before Table Between Text after |" in doc.text.splitlines()
    cs = chunk_document(doc, "markdown", {"max_char": 60, "min_char": 0, "chunk_overlap": 0})
    table = next(c for c in cs.chunks if "Text before" in c.text)
    assert table.metadata["paragraph_start"] == table.metadata["paragraph_end"] == 3  # a table, then a paragraph first
    assert_exact(doc, cs)


def test_comments_written_by_word_follow_the_body_as_marked_blocks():
    doc = load_document(DOCS / "word-comments.docx")
    body, _, notes = doc.text.partition("\n\n> [comment 1]")
    assert "Some text worthy of note.[^c1]" in body and "Paragraph 6[^c4]" in body and "Paragraph 7" in body
    assert "> [comment 1] Text with hyperlink https://google.com embedded." in doc.text
    assert "> [comment 4] Paragraph with Heading 2 paragraph style." in doc.text  # a comment's style is no heading
    assert not [line for line in doc.text.splitlines() if line.startswith("#")]
    assert_exact(doc, chunk_document(doc, "recursive", {"size": 80, "overlap": 20}))


def test_a_heading_style_from_word_for_mac_gives_the_header_path():
    doc = load_document(DOCS / "word-mac-heading.docx")
    assert doc.text == "# Heading Paragraph\n\nNormal paragraph\n"
    cs = chunk_document(doc, "markdown", {"max_char": 20, "min_char": 0, "chunk_overlap": 0})
    last = cs.chunks[-1]
    assert last.text.endswith("Normal paragraph\n") and last.metadata["header_path"] == ["Heading Paragraph"]
    assert last.metadata["paragraph_end"] == 2
    assert_exact(doc, cs)


def test_body_text_that_markdown_would_read_as_structure_stays_body_text(tmp_path):
    """Normal paragraphs that start with '#' (a shell comment pasted into install notes), '1.' (a
    step numbered by hand), '-', '>' or '|' were headings, items, quotes and table rows in the
    text: the shell comment became an H1, so the command under it had the header path ['install
    the build dependencies first'] and not ['Install']. A backslash keeps them body text."""
    d = docx.Document()
    d.add_paragraph("Install", style="Heading 1")
    d.add_paragraph("Run these in a shell:")
    for line in (
        "# install the build dependencies first",
        "apt-get build-dep chunktui",
        "1. Unpack the archive into /opt.",
        "- then the rest, as the list below says",
        "> quoted from the mailing list",
        "| pipes | at the start |",
    ):
        d.add_paragraph(line)
    d.add_paragraph("Configure", style="Heading 2")
    d.add_paragraph("Set the cache folder.", style="List Bullet")
    path = tmp_path / "install.docx"
    d.save(path)
    doc = load_document(path)
    lines = doc.text.splitlines()
    for escaped in (
        "\\# install the build dependencies first",
        "1\\. Unpack the archive into /opt.",
        "\\- then the rest, as the list below says",
        "\\> quoted from the mailing list",
        "\\| pipes | at the start |",
    ):
        assert escaped in lines, escaped
    assert [line for line in lines if line.startswith(("#", "-", ">", "|", "1."))] == [
        "# Install",
        "## Configure",
        "- Set the cache folder.",
    ]
    small = {
        "markdown": {"max_char": 60, "min_char": 0, "chunk_overlap": 0},
        "prose": {"min_tokens": 1, "max_tokens": 12},
    }
    for strategy, params in small.items():
        cs = chunk_document(doc, strategy, params)
        command = next(c for c in cs.chunks if "apt-get build-dep" in c.text)
        assert command.metadata["header_path"] == ["Install"], strategy
        assert_exact(doc, cs)


LO_INSTALL = DOCS / "lo-install.docx"  # written by LibreOffice 7.4 from lo-install.fodt (fixtures/docs/README.md)


def test_a_footnote_in_a_heading_stays_in_the_text_but_not_in_the_header_path():
    """LibreOffice's DOCX with a footnote on the 'Requirements' heading: the text keeps the mark
    (`## Requirements[^1]`), and header paths and labels name the heading without it (they read
    'Requirements[^1]')."""
    doc = load_document(LO_INSTALL)
    lines = doc.text.splitlines()
    assert "## Requirements[^1]" in lines and "> [footnote 1] Tested on Debian 12 and Ubuntu 24.04." in lines
    assert "> [comment 1] Say which port it listens on." in lines
    assert "\\# add the repository key first" in lines and "1\\. Then install the package." in lines
    small = {
        "markdown": {"max_char": 80, "min_char": 0, "chunk_overlap": 0},
        "prose": {"min_tokens": 1, "max_tokens": 12},
    }
    for strategy, params in small.items():
        cs = chunk_document(doc, strategy, params)
        table = next(c for c in cs.chunks if "| python3 |" in c.text)
        assert table.metadata["header_path"] == ["Installing the agent", "Requirements"], strategy
        heading = next(c for c in cs.chunks if c.text.startswith("## Requirements[^1]"))
        assert heading.boundary_label == "## Requirements", strategy
        steps = next(c for c in cs.chunks if "gpg --dearmor" in c.text)
        assert steps.metadata["header_path"] == ["Installing the agent", "Steps"], strategy
        assert_exact(doc, cs)


def test_footnotes_written_by_word_follow_the_body_numbered_as_referred_to():
    """Word 2010 (mammoth.js's test file, see fixtures/docs/README.md): two footnotes referred to
    in one sentence, stored with Word's separator notes (w:id -1 and 0) before them."""
    doc = load_document(DOCS / "word-footnotes.docx")
    assert doc.text == "Ouch[^1].[^2]\n\n> [footnote 1] A tachyon walks into a bar.\n\n> [footnote 2] Fin.\n"
    cs = chunk_document(doc, "markdown", {"max_char": 30, "min_char": 0, "chunk_overlap": 0})
    assert_exact(doc, cs)
    last = cs.chunks[-1]  # the second note: it names itself, and the body's one paragraph it follows
    assert last.text == "> [footnote 2] Fin.\n"
    assert (last.metadata["note_start"], last.metadata["note_end"]) == ("footnote 2", "footnote 2")
    assert last.metadata["paragraph_start"] == last.metadata["paragraph_end"] == 1
    assert "note_start" not in cs.chunks[0].metadata and cs.chunks[0].metadata["note_end"] == "footnote 1"


def _long_docx(path: Path, paragraphs: int) -> bytes:
    """A DOCX from python-docx's default template (164 styles): paragraphs without a style (the
    default paragraph style), headings, list items and a table of vertically merged cells, the
    same few blocks copied `paragraphs` times."""
    import copy

    d = docx.Document()
    blocks = [
        d.add_heading("Section", 2)._p,
        d.add_paragraph("Body text without a style, ")._p,
        d.add_paragraph("an item", style="List Bullet")._p,
    ]
    table = d.add_table(rows=4, cols=2)
    table.cell(0, 0).merge(table.cell(3, 0))
    blocks.append(table._tbl)
    body = d.element.body
    for _ in range(paragraphs // len(blocks) - 1):
        for block in blocks:
            body.append(copy.deepcopy(block))
    body.append(body.sectPr)  # the section's properties stay last
    d.save(path)
    return path.read_bytes()


def test_reading_costs_no_style_scan_or_xpath_query_per_paragraph(tmp_path, monkeypatch):
    """python-docx's `paragraph.style` scans all 164 styles of its template for each paragraph
    without a style (8,000 paragraphs: 49 s), and its `w:p | w:tbl` XPath unions are merged in
    time quadratic in the children: what a read asks of either must not grow with the document."""
    from docx.oxml.styles import CT_Styles
    from docx.oxml.xmlchemy import BaseOxmlElement

    from chunktui.engine.readers.docx import read_docx

    calls: list[str] = []
    for owner, name in ((CT_Styles, "default_for"), (CT_Styles, "get_by_id"), (BaseOxmlElement, "xpath")):
        original = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda self, *a, _o=original, _n=name: calls.append(_n) or _o(self, *a))
    counts = []
    for n in (8, 400):
        data = _long_docx(tmp_path / f"{n}.docx", n)
        calls.clear()
        text = read_docx("long.docx", data).text
        assert text.count("## Section") == n // 4 and text.count("- an item") == n // 4
        counts.append(sorted(calls))
    assert counts[0] == counts[1], (len(counts[0]), len(counts[1]))


def test_a_long_read_reports_its_progress_and_stops_when_cancelled(tmp_path):
    from chunktui.engine.core.errors import Cancelled
    from chunktui.engine.readers import Watch
    from chunktui.engine.readers.docx import read_docx

    data = _long_docx(tmp_path / "long.docx", 2_000)
    heard: list[float] = []
    read_docx("long.docx", data, Watch(progress=heard.append))
    assert len(heard) >= 3 and heard == sorted(heard) and 0 < heard[0] and heard[-1] < 1
    asked = []
    with pytest.raises(Cancelled):
        read_docx("long.docx", data, Watch(is_cancelled=lambda: asked.append(1) or True))
    assert asked == [1]  # stopped at the first report, not after the whole body


def test_a_docx_with_more_xml_than_python_docx_parses_in_bounded_memory_is_refused(tmp_path, monkeypatch):
    """The XML is parsed whole (about 11 bytes of memory a byte): its size is bounded, not just the
    zip's. The limit is lowered here so that a small real file is over it."""
    from chunktui.engine.readers import docx as reader

    monkeypatch.setattr(reader, "MAX_XML", 20_000)
    path = tmp_path / "guide.docx"
    path.write_bytes(GUIDE.read_bytes())
    with zipfile.ZipFile(path, "a") as z:  # other bytes than the file other tests read (and cache)
        z.comment = b"a copy"
    code, _, err = run("chunk", path, "-n")
    assert code == 2 and err.count("\n") == 1
    assert f"{path}: its XML expands to" in err and "over the limit of 20,000" in err


def test_paragraphs_numbered_through_word_numbering_become_numbered_items(tmp_path):
    """Word numbers a list through `w:numPr` and numbering.xml, with no "List Number" style: a
    level whose format is a number (decimal here, lower roman by a level override) is `1.`, a
    bullet level `-`, and `w:numId` 0 (numbering taken away) leaves a paragraph body text."""
    from docx.oxml.parser import parse_xml

    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    d = docx.Document()  # its numbering.xml: numId 9 is decimal, numId 1 a bullet
    d.part.numbering_part.element.append(
        parse_xml(
            f'<w:num {ns} w:numId="42"><w:abstractNumId w:val="8"/><w:lvlOverride w:ilvl="1">'
            '<w:lvl w:ilvl="1"><w:numFmt w:val="lowerRoman"/></w:lvl></w:lvlOverride></w:num>'
        )
    )
    for words, num, level in (
        ("Unpack the archive", "9", "0"),
        ("Run the installer", "9", "0"),
        ("Check the sums first", "42", "1"),
        ("Keep the receipt", "42", "0"),
        ("A paragraph whose numbering was taken away", "0", "0"),
    ):
        p = d.add_paragraph(words)
        p._p.get_or_add_pPr().append(
            parse_xml(f'<w:numPr {ns}><w:ilvl w:val="{level}"/><w:numId w:val="{num}"/></w:numPr>')
        )
    path = tmp_path / "steps.docx"
    d.save(path)
    assert load_document(path).text.splitlines() == [
        "1. Unpack the archive",
        "1. Run the installer",
        "1. Check the sums first",
        "- Keep the receipt",
        "",
        "A paragraph whose numbering was taken away",
    ]


def test_a_long_vertical_merge_is_read_row_by_row(tmp_path):
    """A column merged down a long table (a category beside its rows): python-docx finds each
    continued cell's first cell by XPath, from the row above and recursively up the merge (500 rows:
    12.8 s; 1,000: RecursionError, an internal error). Each row is read once now, the merged cell's
    text in every row, as python-docx gives it."""
    import copy

    from chunktui.engine.readers.docx import read_docx

    d = docx.Document()
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text, table.cell(1, 1).text = "Fruit", "apple", "pear"
    table.cell(0, 0).merge(table.cell(1, 0))
    continued = table._tbl.tr_lst[1]
    for _ in range(1_198):
        table._tbl.append(copy.deepcopy(continued))
    d.save(tmp_path / "merged.docx")
    rows = read_docx("merged.docx", (tmp_path / "merged.docx").read_bytes()).text.splitlines()
    assert rows[0] == "| Fruit | apple |" and rows[2:] == ["| Fruit | pear |"] * 1_199


def test_a_hyperlink_whose_relationship_is_missing_keeps_its_text(tmp_path):
    """A damaged package: a link naming a relationship id the part does not have reads as its
    words (as a link to a bookmark does), not as an internal error (KeyError)."""
    from docx.oxml.parser import parse_xml

    d = docx.Document()
    p = d.add_paragraph("See ")
    p._p.append(
        parse_xml(
            '<w:hyperlink xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rId999">'
            "<w:r><w:t>the release notes</w:t></w:r></w:hyperlink>"
        )
    )
    d.save(tmp_path / "dangling.docx")
    code, out, err = run("chunk", tmp_path / "dangling.docx", "-o", tmp_path / "out")
    assert code == 0, err
    assert (tmp_path / "out" / "source.md").read_text() == "See the release notes\n"


def test_a_list_numbered_through_a_word_list_style_is_numbered(tmp_path):
    """Word's list styles: the paragraph's numbering names an abstract numbering without levels
    whose `w:numStyleLink` names a numbering style, whose own numbering holds the levels (here
    upper-case letters)."""
    from docx.oxml.parser import parse_xml

    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    d = docx.Document()
    numbering = d.part.numbering_part.element
    first_num = numbering.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}num")
    first_num.addprevious(
        parse_xml(
            f'<w:abstractNum {ns} w:abstractNumId="50"><w:styleLink w:val="StepsList"/>'
            '<w:lvl w:ilvl="0"><w:numFmt w:val="upperLetter"/></w:lvl></w:abstractNum>'
        )
    )
    first_num.addprevious(
        parse_xml(f'<w:abstractNum {ns} w:abstractNumId="51"><w:numStyleLink w:val="StepsList"/></w:abstractNum>')
    )
    numbering.append(parse_xml(f'<w:num {ns} w:numId="60"><w:abstractNumId w:val="50"/></w:num>'))
    numbering.append(parse_xml(f'<w:num {ns} w:numId="61"><w:abstractNumId w:val="51"/></w:num>'))
    d.styles.element.append(
        parse_xml(
            f'<w:style {ns} w:type="numbering" w:styleId="StepsList"><w:name w:val="Steps List"/>'
            '<w:pPr><w:numPr><w:numId w:val="60"/></w:numPr></w:pPr></w:style>'
        )
    )
    for words in ("Open the lid", "Pour the water"):
        d.add_paragraph(words)._p.get_or_add_pPr().append(
            parse_xml(f'<w:numPr {ns}><w:ilvl w:val="0"/><w:numId w:val="61"/></w:numPr>')
        )
    d.save(tmp_path / "styled-steps.docx")
    assert load_document(tmp_path / "styled-steps.docx").text == "1. Open the lid\n1. Pour the water\n"
