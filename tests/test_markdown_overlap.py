"""markdown overlap: where the next piece of a split section starts when no word start is at hand."""

from chunktui.engine import Document, chunk_document


def chunks(text: str, **params):
    cs = chunk_document(
        Document.from_text(text, kind="markdown"), "markdown", {"min_char": 0, **params}, tokenizer="chars"
    )
    assert [c.text for c in cs.chunks] == [text[c.start : c.end] for c in cs.chunks]
    return cs.chunks


def test_no_word_start_within_chunk_overlap_means_no_overlap_never_a_mid_word_one():
    text = "# L\n" + ("x" * 39 + "\n") * 6
    pieces = chunks(text, max_char=100, chunk_overlap=20)
    assert [(c.start, c.end) for c in pieces] == [(0, 84), (84, 164), (164, 244)]
    assert [c.overlap_prev_chars for c in pieces] == [0, 0, 0]


# Release notes as Rust's RELEASES.md writes them: every item a link whose URL is longer than
# the overlap, so the characters `chunk_overlap` before a cut are mostly inside a URL.
RELEASES = "# Version 1.80.0 (2024-07-25)\n\n## Libraries\n\n" + "".join(
    f"- [Stabilize `core::{name}::{name}_{i}` for const contexts.]"
    f"(https://github.com/rust-lang/rust/pull/{121_000 + 37 * i}/)\n"
    for i, name in enumerate(["ptr", "slice", "num", "option", "cell", "mem", "iter", "fmt"] * 12)
)


def test_an_overlap_starts_at_a_word_start_even_inside_urls():
    pieces = chunks(RELEASES, max_char=500, chunk_overlap=50, min_char=100)
    overlapping = [c for c in pieces if c.overlap_prev_chars]
    assert len(pieces) > 15 and len(overlapping) > len(pieces) // 2
    for c in pieces[1:]:
        before, first = RELEASES[c.start - 1], RELEASES[c.start]
        assert not (before.isalnum() and first.isalnum()), RELEASES[c.start - 20 : c.start + 20]
        assert c.overlap_prev_chars <= 50
    inside_urls = [
        c
        for c in overlapping
        if RELEASES.rfind("](", 0, c.start) > RELEASES.rfind("\n", 0, c.start)
        and RELEASES.rfind(")", 0, c.start) < RELEASES.rfind("](", 0, c.start)
    ]
    assert inside_urls and all(RELEASES[c.start - 1] in "(/.:-_" for c in inside_urls)


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
    assert all(c.overlap_prev_chars == 0 and text[c.start - 2 : c.start] == "\r\n" for c in pieces[1:])


def test_long_runs_of_letters_or_spaces_have_no_overlap():
    """No line or word start within reach: each piece is cut at max_char and the next one starts
    at the cut (the search for a start stays within the overlap, so a long run costs no more
    than a short one)."""
    for filler in ("z", " "):
        text = "# X\n" + "a" + filler * 20_000 + "b\n"
        pieces = chunks(text, max_char=512, chunk_overlap=51)
        assert all(c.chars == 512 for c in pieces[:-1]) and pieces[-1].end == len(text)
        assert all(c.overlap_prev_chars == 0 for c in pieces[1:])
