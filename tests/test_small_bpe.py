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
import unicodedata
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, all_strategies, chunk_document, load_document
from chunktui.engine.core import small_bpe, tokens
from chunktui.engine.core.errors import ChunkingError
from chunktui.engine.core.token_index import TokenIndex
from chunktui.engine.core.tokens import get_counter, get_encoding, load_ranks, rank_table
from support.invariants import check_invariants

ROOT = Path(__file__).resolve().parent.parent
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


UNICODE = [  # beyond ASCII: each class the patterns tell apart, and characters that stand out
    *["é", "e\u0301", "ñ", "ß", "Ü", "ſ", "'ſ", "IſT", "\u212a", "ǅ", "ʰ", "ª", "ᾼ"],  # Ll Lu Lt Lm Lo
    *["中", "日本語", "ひらがな", "カタカナ", "한국어", "Привет", "ΣΑΣ", "العربية", "עברית", "ไทย", "देवनागरी"],
    *["\u0301", "\u20dd", "\u0903", "\u093c", "\ufe0f", "\U000e0100"],  # marks: Mn Me Mc, variation selectors
    *["١٢٣", "४५६", "Ⅻ", "½", "²", "𝟘"],  # Nd Nl No
    *["🎉", "👩\u200d👩\u200d👧", "❤\ufe0f", "🇫🇷", "\u200b", "\u180e", "\u2060", "\xad"],  # emoji, Cf
    *["\xa0", "\u3000", "\u2028", "\u2029", "\x85", "\u1680", "\u2009", "\u202f", "\u205f"],  # White_Space
    *["“", "”", "‘", "’", "—", "–", "…", "«", "»", "€", "¶", "§", "\x80", "\x9f", "\ue000", "\U0010fffd"],
]
unicode_texts = st.lists(st.sampled_from(FRAGMENTS + ASCII + UNICODE), max_size=40).map("".join)


def test_characters_beyond_ascii_in_every_context(both):
    """Every class of Unicode characters the patterns tell apart (the stand-ins in small_bpe), in
    the contexts that tell them apart. (Every character Unicode 14 assigns was checked so too,
    once: 0 differ in either encoding; 30-60 s, too long for the suite.)"""
    name, small, ref = both
    for c in UNICODE:
        for context in CONTEXTS:
            assert_tiktokens(small, ref, context.format(c=c))


def assert_tiktokens(small, ref, text: str) -> None:
    """The short-text encoder gives tiktoken's tokens, or none when the text is long enough to
    hold a piece too long to merge in Python (a word of 22 Devanagari letters, a CJK clause)."""
    tokens = small.encode(text)
    assert tokens == ref.encode_ordinary(text) or tokens is None and len(text.encode()) > small_bpe.MERGED_PIECE_MAX


@settings(max_examples=100, deadline=None)
@given(text=unicode_texts)
def test_generated_unicode_texts(both, text):
    _, small, ref = both
    for tail in (text[i:] for i in range(len(text))):
        assert_tiktokens(small, ref, tail)


@settings(max_examples=100, deadline=None)
@given(c=st.characters(exclude_categories=("Cn", "Cs")), context=st.sampled_from(CONTEXTS))
def test_any_assigned_character(both, c, context):
    _, small, ref = both
    assert_tiktokens(small, ref, context.format(c=c))


@settings(max_examples=100, deadline=None)
@given(text=st.text(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=30))
def test_any_text_is_encoded_as_tiktoken_or_left_to_it(both, text):
    """A lone surrogate (which tiktoken encodes as a replacement character) or a character this
    Python's Unicode database does not assign (tiktoken's may be newer) is left to tiktoken."""
    _, small, ref = both
    tokens = small.encode(text)
    assert tokens is None or tokens == ref.encode_ordinary(text)
    unknown = any(unicodedata.category(c) in ("Cn", "Cs") for c in text)
    assert small_bpe.fits(text) is not unknown
    if unknown:
        assert tokens is None


def test_real_ascii_files(both):
    _, small, ref = both
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("argparse.py", "textwrap.py", "csv.py"):
        text = (stdlib / name).read_text(encoding="utf-8")[:20_000]
        assert text.isascii()
        assert small.encode(text) == ref.encode_ordinary(text)


def test_real_files_beyond_ascii(both):
    """sample_docs' files holding dashes, curly quotes, accented letters and an emoji, whole (but
    one whose table rule is a piece too long to merge in Python)."""
    _, small, ref = both
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "sample_docs").iterdir()) if p.is_file()]
    encoded = [(text, small.encode(text)) for text in texts if not text.isascii()]
    assert sum(ids is not None for _, ids in encoded) >= 3
    for text, ids in encoded:
        assert ids is None or ids == ref.encode_ordinary(text)


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
    """A short text is counted in Python; a text holding a lone surrogate, one with a piece too
    long to merge in Python, and any text after the budget is spent are counted by tiktoken,
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
    assert tokens.small_encoder("cl100k_base", "na\ud800ve") is None  # a lone surrogate
    assert tokens.small_encoder("cl100k_base", "x" * 65).encode("x" * 65) is None
    assert counter.count(short * 40) == len(ref.encode_ordinary(short * 40))  # over the budget
    assert "cl100k_base" in tokens._encodings
    assert tokens.small_encoder("cl100k_base", short) is None  # once built, tiktoken's is used
    for text in ("na\ud800ve", "x" * 65):
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


@contextmanager
def python_only():
    """This process as at start: no tiktoken encoder built, nothing encoded in Python yet, no
    counter made (the session's are put back after)."""
    saved = tokens._encodings, tokens._small_spent, tokens._counters
    tokens._encodings, tokens._small_spent, tokens._counters = {}, {}, {}
    try:
        yield
    finally:
        tokens._encodings, tokens._small_spent, tokens._counters = saved


def small_indexes_of(name: str, text: str, ref) -> list[small_bpe.SmallIndex]:
    """The short text's index counting spans from the anchors, and counting them whole; or the
    test's example is skipped when a piece of the text is too long to merge in Python (it is then
    TokenIndex's)."""
    from chunktui.engine.core.token_index import anchor_rules

    small = small_bpe.SmallEncoder(name, rank_table(name))
    leads = small.token_leads(text)
    assume(leads is not None)
    count = lambda span: len(ref.encode_ordinary(span))  # noqa: E731
    return [small_bpe.SmallIndex(text, small, leads, anchors, count) for anchors in (anchor_rules(name), None)]


@settings(max_examples=20, deadline=None)
@given(
    text=st.lists(st.sampled_from(FRAGMENTS + ASCII + UNICODE), min_size=1, max_size=40).map("".join), data=st.data()
)
def test_the_short_texts_index_reads_as_the_token_index(both, text, data):
    """Every count of a span is tiktoken's, and the token ends and estimates are TokenIndex's
    (where a token ends inside a character too)."""
    name, _, ref = both
    (index, whole), reference = small_indexes_of(name, text, ref), TokenIndex(text, name, ref)
    assert index.token_ends() == reference.token_ends()
    assert index.total_tokens == reference.total_tokens
    offsets = st.integers(0, len(text))
    for _ in range(8):
        s, e = sorted(data.draw(st.tuples(offsets, offsets)))
        assert index.count(s, e) == whole.count(s, e) == len(ref.encode_ordinary(text[s:e])), (text, s, e)
        n = data.draw(st.integers(1, 8))
        assert index.end_of_tokens(s, n) == reference.end_of_tokens(s, n)
        assert index.start_of_tokens(e, n) == reference.start_of_tokens(e, n)


SHORT_RUNS = {  # params that make many chunks of a short text, in tokens where the strategy offers it
    "adaptive": {"chunk_lines": 6, "overlap_lines": 2, "max_tokens": 40},
    "code": {"unit": "tokens", "size": 48, "overlap_lines": 1},
    "fixed": {"unit": "tokens", "size": 24, "overlap": 6},
    "lines": {"chunk_lines": 6, "overlap_lines": 2, "max_tokens": 40},
    "log-records": {"unit": "tokens", "size": 40},
    "markdown": {"min_chars": 100, "max_chars": 300, "overlap_chars": 40},
    "prose": {"min_tokens": 16, "max_tokens": 48},
    "recursive": {"unit": "tokens", "size": 32, "overlap": 8},
    "semantic": {"chunk_lines": 6, "overlap_lines": 2, "max_tokens": 40},
}
SHORT_FILES = [
    ROOT / "README.md",
    ROOT / "sample_docs" / "guide.md",
    Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py",
]


def short_copy(path: Path, folder: Path) -> Path:
    """The first 1,000-odd characters of `path`, to whole lines, under its own name (guide.md's
    hold a dash and an emoji)."""
    text = path.read_text(encoding="utf-8")
    copy = folder / path.name
    copy.write_text(text[: text.index("\n", 1000) + 1], encoding="utf-8")
    return copy


@pytest.mark.parametrize("strategy", all_strategies(), ids=lambda s: s.name)
def test_no_strategy_builds_tiktokens_encoder_for_a_short_file(strategy, tmp_path):
    """A 1 KB file is chunked and counted in Python by every strategy (tiktoken's encoder costs
    100-165 ms to build), with tiktoken's counts (check_invariants encodes each chunk with it)."""
    for path in SHORT_FILES:
        doc = load_document(short_copy(path, tmp_path))
        if strategy.kinds and doc.kind not in strategy.kinds:
            continue
        with python_only():
            cs = chunk_document(doc, strategy.name, SHORT_RUNS.get(strategy.name, {}), tokenizer="cl100k_base")
            assert "cl100k_base" not in tokens._encodings, path.name
        assert len(cs.chunks) > 1 or strategy.name not in SHORT_RUNS
        check_invariants(cs)


@pytest.mark.parametrize("strategy", all_strategies(), ids=lambda s: s.name)
@settings(max_examples=15, deadline=None, derandomize=True)
@given(text=st.lists(st.sampled_from(FRAGMENTS + UNICODE + ["\n", "\n\n", ". "]), max_size=60).map("".join))
def test_every_strategy_counts_as_tiktoken_on_short_texts(strategy, text):
    """Chunk counts and token-sized cuts made in Python are tiktoken's (check_invariants)."""
    with python_only():
        try:
            cs = chunk_document(Document.from_text(text), strategy.name, SHORT_RUNS.get(strategy.name, {}))
        except ChunkingError:
            assert strategy.kinds  # a format strategy may refuse text not of its kind
            return
    check_invariants(cs)
