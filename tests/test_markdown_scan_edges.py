"""markdown scan at the places its one-regex pass treats apart: the first line, and the line right after front matter."""

from chunktui.engine import Document, chunk_document
from chunktui.engine.strategies.markdown import scan_markdown


def scan(text: str):
    return scan_markdown(Document(text=text, kind="markdown"))


def test_heading_and_fence_right_after_front_matter():
    s = scan("---\ntitle: x\n---\n# Right after\n```\n# in code\n```\ntext\n")
    assert s.headings == [(4, 1, "Right after")]
    assert s.fences == [(5, 7)]


def test_fence_on_the_line_after_front_matter_hides_its_headings():
    s = scan("---\na: 1\n---\n~~~\n## not a heading\n~~~\n## Real\n")
    assert s.fences == [(4, 6)] and s.headings == [(7, 2, "Real")]


def test_first_line_heading_fence_and_setext():
    assert scan("# Top\nbody\n").headings == [(1, 1, "Top")]
    assert scan("```\n# code\n```\n# After\n").headings == [(4, 1, "After")]
    assert scan("Title\n=====\n").headings == [(1, 1, "Title")]
    assert scan("   ## Indented\n").headings == [(1, 2, "Indented")]


def test_split_pieces_tile_a_section_and_say_where_they_start():
    """Pieces of a long section: parts numbered in order, the first one keeps the heading."""
    text = "# Long\n\n" + "".join(f"Paragraph {i} has a few words in it.\n\n" for i in range(40))
    cs = chunk_document(
        Document.from_text(text, kind="markdown"),
        "markdown",
        {"max_char": 200, "min_char": 0, "chunk_overlap": 0},
        tokenizer="chars",
    )
    n = len(cs.chunks)
    assert n > 5
    assert [c.metadata["part"] for c in cs.chunks] == list(range(1, n + 1))
    assert all(c.metadata["parts"] == n and c.metadata["header_path"] == ["Long"] for c in cs.chunks)
    assert [c.boundary_label for c in cs.chunks] == ["# Long"] + [f"# Long (part {k}/{n})" for k in range(2, n + 1)]
    assert [c.boundary_type for c in cs.chunks] == ["heading"] + ["paragraph"] * (n - 1)
    assert [(a.end, b.start) for a, b in zip(cs.chunks, cs.chunks[1:])] == [(a.end, a.end) for a in cs.chunks[:-1]]
    assert cs.chunks[-1].end == len(text)
