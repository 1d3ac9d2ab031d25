"""Comparing two chunkings shows where each one cuts the same document."""

import pytest

from chunktui.engine import Document, Span, build_chunkset, chunk_document
from chunktui.engine.analysis.compare import CompareError, boundaries_of, compare
from chunktui.engine.analysis.quality import assess

TEXT = "".join(f"line {i} of a plain text file.\n" for i in range(40))


def test_boundaries_only_in_a_only_in_b_and_in_both():
    doc = Document.from_text(TEXT, kind="prose")
    a = chunk_document(doc, "lines", {"size": 10, "overlap": 0})
    b = chunk_document(doc, "lines", {"size": 20, "overlap": 0})
    c = compare(a, b)
    at = lambda line: doc.line_start(line)
    assert c.both == [at(21)]
    assert c.only_a == [at(11), at(31)]
    assert c.only_b == []
    assert [x.line for x in c.boundaries] == [11, 21, 31]
    assert c.a.stats.count == 4 and c.b.stats.count == 2
    assert "1 in both, 2 only in A, 0 only in B" in c.summary()


def test_overlap_moves_boundaries_and_each_side_is_scored():
    doc = Document.from_text(TEXT, kind="prose")
    a = chunk_document(doc, "lines", {"size": 10, "overlap": 0})
    b = chunk_document(doc, "lines", {"size": 10, "overlap": 2})
    c = compare(b, a)
    # the overlap moves each chunk's start two lines back; its end stays at the core's end
    assert c.only_a == [doc.line_start(line) for line in (9, 19, 29)] and c.only_b == []
    assert set(c.both) == boundaries_of(a)
    assert c.a.quality.score == assess(b).score and c.b.quality.score == assess(a).score
    assert c.a.name.startswith("lines") and "overlap_lines=2" in c.a.name


def test_different_documents_are_refused():
    one = Document.from_text("abc def\n", kind="prose")
    two = Document.from_text("xyz uvw\n", kind="prose")
    a = build_chunkset(one, [Span(0, 8)], strategy="lines", params={}, tokenizer="chars")
    b = build_chunkset(two, [Span(0, 8)], strategy="lines", params={}, tokenizer="chars")
    with pytest.raises(CompareError):
        compare(a, b)


def test_a_cut_at_a_separator_and_one_at_the_heading_after_it_are_the_same_cut():
    """recursive starts at the blank line before a heading, markdown at the heading: the summary
    said '0 in both' while the document marked the line AB."""
    text = "".join(f"## Part {i}\n\nSome words about part {i}, enough to make a chunk of them.\n\n" for i in range(6))
    doc = Document.from_text(text, path="parts.md")
    heading = [doc.line_start(line) for line in range(1, doc.line_count + 1) if doc.text[doc.line_start(line)] == "#"]
    a = build_chunkset(
        doc,
        [Span(s, e) for s, e in zip([0] + [h - 1 for h in heading[1:]], [h - 1 for h in heading[1:]] + [len(text)])],
        strategy="recursive",
        params={},
        tokenizer="chars",
    )  # cuts at the "\n" before each heading
    b = build_chunkset(
        doc,
        [Span(s, e) for s, e in zip(heading, heading[1:] + [len(text)])],
        strategy="markdown",
        params={},
        tokenizer="chars",
    )  # cuts at each heading
    c = compare(a, b)
    assert c.cuts("both") == 5 and c.cuts("a") == 0 and c.cuts("b") == 0
    assert "5 in both, 0 only in A, 0 only in B" in c.summary()


def test_cuts_far_apart_on_one_long_line_are_not_the_same_cut():
    """A paragraph is often one line (markdown, PDF text): cuts hundreds of characters apart on it
    were counted as shared."""
    doc = Document.from_text("word " * 2000, kind="prose")
    a = chunk_document(doc, "fixed", {"size": 1000, "unit": "chars"})
    b = chunk_document(doc, "fixed", {"size": 1700, "unit": "chars"})
    c = compare(a, b)
    assert c.cuts("a") > 0 and c.cuts("b") > 0
