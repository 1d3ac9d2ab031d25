"""markdown overlap: where the next piece of a split section starts when no word start is at hand."""

from chunktui.engine import Document, chunk_document


def chunks(text: str, **params):
    cs = chunk_document(Document.from_text(text, kind="markdown"), "markdown",
                        {"min_char": 0, **params}, tokenizer="chars")
    assert [c.text for c in cs.chunks] == [text[c.start:c.end] for c in cs.chunks]
    return cs.chunks


def test_a_run_without_spaces_overlaps_by_exactly_chunk_overlap():
    text = "# L\n" + ("x" * 39 + "\n") * 6
    pieces = chunks(text, max_char=100, chunk_overlap=20)
    assert [(c.start, c.end) for c in pieces] == [(0, 84), (64, 164), (144, 244)]
    assert [c.overlap_prev_chars for c in pieces] == [0, 20, 20]


def test_an_overlap_reaching_into_a_kept_fence_starts_after_it():
    fence = "```\n" + "code = 1\n" * 6 + "```\n"
    text = "# F\n\nintro words here\n\n" + fence + "\n" + " ".join(["after"] * 30) + "\n"
    fence_start = text.index(fence)
    fence_end = fence_start + len(fence)
    first, second, *rest = chunks(text, max_char=90, chunk_overlap=40)
    assert first.end == fence_end + 1  # the cut: after the blank line that follows the fence
    assert second.start == fence_end and second.overlap_prev_chars == 1
    assert all(not fence_start < c.start < fence_end for c in rest)


def test_an_overlap_never_starts_inside_a_crlf():
    text = "# C\r\n" + ("y" * 30 + "\r\n") * 8
    pieces = chunks(text, max_char=100, chunk_overlap=1)
    assert len(pieces) > 2
    assert all(c.overlap_prev_chars == 0 and text[c.start - 2:c.start] == "\r\n" for c in pieces[1:])


def test_long_runs_of_letters_or_spaces_overlap_by_chunk_overlap():
    """No line or word start within reach: each piece is cut at max_char and the next one starts
    chunk_overlap before (the search for a start stays within the overlap, so a long run costs
    no more than a short one)."""
    for filler in ("z", " "):
        text = "# X\n" + "a" + filler * 20_000 + "b\n"
        pieces = chunks(text, max_char=512, chunk_overlap=51)
        assert all(c.chars == 512 for c in pieces[:-1]) and pieces[-1].end == len(text)
        assert all(c.overlap_prev_chars == 51 for c in pieces[1:])
