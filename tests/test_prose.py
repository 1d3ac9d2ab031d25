"""`prose`: header-first chunks in a token range, whole paragraphs, boilerplate as declared gaps."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from chunktui.engine import Document, chunk_document, get_counter, load_document
from chunktui.engine.core.tokens import DEFAULT_BUDGET

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"


def tiles(cs):
    """Chunks and gaps together cover the text exactly once, in order."""
    pieces = sorted([(c.start, c.end) for c in cs.chunks] + [(g.start, g.end) for g in cs.gaps])
    assert pieces[0][0] == 0 and pieces[-1][1] == len(cs.document.text)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
    assert all(cs.document.text[c.start : c.end] == c.text for c in cs.chunks)


def at_paragraph_boundary(text: str, offset: int) -> bool:
    return offset == 0 or text[:offset].endswith("\n\n") or (text[:offset].endswith("\n") and text[offset] == "#")


def outside_fences(text: str, offset: int) -> bool:
    return len(re.findall(r"^```", text[:offset], re.M)) % 2 == 0


def test_guide_defaults_cut_at_headers_and_leave_out_the_table_of_contents():
    doc = load_document(SAMPLES / "guide.md")
    cs = chunk_document(doc, "prose")
    tiles(cs)
    (toc,) = cs.gaps
    assert toc.reason == "boilerplate: table of contents"
    toc_text = doc.text[toc.start : toc.end]
    assert toc_text.startswith("## Contents\n") and "- [Troubleshooting](#troubleshooting)" in toc_text
    assert all(c.tokens <= DEFAULT_BUDGET for c in cs.chunks)
    assert all(c.text.startswith("#") for c in cs.chunks)
    assert cs.chunks[-1].metadata["header_path"] == ["Harbor User Guide", "Command reference"]


def test_keep_boilerplate_keeps_everything():
    cs = chunk_document(load_document(SAMPLES / "guide.md"), "prose", {"keep_boilerplate": True})
    tiles(cs)
    assert cs.gaps == []
    assert any("## Contents" in c.text for c in cs.chunks)


@pytest.mark.parametrize("name", ["guide.md", "essay.txt", "notes.md"])
def test_smaller_range_cuts_only_between_paragraphs(name):
    doc = load_document(SAMPLES / name)
    cs = chunk_document(doc, "prose", {"min_tokens": 150, "max_tokens": 400})
    tiles(cs)
    assert len(cs.chunks) > 1 or name == "notes.md"
    for c in cs.chunks:
        assert c.tokens <= 400
        if not c.metadata.get("split_paragraph"):
            assert at_paragraph_boundary(doc.text, c.start) or c.start == cs.gaps[0].end
            assert outside_fences(doc.text, c.start)


def test_a_chunk_below_min_tokens_ends_only_where_the_next_paragraph_would_overflow():
    doc = load_document(SAMPLES / "guide.md")
    cs = chunk_document(doc, "prose", {"min_tokens": 400, "max_tokens": 450})
    tiles(cs)
    counter = get_counter("cl100k_base")
    short = [(p, n) for p, n in zip(cs.chunks, cs.chunks[1:]) if p.tokens < 400 and p.end == n.start]
    assert short
    for prev, nxt in short:
        heading, _, rest = nxt.text.partition("\n\n")
        first_paragraph = heading + "\n\n" + rest.split("\n\n", 1)[0] if nxt.text.startswith("#") else heading
        assert counter.count(prev.text + first_paragraph) > 450


@pytest.mark.parametrize("max_tokens", [20, 60, 100, 3000])
def test_no_heading_is_left_alone_in_a_chunk(max_tokens):
    cs = chunk_document(load_document(SAMPLES / "guide.md"), "prose", {"min_tokens": 10, "max_tokens": max_tokens})
    tiles(cs)
    orphans = [c.text for c in cs.chunks if re.fullmatch(r"#+ [^\n]*\s*", c.text)]
    assert orphans == []
    assert all(c.tokens <= max_tokens for c in cs.chunks)


def test_an_oversized_paragraph_is_cut_at_sentences():
    doc = load_document(SAMPLES / "essay.txt")
    cs = chunk_document(doc, "prose", {"min_tokens": 10, "max_tokens": 60})
    tiles(cs)
    assert "".join(c.text for c in cs.chunks) == doc.text  # the repeated sentence is no trouble
    split = [c for c in cs.chunks if c.boundary_type == "sentence"]
    assert split
    for c in cs.chunks:
        assert c.tokens <= 60
        assert "oversized" not in c.metadata
    for prev, nxt in zip(cs.chunks, cs.chunks[1:]):
        if nxt.boundary_type == "sentence":
            assert re.search(r"[.!?…][\"'”’)\]]*\s*$", prev.text)


def test_a_word_longer_than_max_is_cut_to_fit():
    doc = Document.from_text("short intro.\n\n" + "x" * 500 + "\n", path="long.txt")
    cs = chunk_document(doc, "prose", {"min_tokens": 1, "max_tokens": 20})
    tiles(cs)
    assert all(c.tokens <= 20 for c in cs.chunks)
    assert {c.boundary_type for c in cs.chunks} >= {"char"}


def test_boilerplate_fixture_reasons_and_no_false_positives():
    doc = load_document(FIXTURES / "boilerplate.md")
    cs = chunk_document(doc, "prose", {"min_tokens": 1, "max_tokens": 100})
    tiles(cs)
    found = [(g.reason, doc.text[g.start : g.end].split("\n", 1)[0]) for g in cs.gaps]
    assert found == [
        ("boilerplate: license header", "<!--"),
        ("boilerplate: navigation", "Home > Docs > Operations > Backups"),
        ("boilerplate: table of contents", "Table of Contents"),
        ("boilerplate: navigation", "[Back to top](#backups)"),
        ("boilerplate: navigation", "« Previous: Monitoring | Home | Next: Disaster recovery »"),
    ]
    kept = "".join(c.text for c in cs.chunks)
    for line in (
        "| Next | Restore     |",
        "- [Restic manual](https://restic.readthedocs.io/)",
        "Copyright law says nothing about it.",
    ):
        assert line in kept
    assert cs.notes == ["prose: 5 boilerplate block(s) left out"]


def test_min_above_max_packs_whatever_fits():
    """As in markdown: shrinking max_tokens (the app's `[` key, a sweep) below min_tokens keeps
    working; headers no longer cut early and paragraphs are packed up to the maximum."""
    text = "".join(f"## Part {i}\n\n" + "word " * 12 + "\n\n" for i in range(8))
    cs = chunk_document(Document.from_text(text, kind="markdown"), "prose", {"min_tokens": 100, "max_tokens": 40})
    assert len(cs.chunks) > 1
    assert all(c.tokens <= 40 for c in cs.chunks)
    assert any(c.text.count("## Part") > 1 for c in cs.chunks)


words = st.sampled_from(["alpha", "beta", "Gamma.", "delta!", "épée", "🚢", "x" * 40, "end?", "\t"])
paragraph = st.lists(words, min_size=1, max_size=40).map(" ".join)
block = st.one_of(paragraph, st.builds(lambda lvl, t: "#" * lvl + " " + t, st.integers(1, 3), paragraph))


@settings(max_examples=40, deadline=None)
@given(st.lists(block, max_size=12), st.integers(1, 40), st.integers(1, 80), st.sampled_from(["\n", "\r\n"]))
def test_generated_prose_is_covered_within_max(blocks, lo, hi, nl):
    lo = min(lo, hi)
    doc = Document.from_text((nl * 2).join(blocks), path="gen.md")
    cs = chunk_document(doc, "prose", {"min_tokens": lo, "max_tokens": hi})
    assert cs.gaps == []
    if doc.text:
        tiles(cs)
    assert all(c.tokens <= hi or (c.metadata.get("oversized") and c.chars == 1) for c in cs.chunks)


@pytest.mark.parametrize("line", ["> \f >", "<<\f>>", "|\v|", "Home \x1c > Next", "\u2028 · \u2029"])
def test_a_line_of_separators_and_odd_whitespace_is_chunked_not_a_crash(line):
    doc = Document.from_text(line + "\n", path="x.md")
    cs = chunk_document(doc, "prose")
    tiles(cs)


nav_alphabet = st.sampled_from(list("<>|·•›»/-:*_[]()#^ \t\f\v\x1c\x85\u2028\u3000") + ["Home", "Next", "a"])


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.text(st.characters(blacklist_categories=("Cs",)), max_size=80),
        st.lists(nav_alphabet, max_size=12).map("".join),
    ),
    st.sampled_from(["", "Home | ", "» "]),
)
def test_boilerplate_detection_survives_any_text(line, prefix):
    doc = Document.from_text(prefix + line + "\n\n" + line + "\n", path="gen.md")
    cs = chunk_document(doc, "prose", {"min_tokens": 1, "max_tokens": 50})
    tiles(cs)


def test_one_huge_paragraph_fills_chunks_to_max_tokens():
    """Sized by exact counts, not by the per-word sum ("word " alone is two tokens)."""
    doc = Document.from_text("word " * 20_000 + "\n", path="big.txt")
    cs = chunk_document(doc, "prose", {"min_tokens": 100, "max_tokens": 300})
    tiles(cs)
    assert all(c.tokens <= 300 for c in cs.chunks)
    assert all(c.tokens >= 290 for c in cs.chunks[:-1])
    assert all(c.boundary_type == "word" for c in cs.chunks[1:])
    assert all(c.text.endswith(" ") for c in cs.chunks[:-1])  # cut between words
