"""The short-text encoder gives tiktoken's tokens, token for token, for every encoding offered.

small_bpe encodes ASCII texts in Python so that a short run need not build tiktoken's encoder;
the reference here is tiktoken itself (the Encoding that test_tokens.py checks against
tiktoken_ext's own). Texts: every ASCII character in the contexts the patterns tell apart,
generated texts of the pieces the patterns have alternatives for (contractions, digit runs,
whitespace runs before text and at the end, punctuation runs, special-token look-alikes), and
real ASCII source files.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine.core import small_bpe, tokens
from chunktui.engine.core.tokens import get_counter, get_encoding, load_ranks, rank_table

ENCODINGS = sorted(small_bpe.PATTERNS)
assert set(ENCODINGS) == set(tokens.ENCODING_SPECS)  # every tokenizer chunktui offers has a short path

FRAGMENTS = [
    "'s",
    "'S",
    "'t",
    "'ll",
    "'LL",
    "'ve",
    "'Re",
    "'d",
    "'m",
    "'M",
    "'x",
    "''",
    "don't",
    "I'M",
    "we've",
    "the",
    " the",
    "The",
    "HTTPServer",
    "camelCase",
    "x",
    "Z",
    " a",
    "a",
    "i",
    "e.g.",
    "snake_case",
    "7",
    "12",
    "123",
    "1234567",
    "3.14159",
    "0x1F",
    "v2",
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " \n",
    "\t\n  ",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x00",
    "\x7f",
    "!",
    "?!",
    "...",
    " --",
    "==",
    "->",
    "/",
    "//",
    " /*",
    "*/",
    "#",
    "(",
    ")",
    '"',
    "`",
    "~",
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|endofprompt|>",
]
ASCII = [chr(c) for c in range(0x80)]
texts = st.lists(st.sampled_from(FRAGMENTS + ASCII), max_size=40).map("".join)
CONTEXTS = [
    "{c}",
    "a{c}b",
    "{c}{c}{c}",
    " {c}x",
    "x{c} ",
    "1{c}2",
    "{c}'s",
    "a {c}\n",
    "\n{c}{c}\n ",
    "A{c}a",
    "{c}   ",
    "  {c}",
    "{c}\r\n",
    "'{c}",
]


@pytest.fixture(scope="module", params=ENCODINGS)
def both(request):
    """(name, the short-text encoder, tiktoken's Encoding) of each encoding."""
    name = request.param
    return name, small_bpe.SmallEncoder(name, rank_table(name)), get_encoding(name)


def test_the_table_holds_every_rank_and_nothing_else(both):
    name, _, _ = both
    ranks, table = load_ranks(name), rank_table(name)
    assert all(table.get(key) == rank for key, rank in list(ranks.items())[::7])  # one in 7: 0.1 s
    assert [table.get(k) for k in (b"", b"\x00\x00\x00\x00\x00 unlikely", b"no such token at all")] == [None] * 3


def test_every_ascii_character_in_every_context(both):
    name, small, ref = both
    for c in ASCII:
        for context in CONTEXTS:
            text = context.format(c=c)
            assert small.encode(text) == ref.encode_ordinary(text), (name, text)


@settings(max_examples=100, deadline=None)
@given(text=texts)
def test_generated_texts(both, text):
    """Each text and each of its tails: a piece's bounds shift as its start does."""
    _, small, ref = both
    for tail in (text[i:] for i in range(len(text))):
        assert small.encode(tail) == ref.encode_ordinary(tail)


def test_real_ascii_files(both):
    _, small, ref = both
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("argparse.py", "textwrap.py", "csv.py"):
        text = (stdlib / name).read_text(encoding="utf-8")[:20_000]
        assert text.isascii()
        assert small.encode(text) == ref.encode_ordinary(text)


@pytest.fixture
def fresh(monkeypatch):
    """tiktoken's cl100k_base, with this process as at start: no tiktoken encoder built, nothing
    encoded in Python yet."""
    reference = get_encoding("cl100k_base")
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "_small_encoders", {})
    monkeypatch.setattr(tokens, "_small_spent", {})
    return reference


def test_counts_are_tiktokens_on_either_side_of_the_switch(fresh):
    """A short ASCII text is counted in Python; a text holding another character, one with a piece
    too long to merge in Python, and any text after the budget is spent are counted by tiktoken,
    which is built then; every count is tiktoken's."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    counter = get_counter("cl100k_base")
    ref = fresh
    short = readme.encode("ascii", "ignore").decode()[:2000]
    assert counter.count(short) == len(ref.encode_ordinary(short))
    assert counter.count_spans(short, [(0, 700), (500, 2000)]) == [
        len(ref.encode_ordinary(short[a:b])) for a, b in [(0, 700), (500, 2000)]
    ]
    assert "cl100k_base" not in tokens._encodings  # so far, no tiktoken encoder
    assert tokens.small_encoder("cl100k_base", "naïve") is None
    assert tokens.small_encoder("cl100k_base", "x" * 65).encode("x" * 65) is None
    assert counter.count(short * 40) == len(ref.encode_ordinary(short * 40))  # over the budget
    assert "cl100k_base" in tokens._encodings
    assert tokens.small_encoder("cl100k_base", short) is None  # once built, tiktoken's is used
    for text in ("naïve", "x" * 65):
        assert counter.count(text) == len(ref.encode_ordinary(text))


def test_a_damaged_table_cache_is_rebuilt_not_trusted(monkeypatch, tmp_path):
    rank_table("cl100k_base")  # the session's cache holds a sound table, and the parsed ranks
    sound = tokens.table_cache_path("cl100k_base").read_bytes()
    ranks = tokens.ranks_cache_path("cl100k_base").read_bytes()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = tokens.table_cache_path("cl100k_base")
    path.parent.mkdir()
    tokens.ranks_cache_path("cl100k_base").write_bytes(ranks)
    damaged = bytearray(sound)
    damaged[-1] ^= 1  # the last key's last byte: that token would be lost, were the file trusted
    path.write_bytes(bytes(damaged))
    last, rank = list(load_ranks("cl100k_base").items())[-1]
    assert rank_table("cl100k_base").get(last) == rank
    assert path.read_bytes() == sound
