"""PDF files read as their text layer: pages, outline headings, gaps for scans, one-line errors.

Fixtures (tests/fixtures/docs/, made by make_fixtures.py): eight pages of Debian's libtasn1
manual (pdfTeX, with its outline), the same pages encrypted (password s3cret; RC4-128 by pypdf,
AES-256 by qpdf), two pages of Debian's nettle manual (pdfTeX, running headers), and a generated
file with two-column pages, a page without a text layer and an outline entry, and a page of
Debian's shared-mime-info spec (pdfTeX) whose example listings have lines starting with `#`, and
LibreOffice's exports of a document with the chapter's name as running header and `Page N of M`
below, and of a two-column section whose text flows from one column into the other.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.cli import run
from chunktui.engine import chunk_document, load_document
from chunktui.engine.readers import NO_TEXT_LAYER
from chunktui.engine.readers.pdf import PAGE_SEPARATOR

DOCS = Path(__file__).parent / "fixtures" / "docs"
MANUAL = DOCS / "libtasn1-8pages.pdf"
LOCKED = DOCS / "libtasn1-encrypted.pdf"
COLUMNS = DOCS / "columns.pdf"
LISTING = DOCS / "mime-spec-listing.pdf"
NETTLE = DOCS / "nettle-2pages.pdf"


def assert_one_line_error(code, err, *needles):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# What the reader takes out of PDFium's page text (hyphenation marks, CR) and puts in (a `#` heading
# mark, a backslash before a line markdown would read as structure): the check below undoes these.
_DROPPED = str.maketrans({"\ufffe": None, "\x02": None, "\x00": None, "\r": None})
_HEADING = re.compile(r"^#{1,6} ")
_ESCAPE = re.compile(r"^( {0,3})\\")


def _flat(text):
    return " ".join(text.split())


def pdfium_pages(path):
    """Each page's text as PDFium gives it (read here, not by the reader), whitespace made single
    spaces, and the outline titles by page index."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    pages = []
    for index in range(len(pdf)):
        textpage = pdf[index].get_textpage()
        pages.append(_flat(textpage.get_text_range().translate(_DROPPED)))
        textpage.close()
    titles: dict[int, set[str]] = {}
    for item in pdf.get_toc(max_depth=6):
        dest = item.get_dest()
        if dest is not None and dest.get_index() is not None:
            titles.setdefault(dest.get_index(), set()).add(_flat(item.get_title() or ""))
    pdf.close()
    return pages, titles


def assert_pages_hold(path, doc, chunks):
    """Each chunk's text (its lines whole, a heading's mark and an escape's backslash taken off) is
    in the text PDFium gives for the pages page_start..page_end. A heading naming an outline entry
    of one of those pages is the entry's (the reader may have added it atop the page): the lines
    between such headings are checked each as a run, in order."""
    pages, titles = pdfium_pages(path)
    for c in chunks:
        first, last = c.metadata["page_start"], c.metadata["page_end"]
        assert 1 <= first <= last <= len(pages)
        held = " ".join(pages[first - 1 : last])
        entries = set().union(*(titles.get(index, set()) for index in range(first - 1, last)))
        start = doc.text.rfind("\n", 0, c.start) + 1
        end = doc.text.find("\n", max(c.start, c.end - 1))
        runs: list[list[str]] = [[]]
        for line in doc.text[start : len(doc.text) if end < 0 else end].split("\n"):
            if _HEADING.match(line):
                line = _HEADING.sub("", line)
                if _flat(line) in entries:
                    runs.append([])
                    continue
            runs[-1].append(_ESCAPE.sub(r"\1", line))
        for lines in runs:
            assert _flat(" ".join(lines)) in held, (first, last, c.text[-200:])


def test_manual_reads_as_markdown_with_outline_headings_and_pages():
    doc = load_document(MANUAL)
    assert doc.kind == "markdown" and doc.extractor.startswith("pypdfium2 ")
    assert doc.extraction.page_count == 8
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    # the outline's entries, at the lines that carry their titles (not the table of contents' dotted lines)
    assert headings[:4] == ["# 1 Introduction", "# 2 ASN.1 structure handling", "## 2.1 ASN.1 syntax", "## 2.2 Naming"]
    assert "manipulation." in doc.text and "\ufffe" not in doc.text and "\r" not in doc.text
    cs = chunk_document(doc, "markdown", {})
    paths = {tuple(c.metadata["header_path"]) for c in cs.chunks}
    # heading paths from the outline (a heading-only section joins the next, so 2.1 may be fused)
    assert any(p[:1] == ("2 ASN.1 structure handling",) and len(p) == 2 for p in paths), paths


@pytest.mark.parametrize("path", [MANUAL, NETTLE, DOCS / "lo-running-headers.pdf"], ids=lambda p: p.stem)
@pytest.mark.parametrize("strategy", ["markdown", "prose", "recursive", "fixed", "lines", "semantic", "adaptive"])
def test_each_chunk_names_every_page_its_text_comes_from(strategy, path):
    """Checked against PDFium's own page texts: a page's running header, moved to the end of the page
    before, counted to that page, so a chunk ending with `Chapter 7: Reference 73` (nettle's page 2
    here) named page 1 only (markdown: 1 of 7 chunks on nettle's pages, 5 of 10 on libtasn1's, 2 of
    8 on LibreOffice's; 63 of 298 on the whole nettle manual)."""
    doc = load_document(path)
    cs = chunk_document(doc, strategy, {})
    assert cs.chunks
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert c.end_byte - c.start_byte == len(c.text.encode("utf-8"))  # bytes of the extracted text
    assert_pages_hold(path, doc, cs.chunks)


@pytest.mark.parametrize("strategy", ["markdown", "recursive"])
def test_path_headers_name_each_chunks_pages_and_headings(strategy):
    """A PDF's chunks carry page_start/page_end, and `--context-header path` looked for `page`:
    no chunk's header named its pages, and recursive's named no heading either."""
    cs = chunk_document(load_document(MANUAL), strategy, {}, context_header="path")
    heads = [c.embed_text[: len(c.embed_text) - len(c.text)] for c in cs.chunks]
    for c, head in zip(cs.chunks, heads):
        first, last = c.metadata["page_start"], c.metadata["page_end"]
        assert head.endswith(f" > p. {first}\n\n" if first == last else f" > pp. {first}-{last}\n\n"), head
    assert heads[0].startswith("libtasn1-8pages.pdf > pp. 1-")  # the title pages, before any heading
    assert any(h.startswith("libtasn1-8pages.pdf > 2 ASN.1 structure handling > 2.") for h in heads), heads


def test_pages_without_text_layer_are_gaps_and_counted_in_a_warning():
    doc = load_document(COLUMNS)
    cs = chunk_document(doc, "recursive", {"size": 200, "overlap": 20})
    holes = [g for g in cs.gaps if g.reason == NO_TEXT_LAYER]
    assert len(holes) == 1 and "[page 3: no text layer]" in doc.text[holes[0].start : holes[0].end]
    assert not any("no text layer" in c.text for c in cs.chunks)
    assert any("1 of 4 pages have no text layer (OCR is not done)" in w for w in cs.warnings)
    assert {g.reason for g in cs.gaps} == {NO_TEXT_LAYER}  # nothing else is left out
    assert cs.chunks[-1].metadata["page_start"] == 4


def test_two_columns_read_column_by_column():
    text = load_document(COLUMNS).text
    first_page = text.split(PAGE_SEPARATOR)[0].splitlines()
    assert first_page[:2] == ["Page 1 left column line 1.", "Page 1 left column line 2."]
    assert first_page[29:31] == ["Page 1 left column line 30.", "Page 1 right column line 1."]


@pytest.mark.parametrize("locked", [LOCKED, DOCS / "libtasn1-aes256.pdf"], ids=["rc4-128", "aes-256"])
def test_encrypted_pdf_needs_its_password(locked):
    """RC4-128 (pypdf) and AES-256 (qpdf, the R6 handler of PDF 2.0): the same pages either way."""
    code, _, err = run("chunk", locked, "-n")
    assert_one_line_error(code, err, str(locked), "encrypted PDF: give its password with --password")
    code, _, err = run("chunk", locked, "-n", "--password", "wrong")
    assert_one_line_error(code, err, "wrong password")
    code, out, _ = run("chunk", locked, "-n", "--password", "s3cret")
    assert code == 0 and "would give" in out
    assert load_document(locked, reader_options={"password": "s3cret"}).text == load_document(MANUAL).text


def test_truncated_pdf_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "report.pdf"
    bad.write_bytes(MANUAL.read_bytes()[:40_000])
    code, _, err = run("chunk", bad, "-o", tmp_path / "out")
    assert_one_line_error(code, err, str(bad), "not a readable PDF")
    assert not (tmp_path / "out").exists()


def test_the_app_refuses_a_truncated_pdf_at_the_prompt(tmp_path, monkeypatch):
    """As it does an encrypted one: one line and exit 2 before the screen takes over, not a file
    picker with a "Cannot open" notice."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    bad = tmp_path / "report.pdf"
    bad.write_bytes(MANUAL.read_bytes()[:40_000])
    for args in ((bad,), ("open", bad)):
        code, out, err = run(*args)
        assert_one_line_error(code, err, str(bad), "not a readable PDF, damaged or truncated")
        assert out == ""
    assert not started
    code, _, err = run("open", MANUAL)
    assert code == 0 and len(started) == 1, err


def test_labels_are_one_line_on_a_manuals_table_of_contents():
    """The page of pdfTeX's table of contents opens with its roman page number on a line of its
    own: prose labelled the chunk `i\\nTable of Contents\\n1 Introduction . . .`, which broke the
    app's table row and gutter. (The number, a running header, now ends the page before.)"""
    labels = [c.boundary_label for c in chunk_document(load_document(MANUAL), "prose", {}).chunks]
    assert "Table of Contents 1 Introduction . . . . . . . . . . . . . ." in labels
    assert all(label.isprintable() for label in labels), labels


def blank_pdf(pages: int) -> bytes:
    """A PDF of `pages` empty US-letter pages, written out directly (pypdf's PdfWriter took 0.7-1 s
    of CPU for 10,000): the catalog, the page tree, the pages, and the cross-reference table of
    their byte offsets."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    kids = " ".join(f"{n} 0 R" for n in range(3, pages + 3))
    bodies = ["<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Count {pages} /Kids [{kids}] >>"]
    bodies += ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    for n, body in enumerate(bodies, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(bodies) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(bodies) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_ten_thousand_empty_pages_finish_as_gaps(tmp_path):
    path = tmp_path / "blank.pdf"
    path.write_bytes(blank_pdf(10_000))
    doc = load_document(path)
    assert doc.extraction.page_count == 10_000 and len(doc.extraction.no_text) == 10_000
    cs = chunk_document(doc, "recursive", {"size": 400, "overlap": 0})
    assert cs.chunks == [] and len(cs.gaps) == 10_000


def test_auto_reads_a_pdf_as_markdown_and_says_so():
    cs = chunk_document(load_document(MANUAL), "auto", {})
    assert cs.strategy == "prose"
    assert any("read as markdown" in n and "pypdfium2" in n for n in cs.notes)


def test_a_folder_scan_takes_pdf_files(tmp_path):
    shutil.copy(MANUAL, tmp_path / "manual.pdf")
    (tmp_path / "notes.md").write_text("# Notes\n\nSome words.\n")
    code, out, err = run("chunk", tmp_path, "-n")
    assert code == 0, err
    assert "2 files" in out


def _pdf(pages) -> bytes:
    """A PDF whose pages draw these lines in Helvetica (an empty list: a page without text)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        if not lines:
            continue
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(
            "".join(f"BT /F1 10 Tf 72 {740 - 14 * k} Td ({line}) Tj ET\n" for k, line in enumerate(lines)).encode(
                "latin-1"
            )
        )
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


LINE = st.text(st.sampled_from("abcdefghij XYZ.,;:!?-#0123456789éü"), min_size=0, max_size=50)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(LINE, max_size=12), min_size=1, max_size=5),
    st.sampled_from(["markdown", "prose", "recursive", "fixed", "lines"]),
    st.booleans(),
)
def test_pdf_extraction_holds_the_offset_contract(tmp_path_factory, pages, strategy, furnished):
    """Furnished, each page with text gets a running header above and its number below."""
    if furnished:
        pages = [["Field guide to chunking", *lines, str(k + 1)] if lines else lines for k, lines in enumerate(pages)]
    path = tmp_path_factory.mktemp("p") / "gen.pdf"
    path.write_bytes(_pdf(pages))
    doc = load_document(path)
    params = (
        {"size": 60, "overlap": 10}
        if strategy in ("recursive", "fixed")
        else {"size": 3, "overlap": 1}
        if strategy == "lines"
        else {}
    )
    cs = chunk_document(doc, strategy, params)
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert raw[c.start_byte : c.end_byte].decode("utf-8") == c.text
        assert "no text layer]" not in c.text
    assert_pages_hold(path, doc, cs.chunks)
    blank = sum(1 for lines in pages if not "".join(lines).strip())
    assert sum(g.reason == NO_TEXT_LAYER for g in cs.gaps) == blank
    for g in cs.gaps:  # a running header's gap is a chunk's place that nothing else covers
        assert not any(c.start < g.end and g.start < c.end for c in cs.chunks)
        if g.reason == "running header or footer":
            assert doc.text[g.start : g.end].strip()


def test_the_open_command_lets_a_pdf_past_its_binary_check(tmp_path):
    from chunktui.engine.readers.documents import check_text_file
    from chunktui.engine.core.errors import DocumentError

    check_text_file(MANUAL)  # a PDF is binary by nature: its reader judges it
    image = tmp_path / "scan.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(DocumentError, match="binary file"):
        check_text_file(image)


def test_a_pdf_written_by_libreoffice_has_its_outline_as_headings():
    """LibreOffice 7.4 exports the headings as the outline (see fixtures/docs/README.md)."""
    doc = load_document(DOCS / "lo-notes.pdf")
    assert doc.extraction.page_count == 1
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings == ["# Release notes", "## Changed defaults", "## Removed"]
    assert "1 The old files are read once and then renamed." in doc.text  # the footnote, at the page's foot
    cs = chunk_document(doc, "markdown", {"max_char": 120, "min_char": 0, "chunk_overlap": 0})
    assert {tuple(c.metadata["header_path"]) for c in cs.chunks} >= {("Release notes", "Changed defaults")}
    assert all(c.metadata["page_start"] == c.metadata["page_end"] == 1 for c in cs.chunks)


def test_a_sweep_in_worker_processes_reads_a_pdf_as_one_process_does(monkeypatch):
    """The workers get the extraction with the text: without it a page with no text layer was
    chunked as text (`[page 3: no text layer]` in a chunk) and every cell's counts and score
    differed from the same sweep in one process."""
    import chunktui.engine.analysis.sweep as sweep_module

    monkeypatch.setattr(sweep_module, "SMALL_WORK", 0)  # a pool even for this small document
    doc = load_document(COLUMNS)
    grid = (doc, ["recursive", "fixed", "lines"], [100, 200], [0])
    one, pool = (sweep_module.sweep(*grid, workers=n).cells for n in (1, 2))
    assert [c.to_dict() for c in pool] == [c.to_dict() for c in one]


def test_text_lines_that_look_like_markdown_headings_are_escaped():
    """The spec's example globs files start with `# This file was automatically generated`: as
    text they made two headings per listing, so chunks had header paths the PDF never had."""
    doc = load_document(LISTING)
    assert doc.extractor.endswith(", chunktui pdf rules 5")
    lines = doc.text.splitlines()
    assert [line for line in lines if line.startswith("#")] == ["# 2.4. The glob files"]  # the outline's entry
    assert lines.count("\\# This file was automatically generated by the") == 2
    cs = chunk_document(doc, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
    assert {tuple(c.metadata["header_path"]) for c in cs.chunks} == {(), ("2.4. The glob files",)}
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text and raw[c.start_byte : c.end_byte].decode("utf-8") == c.text
        assert c.metadata["page_start"] == c.metadata["page_end"] == 1


def test_setext_underlines_and_fences_in_page_text_are_escaped(tmp_path):
    path = tmp_path / "rules.pdf"
    path.write_bytes(_pdf([["Totals", "======", "~~~", "# not a heading", "-----", "end"]]))
    assert load_document(path).text == "Totals\n\\======\n\\~~~\n\\# not a heading\n\\-----\nend\n"


def running_lines(doc):
    return [doc.text[a:b] for a, b in doc.extraction.furniture]


def test_page_numbers_and_running_headers_of_a_debian_manual_open_no_chunk():
    """pdfTeX's Texinfo pages (Debian's libtasn1 manual) start with a lone page number on a
    chapter's first page and `Chapter 2: ASN.1 structure handling 3` on the others. They opened
    the page's text, so prose labelled a chunk `1` with the header path [] though it held
    `# 1 Introduction`, and others `Chapter 2: ...`. They stay in the text, ending the page before."""
    doc = load_document(MANUAL)
    cs = chunk_document(doc, "prose", {})
    intro = next(c for c in cs.chunks if "# 1 Introduction" in c.text)
    assert intro.boundary_label == "# 1 Introduction" and intro.metadata["header_path"] == ["1 Introduction"]
    assert intro.metadata["page_start"] == 4
    assert "\nChapter 2: ASN.1 structure handling 3\n\n• UTF8String;" in doc.text  # the page before's end
    running = running_lines(doc)
    assert running[:4] == ["i", "1", "2", "Chapter 2: ASN.1 structure handling 3"]
    assert all(line in doc.text for line in running)  # nothing is lost
    labels = [c.boundary_label for c in cs.chunks]
    assert not [label for label in labels if label in running or label.startswith("Chapter 2:")], labels
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
    assert_pages_hold(MANUAL, doc, cs.chunks)


LO_RUNNING = DOCS / "lo-running-headers.pdf"  # LibreOffice 7.4: the chapter's name on top, "Page N of 5" below


def test_a_running_header_naming_the_chapter_is_no_heading_and_no_label():
    """LibreOffice's header names the chapter (`Configuration` above the `Configuration` heading,
    `Logging` on the pages after it): the outline entry was marked on the running header, not on
    the heading, and prose labelled chunks `Logging`. A chunk holding nothing but running lines is
    a gap with that reason; every other chunk keeps the ones it holds."""
    doc = load_document(LO_RUNNING)
    assert doc.text.startswith("Configuration\n# Configuration\nConfiguration note 1.")
    assert [line for line in doc.text.splitlines() if line.startswith("#")] == [
        "# Configuration",
        "## Reloading",
        "# Logging",
    ]
    assert running_lines(doc)[1:] == [
        "Page 1 of 5\nConfiguration",
        "Page 2 of 5\nConfiguration",
        "Page 3 of 5\nLogging",
        "Page 4 of 5\nLogging",
        "Page 5 of 5",
    ]
    for strategy, params in (("prose", {"min_tokens": 50, "max_tokens": 150}), ("markdown", {})):
        cs = chunk_document(doc, strategy, params)
        labels = [c.boundary_label for c in cs.chunks]
        assert "Logging" not in labels and "Configuration" not in labels, labels
        assert not any(label.startswith("Page ") for label in labels), labels
        assert cs.chunks[0].metadata["header_path"] == ["Configuration"]
        left_out = [doc.text[g.start : g.end] for g in cs.gaps]
        assert {g.reason for g in cs.gaps} == {"running header or footer"} and "Configuration\n" in left_out
        for c in cs.chunks:
            assert doc.text[c.start : c.end] == c.text
        assert_pages_hold(LO_RUNNING, doc, cs.chunks)


def test_a_two_column_section_exported_by_libreoffice_reads_column_by_column():
    """LibreOffice 7.4's PDF of a two-column section between full-width lines (fixtures/docs/README.md):
    paragraph four starts at the foot of the left column and ends atop the right one. Read line by
    line across the page, each paragraph would be cut into pieces and interleaved with the other column."""
    import pypdfium2 as pdfium

    path = DOCS / "lo-two-columns.pdf"
    pdf = pdfium.PdfDocument(path)
    page = pdf[0].get_textpage()
    raw = page.get_text_range()
    left, right = (page.get_charbox(raw.index(words))[0] for words in ("Paragraph four begins", "four ends"))
    pdf.close()
    assert left < 100 < 200 < right  # the paragraph flows from the left column into the right one
    doc = load_document(path)
    flowing = " ".join(doc.text.split())
    names = ["one", "two", "three", "four", "five", "six", "seven"]
    places = []
    for n in names:
        paragraph = (
            f"Paragraph {n} begins here. The river park plan for stage {n} keeps the old towpath, adds a "
            f"footbridge at the weir and plants the east bank with alder and willow. Paragraph {n} ends here."
        )
        assert paragraph in flowing, n
        places.append(flowing.index(paragraph))
    assert places == sorted(places)
    assert flowing.index("above the two columns.") < places[0] and flowing.index("below the columns.") > places[-1]
    cs = chunk_document(doc, "markdown", {"max_char": 300, "min_char": 0, "chunk_overlap": 0})
    assert {tuple(c.metadata["header_path"]) for c in cs.chunks} == {("River park: the plan in two columns",)}


def test_a_pdf_printed_by_chromium_skia_reads_its_outline_pages_and_table():
    """Skia/PDF is the writer behind Chrome's "Save as PDF" and Google Docs' PDF download (the
    latter stamps `Skia/PDF m1xx Google Docs Renderer`): its text comes in drawing runs, not lines,
    and its outline is made from the page's h1-h3 (see fixtures/docs/README.md)."""
    doc = load_document(DOCS / "skia-notes.pdf")
    assert doc.extraction.page_count == 2
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings == [
        "# Team onboarding notes",
        "## Accounts",
        "## Building the project",
        "### Running the tests",
        "### Common problems",
        "## Who to ask",
    ]
    assert "Build and CI Ana #build" in doc.text  # a table row: its `#` is mid-line, not a heading
    cs = chunk_document(doc, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
    paths = {tuple(c.metadata["header_path"]) for c in cs.chunks}
    assert ("Team onboarding notes", "Building the project", "Running the tests") in paths
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
    assert_pages_hold(DOCS / "skia-notes.pdf", doc, cs.chunks)
    last = [c for c in cs.chunks if "When in doubt" in c.text]
    assert [(c.metadata["page_start"], tuple(c.metadata["header_path"])) for c in last] == [
        (2, ("Team onboarding notes", "Who to ask"))
    ]


def test_an_outline_title_typed_plain_marks_the_line_printed_with_curly_quotes():
    """Nettle's outline has `Nettle's RSA support` (straight quote), its page `7.7.1.1 Nettle’s RSA
    support` (curly): the title matched no line, so it was added atop page 2 as a heading of its own,
    and the real line, lower down, stayed body text in the section before."""
    doc = load_document(NETTLE)
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings == ["# 7.7.1 RSA", "## 7.7.1.1 Nettle’s RSA support"]
    assert doc.text.count("RSA support") == 1
    cs = chunk_document(doc, "markdown", {"max_char": 600, "min_char": 0, "chunk_overlap": 0})
    support = [c for c in cs.chunks if "Nettle represents RSA keys" in c.text]
    assert [c.metadata["header_path"] for c in support] == [["7.7.1 RSA", "7.7.1.1 Nettle’s RSA support"]]
    assert "x. The signature is computed" not in support[0].text  # the text above the heading is not under it
