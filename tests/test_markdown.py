"""markdown (cgft MarkdownChunker): header paths, fused short sections, split long ones, whole code fences."""

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, ParamError, chunk_document, load_document
from chunktui.engine.strategies.markdown import scan_markdown

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"


def run(text: str, **params):
    cs = chunk_document(Document(text=text, kind="markdown"), "markdown", params)
    for c in cs.chunks:
        assert c.text == text[c.start : c.end]
    assert not cs.gaps
    return cs


def section(title: str, total: int) -> str:
    """A `## title` section of exactly `total` characters."""
    head = f"## {title}\n\n"
    return head + "x" * (total - len(head) - 1) + "\n"


def test_small_sections_fuse_under_the_first_heading():
    text = "# Title\n\nintro\n\n## A\n\nshort a\n\n## B\n\nshort b\n"
    (chunk,) = run(text).chunks
    assert (chunk.start, chunk.end) == (0, len(text))
    assert chunk.metadata["header_path"] == ["Title"]
    assert chunk.metadata["fused_headings"] == ["# Title", "## A", "## B"]
    assert (chunk.boundary_type, chunk.boundary_label) == ("heading", "# Title")


def test_fusing_stops_at_max_char():
    text = "".join(section(f"S{i}", 60) for i in range(1, 5))
    cs = run(text, min_char=100, max_char=130, chunk_overlap=0)
    assert [(c.start, c.end) for c in cs.chunks] == [(0, 120), (120, 240)]
    assert [c.metadata["fused_headings"] for c in cs.chunks] == [["## S1", "## S2"], ["## S3", "## S4"]]


def test_long_section_splits_at_a_paragraph_with_word_aligned_overlap():
    text = "# T\n\naaaa bbbb cccc dddd eeee ffff gggg\n\nhhhh iiii jjjj kkkk llll mmmm nnnn\n\noooo pppp\n"
    first, second = run(text, min_char=0, max_char=60, chunk_overlap=15).chunks
    cut = text.index("hhhh")
    assert (first.start, first.end) == (0, cut)  # the paragraph break, not the 60-char limit
    assert (second.start, second.end) == (text.index("ffff"), len(text))  # first word within 15 chars of the cut
    assert second.overlap_prev_chars == cut - text.index("ffff") == 11
    assert second.boundary_type == "paragraph"
    assert second.metadata["header_path"] == ["T"] and second.metadata["part"] == 2


def test_split_falls_back_to_lines_then_words_then_chars():
    words = "# W\n" + " ".join(["word"] * 40) + "\n"
    cs = run(words, min_char=0, max_char=50, chunk_overlap=0)
    assert all(c.chars <= 50 for c in cs.chunks)
    assert all(words[c.start - 1] in " \n" for c in cs.chunks[1:])  # every piece starts at a word
    lines = "# L\n" + "abcdefghijklmnopqrs\n" * 6  # 4 + 6 * 20 chars; cuts are sought in the last half of 50
    cs = run(lines, min_char=0, max_char=50, chunk_overlap=0)
    assert [(c.start, c.end) for c in cs.chunks] == [(0, 44), (44, 84), (84, 124)]
    assert [c.boundary_type for c in cs.chunks] == ["heading", "line", "line"]
    blob = "# B\n" + "z" * 130
    cs = run(blob, min_char=0, max_char=50, chunk_overlap=10)
    assert [(c.start, c.end) for c in cs.chunks] == [(0, 50), (50, 100), (100, 134)]
    assert [c.boundary_type for c in cs.chunks] == ["heading", "char", "char"]
    assert all(c.overlap_prev_chars == 0 for c in cs.chunks[1:])  # no word start to overlap from


FENCE = "```python\n" + "".join(f"value_{i} = {i}  # set\n" for i in range(5)) + "```\n"


def test_code_fence_is_kept_whole_when_it_fits():
    text = "# Code\n\n" + "Some words before the block here.\n\n" + FENCE + "\nAnd a closing paragraph after it.\n"
    fence_start, fence_end = text.index("```python"), text.index("```\n", text.index("```python") + 3) + 4
    cs = run(text, min_char=0, max_char=len(FENCE) + 20, chunk_overlap=30)
    assert len(cs.chunks) > 1
    holder = [c for c in cs.chunks if c.start <= fence_start and c.end >= fence_end]
    assert holder, "the fence is inside one chunk"
    for c in cs.chunks:
        assert not fence_start < c.start < fence_end and not fence_start < c.end < fence_end
        assert "cut_code_block" not in c.metadata


def test_fence_larger_than_max_char_is_cut_at_lines_and_flagged():
    block = "```\n" + "".join(f"line {i:02d} of code\n" for i in range(20)) + "```\n"
    text = "# Big\n\n" + block
    cs = run(text, min_char=0, max_char=120, chunk_overlap=0)
    assert all(c.chars <= 120 for c in cs.chunks)
    inside = [c for c in cs.chunks if c.metadata.get("cut_code_block")]
    assert len(inside) >= 3 and not any(c.metadata.get("oversized") for c in cs.chunks)
    assert all(text[c.end - 1] == "\n" for c in cs.chunks)  # cut at line boundaries


def test_header_paths_setext_and_hash_comments_in_fences():
    text = (
        "Harbor guide\n============\n\nintro\n\nInstall\n-------\n\ntext\n\n### From source\n\n"
        "```sh\n# not a heading\nmake\n```\n\n#### Details\n\nmore\n\n## Usage\n\nuse it\n"
    )
    cs = run(text, min_char=0)
    assert [c.metadata["header_path"] for c in cs.chunks] == [
        ["Harbor guide"],
        ["Harbor guide", "Install"],
        ["Harbor guide", "Install", "From source"],
        ["Harbor guide", "Usage"],
    ]
    assert [c.boundary_label for c in cs.chunks] == ["# Harbor guide", "## Install", "### From source", "## Usage"]
    assert "#### Details" in cs.chunks[2].text  # H4 does not split


RELEASE_NOTES = (
    "# Release process\n\nHow a release is cut, from the freeze to the announcement.\n\n"
    "## Notes\n\n### Freeze\n\nThe branch is frozen a week before the release; only fixes "
    "for regressions land after that.\n\n### Announcement\n\nThe announcement goes out once "
    "the artifacts are signed and mirrored.\n"
)


def test_a_heading_only_section_goes_with_its_first_subsection_even_at_min_char_0():
    cs = run(RELEASE_NOTES, min_char=0)
    assert [c.boundary_label for c in cs.chunks] == ["# Release process", "## Notes", "### Announcement"]
    notes = cs.chunks[1]
    assert notes.text.startswith("## Notes\n\n### Freeze\n\nThe branch is frozen")
    assert notes.metadata["fused_headings"] == ["## Notes", "### Freeze"]
    assert notes.metadata["header_path"] == ["Release process", "Notes"]
    assert cs.chunks[2].metadata["header_path"] == ["Release process", "Notes", "Announcement"]


def test_a_heading_only_section_opens_the_first_piece_of_a_long_subsection():
    setext = RELEASE_NOTES.replace("## Notes\n", "Notes\n-----\n")
    for text, heading in ((RELEASE_NOTES, "## Notes\n"), (setext, "Notes\n-----\n")):
        cs = run(text, min_char=0, max_char=60, chunk_overlap=10)
        first = next(c for c in cs.chunks if "Notes" in c.boundary_label)
        assert first.start == text.index(heading) and first.text != heading
        assert "### Freeze" in first.text and first.metadata["part"] == 1
        assert first.metadata["fused_headings"] == ["## Notes", "### Freeze"]


def test_atx_heading_forms_and_fence_closing_rules():
    text = (
        "# Closed ##\r\n#NoSpace\n####### seven\n## a #b #\n### ##\n"
        "````md\n# inside\n```\n# still inside\n`````  \n## After\n"
        "``` not`a fence\n# Last #\n"
    )
    scan = scan_markdown(Document(text=text, kind="markdown"))
    assert scan.headings == [(1, 1, "Closed"), (4, 2, "a #b"), (5, 3, "##"), (11, 2, "After"), (13, 1, "Last")]
    assert scan.fences == [(6, 10)]  # a shorter run does not close a fence; trailing spaces may follow
    assert [i for i in range(1, scan.line_count + 1) if scan.in_fence[i]] == [6, 7, 8, 9, 10]


def test_underline_right_after_front_matter_is_not_a_heading():
    scan = scan_markdown(Document(text="---\ntitle: x\n...\n---\ntext\n", kind="markdown"))
    assert scan.headings == [] and scan.in_fence[1:4] == b"\x01\x01\x01"


def test_front_matter_is_not_a_setext_heading():
    text = "---\ntitle: Notes\n---\n\n# Real\n\nbody\n"
    cs = run(text, min_char=0)
    assert [c.metadata["header_path"] for c in cs.chunks] == [[], ["Real"]]
    assert cs.chunks[0].boundary_type == "start"


def test_repeated_sections_and_crlf_keep_exact_offsets():
    text = "## Same\r\n\r\nbody\r\n" * 3
    cs = run(text, min_char=0)
    assert [c.start for c in cs.chunks] == [0, 17, 34]
    assert all(c.text == "## Same\r\n\r\nbody\r\n" for c in cs.chunks)


def test_overlap_not_below_max_char_is_refused():
    with pytest.raises(ParamError) as err:
        chunk_document(Document.from_text("# a\n"), "markdown", {"max_char": 100, "chunk_overlap": 100})
    assert err.value.name == "chunk_overlap"


def test_min_char_above_max_char_fuses_whatever_fits():
    """Shrinking max_char (the app's `[` key, a sweep) below the default min_char must keep working."""
    text = "".join(f"## S{i}\n\n" + "word " * 8 + "\n\n" for i in range(6))
    cs = chunk_document(
        Document.from_text(text, kind="markdown"), "markdown", {"min_char": 1024, "max_char": 120, "chunk_overlap": 10}
    )
    assert all(c.chars <= 120 for c in cs.chunks)
    assert any(len(c.metadata.get("fused_headings", [])) > 1 for c in cs.chunks)


@pytest.mark.parametrize("params", [{}, {"min_char": 200, "max_char": 600, "chunk_overlap": 60}])
def test_guide_md(params):
    doc = load_document(SAMPLES / "guide.md")
    cs = chunk_document(doc, "markdown", params)
    max_char = params.get("max_char", 2048)
    scan = scan_markdown(doc)
    fences = [(doc.line_start(a), doc.line_end(b)) for a, b in scan.fences]
    assert not cs.gaps and len(cs.chunks) > 1
    for c in cs.chunks:
        assert c.chars <= max_char
        if not c.metadata.get("cut_code_block"):
            assert not any(a < c.start < b or a < c.end < b for a, b in fences)
        if c.boundary_type == "heading":
            title = doc.text[c.start : doc.line_end(c.start_line)].lstrip("#").strip()
            assert c.metadata["header_path"][-1] == title
        if c.metadata.get("part", 1) > 1:
            assert 0 <= c.overlap_prev_chars <= params.get("chunk_overlap", 128)
    manifest = next(c for c in cs.chunks if c.boundary_label == "## The manifest")
    assert manifest.metadata["header_path"] == ["Harbor User Guide", "The manifest"]


FRAGMENTS = [
    "word ",
    "words and more words ",
    "\n",
    "\n\n",
    "\r\n",
    "# Title\n",
    "## Sub\n",
    "### Deep\n",
    "Setext\n===\n",
    "```\n# no heading\ncode line\n```\n",
    "~~~\nx\n~~~\n",
    "- item\n",
    "é🎉",
    "\t",
]


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    text=st.lists(st.sampled_from(FRAGMENTS), max_size=120).map("".join),
    max_char=st.integers(8, 300),
    overlap=st.integers(0, 60),
    min_char=st.integers(0, 300),
)
def test_fences_whole_overlap_bounded_and_sizes_fit(text, max_char, overlap, min_char):
    assume(overlap < max_char and min_char <= max_char)
    cs = run(text, min_char=min_char, max_char=max_char, chunk_overlap=overlap)
    doc = cs.document
    scan = scan_markdown(doc)
    kept = [(doc.line_start(a), doc.line_end(b)) for a, b in scan.fences]
    kept = [(a, b) for a, b in kept if b - a <= max_char]
    for c in cs.chunks:
        assert c.chars <= max_char
        assert not any(a < c.start < b or a < c.end < b for a, b in kept)
    for a, b in zip(cs.chunks, cs.chunks[1:]):
        if b.start < a.end:
            assert b.metadata.get("part", 1) > 1 and a.end - b.start <= overlap
        else:
            assert b.start == a.end


@pytest.mark.parametrize("strategy", ["markdown", "prose"])
def test_header_paths_go_down_to_the_h4_a_chunk_starts_under(strategy):
    """node_fs_filehandle.md: Node's doc/api/fs.md (Debian's nodejs-doc), its title and lines 124-403
    (`## Promises API` to `filehandle.read(...)`). Its `### Class: FileHandle` is one long section of
    `####` methods; the pieces were all labelled `Class: FileHandle`. Each chunk's path now ends
    with the last heading, of any level, at or before the chunk's own text (after its overlap)."""
    import re

    doc = load_document(Path(__file__).parent / "fixtures" / "node_fs_filehandle.md")
    heads = [(m.start(), m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", doc.text, re.M)]
    # markdown at cgft's sizes, which the report was made with (smaller pieces may share an H4)
    params = {"max_chars": 2048, "min_chars": 1024} if strategy == "markdown" else {}
    chunks = chunk_document(doc, strategy, params).chunks
    paths = [c.metadata["header_path"] for c in chunks]
    for c, path in zip(chunks, paths):
        core = c.start + c.overlap_prev_chars
        assert path[-1] == [title for at, title in heads if at <= core][-1]
    assert sum(len(p) > 3 for p in paths) >= 4 and len(set(map(tuple, paths))) == len(paths)
