"""Concrete boundaries of the size- and delimiter-based strategies on small hand-made inputs.

Each expectation was worked out by hand from the strategy's rule, so a change in
where chunks start or end shows up here as a readable diff.
"""

from __future__ import annotations

import pytest

from chunktui.engine import Document, ParamError, chunk_document
from chunktui.formats.records import chunk_record


def chunks(text, strategy, **params):
    return chunk_document(Document.from_text(text, kind="prose"), strategy, params).chunks


def texts(text, strategy, **params):
    return [c.text for c in chunks(text, strategy, **params)]


def spans(text, strategy, **params):
    return [(c.start, c.end) for c in chunks(text, strategy, **params)]


# -- lines ---------------------------------------------------------------------------------


def test_lines_cores_tile_and_each_chunk_starts_overlap_lines_early():
    text = "".join(f"l{i}\n" for i in range(1, 11))  # 10 lines of 3 chars
    cs = chunks(text, "lines", size=4, overlap=1)
    assert [(c.start_line, c.end_line) for c in cs] == [(1, 4), (4, 8), (8, 10)]
    assert [(c.metadata["core_start_line"], c.metadata["core_end_line"]) for c in cs] == [(1, 4), (5, 8), (9, 10)]
    assert [(c.start, c.end) for c in cs] == [(0, 12), (9, 24), (21, 31)]
    assert [c.overlap_next_lines for c in cs] == [1, 1, 0]


def test_lines_overlap_is_the_lines_neighbours_share_as_in_the_aiwg_manifest():
    """aiwg's manifest: --size 200 --overlap 20 shares 20 lines (1-218 then 199-412), and
    says overlap_start 20; chunktui shared 40 and said 40."""
    text = "".join(f"    total += weights[{i}] * values[{i}]\n" for i in range(412))
    records = [chunk_record(c) for c in chunks(text, "lines", size=200, overlap=20, max_tokens=0)]  # aiwg has no cap
    assert [(r["start_line"], r["end_line"]) for r in records] == [(1, 200), (181, 400), (381, 412)]
    assert [(r["overlap_start"], r["overlap_end"]) for r in records] == [(0, 20), (20, 20), (20, 0)]


def test_lines_counts_crlf_inside_the_line():
    cs = chunks("a\r\nb\r\nc", "lines", size=2, overlap=0)
    assert [c.text for c in cs] == ["a\r\nb\r\n", "c"]


# -- fixed ---------------------------------------------------------------------------------


def test_fixed_hard_split_without_delimiters():
    assert texts("abcdefghij", "fixed", size=4, unit="bytes") == ["abcd", "efgh", "ij"]


def test_fixed_backs_off_to_last_delimiter_in_window():
    assert texts("aaa bbb ccc ddd", "fixed", size=9, unit="chars", delimiters=" ") == ["aaa bbb ", "ccc ddd"]


def test_fixed_prefix_puts_delimiter_at_start_of_next_chunk():
    assert texts("aaa bbb ccc ddd", "fixed", size=9, unit="chars", delimiters=" ", prefix=True) == [
        "aaa bbb",
        " ccc ddd",
    ]


def test_fixed_prefix_may_cut_right_before_a_delimiter_just_past_the_window():
    assert texts("abcd.efg", "fixed", size=4, unit="chars", delimiters=".", prefix=True) == ["abcd", ".efg"]


def test_fixed_delimiter_escapes_mean_real_characters():
    assert texts("ab\ncd\nef", "fixed", size=4, unit="chars", delimiters="\\n") == ["ab\n", "cd\n", "ef"]
    assert texts("a\tb\tc", "fixed", size=2, unit="chars", delimiters="\\t") == ["a\t", "b\t", "c"]


def test_fixed_labels_say_how_each_chunk_was_cut():
    cs = chunks("aaa bbbbbbbbbb", "fixed", size=5, unit="chars", delimiters=" ")
    assert [(c.text, c.boundary_type, c.boundary_label) for c in cs] == [
        ("aaa ", "start", "start of text"),
        ("bbbbb", "delimiter", "after ' '"),
        ("bbbbb", "size", "5 chars"),
    ]


def test_fixed_bytes_never_split_a_character():
    text = "aé🎉b"  # 1 + 2 + 4 + 1 bytes
    cs = chunks(text, "fixed", size=4, unit="bytes")
    assert [c.text for c in cs] == ["aé", "🎉", "b"]
    assert [(c.start_byte, c.end_byte) for c in cs] == [(0, 3), (3, 7), (7, 8)]
    assert not any(c.metadata.get("oversized") for c in cs)


def test_fixed_bytes_flags_a_character_bigger_than_the_window():
    cs = chunks("aé🎉b", "fixed", size=3, unit="bytes")
    assert [(c.text, bool(c.metadata.get("oversized"))) for c in cs] == [("aé", False), ("🎉", True), ("b", False)]


def test_fixed_tokens_are_exact():
    # cl100k_base: "Hello" " world" "." repeated: three tokens per sentence
    text = "Hello world. Hello world. Hello world."
    cs = chunks(text, "fixed", size=3, unit="tokens")
    assert [c.text for c in cs] == ["Hello world.", " Hello world.", " Hello world."]
    assert [c.tokens for c in cs] == [3, 3, 3]


def test_fixed_overlap_repeats_the_end_of_the_previous_chunk():
    cs = chunks("abcdefghij", "fixed", size=4, unit="chars", overlap=2)
    assert [c.text for c in cs] == ["abcd", "cdef", "efgh", "ghij"]
    assert [c.overlap_prev_chars for c in cs] == [0, 2, 2, 2]


def test_fixed_byte_overlap_stays_on_character_boundaries():
    cs = chunks("ééééé", "fixed", size=4, unit="bytes", overlap=3)  # each é is 2 bytes: 3 bytes of overlap is one é
    assert [c.text for c in cs] == ["éé", "éé", "éé", "éé"]
    assert [c.start for c in cs] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    "params, flag",
    [
        ({"size": 4, "overlap": 4}, "--overlap"),
        ({"delimiters": "\\q"}, "--delimiters"),
        ({"size": 0}, "--size"),
        ({"unit": "lines"}, "--unit"),
    ],
)
def test_fixed_rejects_bad_params_naming_the_flag(params, flag):
    with pytest.raises(ParamError) as err:
        chunks("text", "fixed", **params)
    assert str(err.value).startswith(flag)


# -- split ---------------------------------------------------------------------------------


def test_split_default_delimiters_end_their_segment():
    cs = chunks("Hi. Yo? ok\nEnd", "split")
    assert [(c.text, c.boundary_type) for c in cs] == [
        ("Hi.", "start"),
        (" Yo?", "sentence"),
        (" ok\n", "sentence"),
        ("End", "delimiter"),
    ]


def test_split_pieces_accumulate_until_the_segment_reaches_min_chars():
    text = "Hi. Yo? ok\nA much longer sentence here. x. End"
    assert texts(text, "split", min_chars=5) == ["Hi. Yo?", " ok\nA much longer sentence here.", " x. End"]


def test_split_short_last_segment_joins_the_previous_one():
    assert texts("a.b.cccccc.d", "split", delimiters=".", min_chars=3) == ["a.b.", "cccccc.d"]


def _dpkg_log(lines: int) -> str:
    """Lines as /var/log/dpkg.log writes them: every one far shorter than 200 characters."""
    actions = ("status unpacked", "status half-configured", "status installed", "configure", "upgrade")
    return "".join(
        f"2025-06-24 14:{i // 60 % 60:02d}:{i % 60:02d} {actions[i % 5]} lib{i % 37}pkg:amd64 "
        f"252.{i % 40}-1~deb12u1 252.{i % 40 + 2}-1~deb12u1\n"
        for i in range(lines)
    )


def test_split_min_chars_gives_many_segments_of_a_log_of_short_lines():
    text = _dpkg_log(2000)
    cs = chunks(text, "split", delimiters="\\n", min_chars=200)
    assert len(cs) > 300  # one segment of the whole log before the fix
    assert "".join(c.text for c in cs) == text
    for c in cs:
        assert c.chars >= 200 and c.text.endswith("\n")
        lines = c.text.splitlines(keepends=True)
        assert c.metadata["segments"] == len(lines)
        assert len("".join(lines[:-1])) < 200 or c is cs[-1]  # no longer than it needs to be


def test_split_repeated_text_gets_its_own_offsets():
    assert spans("x.x.x.", "split", delimiters=".") == [(0, 2), (2, 4), (4, 6)]


def test_split_needs_a_delimiter():
    with pytest.raises(ParamError):
        chunks("abc", "split", delimiters="")


# -- recursive -----------------------------------------------------------------------------


def test_recursive_repeated_text_keeps_true_offsets():
    text = "same line\n" * 5
    cs = chunks(text, "recursive", size=20, overlap=0)
    assert [(c.start, c.end) for c in cs] == [(0, 19), (19, 39), (39, 50)]
    # the second chunk's text also occurs at offset 9: a str.find would put it there
    assert text.find(cs[1].text) == 9 and cs[1].start == 19


def test_recursive_keeps_whitespace_and_declares_whitespace_only_leftovers():
    text = "alpha beta\n\n  gamma delta  \n\nepsilon"
    cs = chunk_document(Document.from_text(text, kind="prose"), "recursive", {"size": 15, "overlap": 0})
    assert [c.text for c in cs.chunks] == ["alpha beta", "\n  gamma delta ", "\n\nepsilon"]
    assert [(g.start, g.end, g.reason) for g in cs.gaps] == [(10, 11, "whitespace only"), (26, 27, "whitespace only")]


def test_recursive_overlap_is_whole_pieces_up_to_the_request():
    cs = chunks("one two three four five six", "recursive", size=13, overlap=6)
    assert [(c.start, c.end) for c in cs] == [(0, 13), (7, 18), (13, 23), (18, 27)]
    assert [c.overlap_prev_chars for c in cs] == [0, 6, 5, 5]
    assert [c.boundary_type for c in cs] == ["start", "word", "word", "word"]


def test_recursive_prefers_paragraphs_then_lines():
    text = "para one\n\npara two is longer\nwith a second line"
    cs = chunks(text, "recursive", size=25, overlap=0)
    assert [c.text for c in cs] == ["para one", "\n\npara two is longer", "\nwith a second line"]
    assert [c.boundary_type for c in cs] == ["start", "paragraph", "line"]


def test_recursive_paragraph_breaks_do_not_overlap_in_longer_newline_runs():
    # as LangChain's regex split: "\n\n\n" holds one break (at 4, not 5); "\n\n\n\n\n" two (11, 13)
    text = "aaaa\n\n\nbbbb\n\n\n\n\ncccc"
    for overlap in (0, 3):
        cs = chunk_document(Document.from_text(text, kind="prose"), "recursive", {"size": 8, "overlap": overlap})
        assert [(c.start, c.end) for c in cs.chunks] == [(0, 4), (4, 11), (13, 20)]
        assert [(g.start, g.end, g.reason) for g in cs.gaps] == [(11, 13, "whitespace only")]


def test_recursive_counts_tokens():
    cs = chunks("one two three four five six seven eight", "recursive", size=5, overlap=2, unit="tokens")
    assert [c.text for c in cs] == ["one two three four five", " four five six seven eight"]
    assert [c.tokens for c in cs] == [5, 5]


def test_recursive_token_runs_are_recounted_when_joining_costs_more():
    """BPE is not additive: a run whose pieces fit can encode longer once joined; it is split."""
    from chunktui.engine.core.tokens import Counter
    from chunktui.engine.strategies import Context
    from chunktui.engine.strategies.recursive import SEPARATORS, _Splitter

    class JoinCostsMore(Counter):  # what RunContext.counter gives: a Counter
        name = "joined-costs-more"

        def count(self, text):
            return len(text) + (3 if len(text) > 6 else 0)

        def count_spans(self, text, spans):
            return [self.count(text[s:e]) for s, e in spans]

    text = "aa bb cc dd ee ff"
    splitter = _Splitter(text, Document.from_text(text).line_starts, 8, 0, JoinCostsMore(), Context())
    splitter.split(0, len(text), SEPARATORS)
    splitter.verify()
    splitter.flush()
    assert sorted(text[s.start : s.end] for s in splitter.table()) == sorted(["aa bb", " cc", " dd ee", " ff"])


@pytest.mark.parametrize(
    "strategy, params",
    [
        ("fixed", {"size": 8, "unit": "chars"}),
        ("fixed", {"size": 4, "unit": "tokens"}),
        ("split", {}),
        ("recursive", {"size": 8, "overlap": 0}),
    ],
)
def test_a_dropped_run_stops_with_cancelled(strategy, params):
    """The app drops stale runs: a strategy must notice instead of finishing the whole text."""
    from chunktui.engine import Cancelled

    with pytest.raises(Cancelled):
        chunk_document(Document.from_text("words and more words.\n" * 50), strategy, params, is_cancelled=lambda: True)
