"""Huge pre-tokenizer pieces are encoded in windows joined at proven seams (long_pieces.py), and the
result is tiktoken's own encoding, token for token, for every tokenizer chunktui ships.

tiktoken BPE-encodes each piece of its pre-tokenizer whole, and one piece of 1 MB (a run of letters,
DNA, CJK without punctuation, punctuation or whitespace) costs 460 ns a byte against 130 at 16 KB;
these tests hold the windowed encoding to the direct one. None is timed.
"""

from __future__ import annotations

import base64
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.long_runs import RecordingEncoding
from chunktui.engine.core import long_pieces, token_index, tokens
from chunktui.engine.core.long_pieces import LONG_PIECE, PieceEncoder
from chunktui.engine.core.token_index import TokenIndex, split_finders
from chunktui.engine.core.tokens import ENCODING_SPECS, encode_ordinary, get_encoding

ENCODINGS = tuple(ENCODING_SPECS)  # every tokenizer chunktui ships
SIZE = LONG_PIECE + 40_000  # characters: past the size where a piece is encoded in windows


def huge(kind: str, n: int = SIZE) -> str:
    """n characters of a run tiktoken reads as one piece (or, for digits and base64, as many)."""
    rng = random.Random(n)
    runs = {
        "a": lambda: "a" * n,
        "dna": lambda: ("ACGT" * (n // 4 + 1))[:n],
        "cjk": lambda: "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(n)),
        "word": lambda: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)),
        "camel": lambda: "".join(rng.choice("aAbBcCxXyYzZ") for _ in range(n)),
        "digits": lambda: "".join(rng.choice("0123456789") for _ in range(n)),
        "base64": lambda: base64.b64encode(rng.randbytes(n))[:n].decode(),
        "equals": lambda: "=" * n,
        "dashes": lambda: "-" * n,
        "dots": lambda: "." * n,
        "stars": lambda: "*" * n,
        "hashes": lambda: "#" * n,
        "symbols": lambda: "".join(rng.choice("=-*#~^|+<>") for _ in range(n)),
        "emoji": lambda: "".join(rng.choice("😀🎉🚀✨🔥") for _ in range(n // 2)),
        "spaces": lambda: " " * n,
        "newlines": lambda: "\n" * n,
        "blank lines": lambda: "  \n\t" * (n // 4),
        "slashes": lambda: "=" + "/\n" * (n // 2),
        "accents": lambda: "é" * n,
    }
    return runs[kind]()


KINDS = (
    "a",
    "dna",
    "cjk",
    "word",
    "camel",
    "digits",
    "base64",
    "equals",
    "dashes",
    "dots",
    "stars",
    "hashes",
    "symbols",
    "emoji",
    "spaces",
    "newlines",
    "blank lines",
    "slashes",
    "accents",
)


def direct(name: str, text: str) -> list[int]:
    return get_encoding(name).encode_ordinary(text)


def just_past_a_long_piece(kind: str) -> str:
    """A run of `kind` of LONG_PIECE + 8 KB bytes (four windows and a quarter): a CJK character is 3
    bytes, an emoji 4, so counting characters made those runs 2-3 times longer than needed."""
    run = huge(kind)
    return run[: math.ceil((LONG_PIECE + 8192) * len(run) / len(run.encode()))]


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_huge_run_alone_and_in_text_encodes_as_tiktoken_does(name, kind):
    """Alone, and with prose around it (a word glued to its start, a contraction, an indent, a
    number and punctuation at its end), so that its stretch starts and ends at real anchors."""
    run = just_past_a_long_piece(kind)
    assert len(run.encode()) >= LONG_PIECE + 8192
    prose = "Some text, then 12 numbers.\n    indented: it's"
    for text in (run, prose + run, run + "'s end.\n", prose + " " + run + "\n\n" + prose, run + "x9" + run):
        assert list(encode_ordinary(name, text)) == direct(name, text), (kind, len(text))


@pytest.mark.parametrize("name", ENCODINGS)
def test_the_token_index_of_a_text_with_huge_pieces_counts_exactly(name):
    """Three runs each encoded in windows (CJK by its bytes: a third as many characters), and spans
    from the text's start, across whole runs, between two runs' insides and to the text's end."""
    dna, equals, cjk = (just_past_a_long_piece(kind) for kind in ("dna", "equals", "cjk"))
    text = "Intro line.\n" + dna + " middle " + equals + "\n" + cjk + " end"
    in_dna, in_equals = len("Intro line.\n") + 100_000, text.index(equals) + 30_000
    in_cjk = text.index(cjk) + 20_000
    index = TokenIndex(text, name, get_encoding(name))
    assert index.total_tokens == len(direct(name, text))
    spans = [(0, 300), (5, in_equals), (in_equals, len(text)), (in_dna, in_cjk)]
    assert index.count_spans(spans) == [len(direct(name, text[s:e])) for s, e in spans]


@pytest.mark.parametrize("name", ENCODINGS)
def test_tiktoken_never_encodes_more_than_a_window_of_a_huge_piece_at_once(monkeypatch, name):
    """Not timed: the work is read from what tiktoken is asked. Before, the token index handed it
    the whole text (1 MB of DNA in one call, and BPE of one piece grows faster than its length);
    now no call is longer than one window and a half, and the tokens are the same. A run just past
    the size where pieces are windowed is the whole text the old index handed over at once."""
    fake = RecordingEncoding(get_encoding(name))
    monkeypatch.setattr(tokens, "get_encoding", lambda _name: fake)
    monkeypatch.setattr(long_pieces, "_encoders", {})
    text = just_past_a_long_piece("dna")
    index = TokenIndex(text, name, fake)
    assert fake._core_bpe.longest <= long_pieces.WINDOW * 3 // 2
    assert index.total_tokens == len(direct(name, text))


# Small windows put many seams on awkward spots: runs of two or three letters whose tokens repeat,
# so that ties and the same pair at many places are common. Windows stay longer than any token
# (128 bytes): tiktoken encodes a piece that is one token as that token, without BPE.
pieces = st.builds(
    lambda parts: "".join(parts),
    st.lists(
        st.builds(
            lambda ch, k: ch * k,
            st.sampled_from(["a", "b", "ab", "ACGT", "日", "é", "=", " ", "aab"]),
            st.integers(1, 400),
        ),
        min_size=1,
        max_size=40,
    ),
)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=pieces, window=st.integers(300, 1200), overlap=st.integers(130, 290))
def test_seams_anywhere_in_a_piece_join_to_tiktokens_bpe(name, text, window, overlap):
    encoding = get_encoding(name)
    encoder = PieceEncoder(encoding, ENCODING_SPECS[name]["pat_str"], split_finders(name))
    encoder.window, encoder.overlap = window, overlap
    piece = text.encode()
    assert list(encoder.encode_long_piece(piece)) == encoding._core_bpe.encode_single_piece(piece)


@pytest.mark.parametrize("name", ENCODINGS)
def test_most_seams_hold_so_the_windows_are_used(name):
    """A join that fails sends the whole piece to tiktoken (exact, and as slow as before); on the
    runs above none fails."""
    encoder = tokens.long_piece_encoder(name)
    before = encoder.fallbacks
    for kind in ("a", "dna", "cjk", "word", "camel", "equals", "emoji", "newlines", "accents"):
        encoder.encode_long_piece(huge(kind).encode())
    assert encoder.fallbacks == before


@pytest.mark.parametrize("name", ENCODINGS)
def test_ordinary_text_is_left_to_tiktoken_whole(name):
    """Text with no huge piece costs one sample every 4,096 characters and is encoded as before."""
    text = (token_index.__doc__ or "") * 40 + "\n" + "x = 1\n" * 20_000
    assert len(text) > long_pieces.MIN_CHARS
    assert tokens.long_piece_encoder(name).encode(text) is None
    assert list(encode_ordinary(name, text)) == direct(name, text)


class _CountingPattern:
    """tiktoken's pattern (the `regex` package's), adding up the characters each use reads."""

    def __init__(self, pattern):
        self.pattern, self.read = pattern, 0

    def match(self, text, pos, endpos=None):
        m = self.pattern.match(text, pos, len(text) if endpos is None else endpos)
        self.read += (m.end() if m else pos) - pos
        return m

    def finditer(self, text, pos=0):
        for m in self.pattern.finditer(text, pos):
            self.read = self.read + m.end() - max(pos, m.start()) + (m.start() - pos if m.start() > pos else 0)
            pos = m.end()
            yield m


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("kind", ("camel", "a", "word"))
def test_finding_long_pieces_reads_each_character_a_few_times(name, kind):
    """Not timed: the characters the piece pattern reads are counted. A run that is one kind of
    character to Python but many pieces to tiktoken (o200k_base reads "aBcD" as two-letter pieces)
    once sent the search back to the text's start from every sample, reading the run again each
    time: 2 MB took 101 s (tiktoken 0.33 s)."""
    import regex

    encoder = PieceEncoder(get_encoding(name), ENCODING_SPECS[name]["pat_str"], split_finders(name))
    encoder._pieces = counting = _CountingPattern(regex.compile(ENCODING_SPECS[name]["pat_str"]))
    text = huge(kind, 600_000)
    encoder.stretches(text)
    assert counting.read <= 3 * len(text)
