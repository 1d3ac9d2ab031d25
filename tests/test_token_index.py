"""Token counts from the document index equal direct tiktoken encoding, span by span."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.engine.core import token_index
from chunktui.engine.core.compat import core_bpe, mergeable_ranks
from chunktui.engine.core.token_index import TokenIndex, cached_index
from chunktui.engine.core.tokens import get_counter, get_encoding

ENCODINGS = ("cl100k_base", "o200k_base")
SAMPLE_DOCS = Path(__file__).resolve().parent.parent / "sample_docs"

# fragments where the pre-tokenizer is context dependent: whitespace runs, CRLF,
# contractions, digit runs, emoji, marks, non-ASCII letters and spaces, "/" after newlines
FRAGMENTS = [
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " \n",
    "\n ",
    "\n/",
    "//",
    "/",
    "'ll",
    "'s",
    "'T",
    "'re",
    "'",
    "you",
    "Hello",
    "world",
    "x",
    "A",
    "ÉTÉ",
    "ß",
    "é",
    "e\u0301",
    "日本語",
    "テキスト",
    "🎉",
    "👍🏽",
    "1",
    "12",
    "123456",
    "3.14",
    "٣٤",
    ".",
    "...",
    "!!",
    ",",
    "(",
    ")",
    "{",
    "}",
    "=",
    "->",
    "\u00a0",
    "\u3000",
    "\x85",
    "\x1c",
    "\u2028",
    "<|endoftext|>",
    "def",
    "return",
    "_",
    "-",
    "#",
    "`",
    '"',
    "camelCase",
    "HTTPServer",
    "Ünïcödé",
    "，",
    "。",
    "（",
    "）",
    "：",
    "！",
    "、",
    "ＡＢＣ",
    "\u0301",
    "’",
    "＇s",
]

fragment_texts = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=300).map("".join)


def direct(name: str, text: str) -> int:
    return len(get_encoding(name).encode_ordinary(text))


@pytest.fixture(autouse=True)
def index_every_span(monkeypatch):
    """Route even tiny spans through the index so every head/tail case is exercised."""
    monkeypatch.setattr(token_index, "DIRECT_BELOW", 0)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=fragment_texts, data=st.data())
def test_random_spans_of_tricky_text_match_direct_encoding(name, text, data):
    index = TokenIndex(text, name, get_encoding(name))
    assert index.total_tokens == direct(name, text)
    n = len(text)
    points = st.integers(min_value=0, max_value=n)
    for _ in range(12):
        a, b = sorted((data.draw(points), data.draw(points)))
        assert index.count(a, b) == direct(name, text[a:b]), (a, b, text[a:b])


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=fragment_texts)
def test_spans_cut_at_every_offset_match_direct_encoding(name, text):
    """Every prefix and suffix: the ends that fall inside whitespace runs and contractions."""
    index = TokenIndex(text, name, get_encoding(name))
    n = len(text)
    for cut in range(n + 1):
        assert index.count(0, cut) == direct(name, text[:cut])
        assert index.count(cut, n) == direct(name, text[cut:])


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("kept", (100_000, 3))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=fragment_texts, data=st.data())
def test_many_spans_counted_at_once_match_direct_encoding(monkeypatch, name, kept, text, data):
    """count_spans finds all spans' anchors in one pass and falls back span by span where there
    are none; a fragment table that fills up (kept=3) is emptied mid-batch: same counts."""
    monkeypatch.setattr(token_index, "_FRAGMENTS_KEPT", kept)
    index = TokenIndex(text, name, get_encoding(name))
    points = st.integers(min_value=0, max_value=len(text))
    spans = [tuple(sorted((data.draw(points), data.draw(points)))) for _ in range(20)]
    want = [direct(name, text[a:b]) for a, b in spans]
    assert index.count_spans(spans) == want
    assert index.count_spans(spans[::-1]) == want[::-1]


@pytest.mark.parametrize("name", ENCODINGS)
def test_spans_whose_ends_are_far_from_any_anchor_match_direct_encoding(name):
    """Long runs with no anchor (one word, one number, one indent): the last anchor lies before
    the short window searched first, or nowhere in the span."""
    text = "Hello world, " + "x" * 150 + " and " + "7" * 120 + "\n" + " " * 130 + "end.\n"
    index = TokenIndex(text, name, get_encoding(name))
    spans = [(a, b) for a in range(0, len(text), 7) for b in range(a, len(text) + 1, 11)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(
    fragment=st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), min_size=1, max_size=12)
    | st.from_regex(r"[ (_'-]?[A-Za-z0-9]{1,10}| {1,40}|[ \n]{0,3}[!-/:-@\[-`{-~\n]{1,5}", fullmatch=True)
)
def test_fragments_read_as_one_piece_encode_as_tiktoken_does(name, fragment):
    """The fast path for a head or tail that is one pre-tokenizer piece: same tokens as tiktoken's."""
    index = TokenIndex("x", name, get_encoding(name))
    if index._one_piece(fragment):
        bpe = core_bpe(get_encoding(name))
        assert bpe.encode_single_piece(fragment.encode()) == get_encoding(name).encode_ordinary(fragment)


@pytest.mark.parametrize("name", ENCODINGS)
def test_runs_of_digits_are_counted_as_tiktoken_does(name):
    """A head or tail that is only digits is counted without encoding it: every run of 1 to 40
    digits, cut from a longer number at every offset, against direct encoding."""
    assert all(str(i).zfill(w).encode() in mergeable_ranks(get_encoding(name)) for w in (1, 2, 3) for i in range(10**w))
    text = "x " + "31415926535897932384626433832795028841971" * 2 + ", 7\n"
    index = TokenIndex(text, name, get_encoding(name))
    counts = index._count_fragments([text[a:b] for a in range(2, 45) for b in range(a + 1, a + 41)])
    assert all(n == direct(name, fragment) for fragment, n in counts.items())
    spans = [(a, b) for a in range(len(text)) for b in range(a, len(text) + 1)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


INDENTED = (
    '{\n    "Name": "web",\n    "Tags": [\n        {"Key": "env", "Value": "prod"},\n  \t  "x"\n    ],\n'
    '    "Count": 12345, "Path": "/a/b"\n}\n'
    "See **bold** and [a link](https://example.com/x) or (see `code`), -flag --long, #tag, $HOME.\n"
    "def f(x):\n    if x:\n        return {'a': x}\n    \n\treturn None\n  \n   \n"
)


@pytest.mark.parametrize("name", ENCODINGS)
def test_spans_of_indented_and_punctuated_text_match_direct_encoding(name):
    """Where a space and punctuation open a word, and where an indent opens a line: spans that
    start and end at every place around them, including inside the punctuation and the indent."""
    text = INDENTED * 2
    index = TokenIndex(text, name, get_encoding(name))
    spans = [(a, b) for a in range(len(text)) for b in range(a, min(len(text), a + 40) + 1)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


def test_two_threads_counting_on_one_index_with_a_small_fragment_table(monkeypatch):
    """The app's chunking and quality threads may count spans of one document at once, while
    the fragment table fills up and is replaced: every count stays exact and nothing raises."""
    import sys
    import threading

    monkeypatch.setattr(token_index, "_FRAGMENTS_KEPT", 8)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    text = INDENTED * 20
    index = TokenIndex(text, "cl100k_base", get_encoding("cl100k_base"))
    rng = random.Random(5)
    batches = [
        [tuple(sorted((rng.randrange(len(text)), rng.randrange(len(text))))) for _ in range(60)] for _ in range(8)
    ]
    want = [[direct("cl100k_base", text[a:b]) for a, b in spans] for spans in batches]
    errors = []

    def count(order):
        try:
            for _ in range(15):
                for k in order:
                    if index.count_spans(batches[k]) != want[k]:
                        errors.append(k)
        except Exception as exc:  # a race would show as a KeyError here
            errors.append(exc)

    threads = [threading.Thread(target=count, args=(order,)) for order in (range(8), range(7, -1, -1))]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert errors == []


def real_text() -> str:
    """Sample documents and the standard library's sources: prose, code, CRLF-free and not."""
    parts = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_DOCS.glob("*")) if p.is_file()]
    for path in sorted(Path(random.__file__).parent.glob("*.py"))[:40]:
        parts.append(path.read_text(encoding="utf-8"))
    return "".join(parts)


@pytest.mark.parametrize("name", ENCODINGS)
def test_random_spans_of_real_text_match_direct_encoding(name):
    text = real_text()
    index = TokenIndex(text, name, get_encoding(name))
    rng = random.Random(7)
    spans = []
    for _ in range(1500):
        a = rng.randrange(len(text))
        spans.append((a, min(len(text), a + rng.choice((3, 40, 300, 2000, 9000)))))
    want = [direct(name, text[a:b]) for a, b in spans]
    assert index.count_spans(spans) == want
    # counted again, the index switches to a per-token table: same counts
    assert index.count_spans(spans[::-1]) == want[::-1]


def test_lone_surrogates_are_counted_like_tiktoken_does():
    text = "plain words \ud800 and more words\n" * 20
    index = TokenIndex(text, "cl100k_base", get_encoding("cl100k_base"))
    for a, b in ((0, len(text)), (5, 200), (13, 400)):
        assert index.count(a, b) == direct("cl100k_base", text[a:b])


def test_counter_reuses_one_index_for_the_same_text_across_re_chunks():
    counter = get_counter("o200k_base")
    text = real_text()
    while len(text) < 2 * token_index_min():
        text += text[: len(text) // 3] + "\n"
    first = [(i, min(len(text), i + 5000)) for i in range(0, len(text), 4500)]
    assert counter.count_spans(text, first) == [direct("o200k_base", text[a:b]) for a, b in first]
    index = cached_index(text, "o200k_base")
    assert index is not None
    # a re-chunk with other sizes, on an equal text object read again, uses the same index
    again = "".join(list(text))
    second = [(i, min(len(again), i + 700)) for i in range(0, len(again), 650)]
    assert cached_index(again, "o200k_base") is index
    assert counter.count_spans(again, second) == [direct("o200k_base", again[a:b]) for a, b in second]


def test_small_texts_are_counted_without_building_an_index():
    counter = get_counter("cl100k_base")
    text = "A short note, not worth an index.\n" * 10
    spans = [(0, 20), (10, len(text))]
    assert counter.count_spans(text, spans) == [direct("cl100k_base", text[a:b]) for a, b in spans]
    assert cached_index(text, "cl100k_base") is None


def token_index_min() -> int:
    from chunktui.engine.core.tokens import INDEX_MIN_CHARS

    return INDEX_MIN_CHARS


def test_span_index_counts_exactly_for_big_and_small_texts():
    counter = get_counter("cl100k_base")
    big = real_text()
    while len(big) < 2 * token_index_min():
        big += big[: len(big) // 2]
    small = big[:5000]
    for text in (big, small):
        index = counter.span_index(text)
        for a, b in ((0, 4000), (1234, 1300), (len(text) - 777, len(text))):
            assert index.count(a, b) == direct("cl100k_base", text[a:b])
    assert cached_index(big, "cl100k_base") is not None
    assert cached_index(small, "cl100k_base") is None


@pytest.mark.parametrize("name", ENCODINGS)
def test_token_ends_are_where_whole_text_tokens_end(name):
    text = "Grüße, 世界! 🎉🎉 naïve café\r\n" * 30
    index = TokenIndex(text, name, get_encoding(name))
    ends = index.token_ends()
    assert ends[0] == 0 and ends[-1] == len(text) and ends == sorted(set(ends))
    # every end is a cut the whole-text encoding makes: the tokens before it decode to the prefix
    enc = get_encoding(name)
    tokens = enc.encode_ordinary(text)
    decoded = 0
    prefixes = set()
    for k in range(len(tokens) + 1):
        prefix = enc.decode_bytes(tokens[:k])
        try:
            prefixes.add(len(prefix.decode("utf-8")))
        except UnicodeDecodeError:  # a cut inside a character: not a place to cut
            decoded += 1
    assert set(ends) <= prefixes | {len(text)}
    assert len(ends) >= len(prefixes) - decoded


PAIR_CHARS = ("s", "Z", "5", ".", "'", " ", "\t", "\n", "(", "/", "_", "é", "٣", "，")


@pytest.mark.parametrize("name", ENCODINGS)
def test_spans_ending_between_any_two_kinds_of_character_match_direct_encoding(name):
    """The anchor rules read the characters on either side of a place (a letter before a digit,
    punctuation before a space or digit, ...): spans that start and end at every place in a text
    holding every three-character sequence of letters, digits, punctuation and whitespace."""
    text = "".join(a + b + c for a in PAIR_CHARS for b in PAIR_CHARS for c in PAIR_CHARS)
    index = TokenIndex(text, name, get_encoding(name))
    spans = [(a, b) for a in range(len(text)) for b in range(a + 1, min(len(text), a + 7) + 1)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


JSON_LIKE = '{\n  "a": [\n\n    1,\n    2\n  ],\n/x,\n\n\t "b": "c",   \n  \n  /y\n}\n'


@pytest.mark.parametrize("name", ENCODINGS)
def test_spans_starting_or_ending_inside_an_indent_match_direct_encoding(name):
    """A span that starts inside an indent counts its spaces apart from the line's text, and one
    that ends inside an indent after punctuation and line feeds counts them apart from it (blank
    lines, trailing spaces and "/" after line feeds are where either would go wrong)."""
    text = "   /" + JSON_LIKE * 3
    index = TokenIndex(text, name, get_encoding(name))
    spans = [(a, b) for a in range(len(text)) for b in range(a, len(text) + 1)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


@pytest.mark.parametrize("name", ENCODINGS)
def test_a_text_holding_surrogate_pairs_counts_as_direct_encoding_does(name):
    """A str may hold a character beyond U+FFFF as two surrogate code units (API callers decoding
    UTF-16 with surrogatepass); tiktoken joins each pair into the one character, which must not
    shift the token ends after it. Lone surrogates too."""
    text = "ab, cd " * 4 + "\ud83d\ude00" + ", x, y. z! " * 4 + "q\ud83d\ude00\ud83d\ude00\n  \ud83d w \ude00 end"
    index = TokenIndex(text, name, get_encoding(name))
    spans = [(a, b) for a in range(len(text)) for b in range(a, len(text) + 1)]
    assert index.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


def test_a_thread_asking_while_another_builds_the_same_index_waits_for_it(monkeypatch):
    """The app builds a big document's index in a background thread; a re-chunk that asks for it
    meanwhile must wait for that build, not encode the whole text a second time."""
    name = "cl100k_base"
    text = real_text() + "\nthe waiting thread's own text\n"
    builds, building, release = [], threading.Event(), threading.Event()

    class HeldIndex(TokenIndex):
        def __init__(self, *args, **options):
            builds.append(threading.current_thread().name)
            building.set()
            release.wait(10)  # the first build lasts until the second thread has asked
            super().__init__(*args, **options)

    monkeypatch.setattr(token_index, "TokenIndex", HeldIndex)
    got = {}

    def ask(who):
        got[who] = token_index.get_index(text, name, get_encoding(name))

    first = threading.Thread(target=ask, args=("background",), name="background")
    first.start()
    assert building.wait(10)
    second = threading.Thread(target=ask, args=("re-chunk",), name="re-chunk")
    second.start()
    second.join(0.5)  # the re-chunk has asked (before the fix it went on to a build of its own)
    release.set()
    first.join(10)
    second.join(10)
    assert builds == ["background"]
    assert got["re-chunk"] is got["background"] is cached_index(text, name)
    spans = [(0, 3000), (len(text) - 5000, len(text))]
    assert got["re-chunk"].count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]


# runs the cuts must not fall inside: a word, a number, an indent, punctuation, letters of other
# scripts with no space, CRLF and blank lines, a lone "/" after line feeds (o200k_base)
BOUNDARY_HOSTILE = (
    "Paragraph one, ok.\r\n\r\n"
    + "x" * 700
    + "\n"
    + "7" * 500
    + " \n"
    + " " * 300
    + "indented(after, spaces);\n"
    + "-=" * 200
    + "\n\n\n/\n/path\n"
    + "日本語のテキスト" * 60
    + "。\n"
    + "naïve café's Ünïcödé 🎉👍🏽\u00a0\u3000 end\t\t\n"
)


@pytest.mark.parametrize("name", ENCODINGS)
def test_blocks_encoded_one_by_one_give_the_whole_texts_tokens(name):
    """The whole-document encode runs in blocks on threads: cut anywhere an anchor allows, the
    blocks' tokens one after the other are the whole text's."""
    text = BOUNDARY_HOSTILE * 3
    encode = get_encoding(name).encode_ordinary
    want = encode(text)
    cut_somewhere = False
    for parts in range(2, 40, 3):
        pieces = token_index.blocks(text, name, parts)
        assert "".join(pieces) == text
        cut_somewhere |= len(pieces) > 1
        assert [t for piece in pieces for t in encode(piece)] == want, parts
    assert cut_somewhere


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=40, deadline=None)
@given(text=fragment_texts, parts=st.integers(min_value=2, max_value=12))
def test_blocks_of_tricky_text_give_the_whole_texts_tokens(name, text, parts):
    encode = get_encoding(name).encode_ordinary
    assert [t for piece in token_index.blocks(text, name, parts) for t in encode(piece)] == encode(text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_an_index_encoded_in_blocks_on_threads_counts_as_one_encode_does(monkeypatch, name):
    text = real_text()[:60_000] + BOUNDARY_HOSTILE * 4 + "\ud83d\ude00 paired\n"
    whole = TokenIndex(text, name, get_encoding(name))
    monkeypatch.setattr(token_index, "_PARALLEL_FROM", 5_000)
    monkeypatch.setattr(token_index, "free_cores", lambda: 4)
    assert len(token_index.blocks(text, name)) == 4
    split = TokenIndex(text, name, get_encoding(name))
    assert split._ends == whole._ends and split._leads == whole._leads
    spans = [(a, min(len(text), a + 1500)) for a in range(0, len(text), 997)]
    assert split.count_spans(spans) == [direct(name, text[a:b]) for a, b in spans]
    lone = "words \ud800 more\n" * 2_000  # a block tiktoken cannot take: the whole text, once
    assert TokenIndex(lone, name, get_encoding(name)).count(0, len(lone)) == direct(name, lone)


def test_blocks_are_encoded_on_threads_of_their_own_while_the_caller_waits():
    """Two blocks on two new threads encoded the 6 MB corpus's halves faster than the first on the
    calling thread and the second on a new one; a lone block stays on the calling thread."""
    name = "cl100k_base"
    text = real_text()[:40_000]
    threads = []
    encode = get_encoding(name)._core_bpe.encode_to_tiktoken_buffer

    def on_which_thread(block: str) -> memoryview:
        threads.append(threading.get_ident())
        return memoryview(encode(block, set())).cast("B")

    blocks = token_index.blocks(text, name, 3)
    assert len(blocks) == 3
    buffers = token_index._on_threads(on_which_thread, blocks, 2)
    assert b"".join(buffers) == bytes(memoryview(encode(text, set())).cast("B"))
    assert len(threads) == 3 and threading.get_ident() not in threads
    threads.clear()
    list(token_index._on_threads(on_which_thread, [text], 1))
    assert threads == [threading.get_ident()]


def test_each_block_is_given_as_soon_as_it_is_encoded_while_the_threads_encode_the_rest():
    """The index builds the first blocks' tables (holding the GIL) while the threads encode the last
    ones: a block's buffer is given before the blocks after it are encoded."""
    name = "cl100k_base"
    text = real_text()[:40_000]
    encode = get_encoding(name)._core_bpe.encode_to_tiktoken_buffer
    blocks = token_index.blocks(text, name, 4)
    first_read = threading.Event()
    waited = []

    def last_after_first_read(block: str) -> memoryview:
        if block is blocks[-1]:
            waited.append(first_read.wait(5))
        return memoryview(encode(block, set())).cast("B")

    buffers = token_index._on_threads(last_after_first_read, blocks, 2)
    got = [bytes(next(buffers))]
    first_read.set()
    got += map(bytes, buffers)
    assert waited == [True] and b"".join(got) == bytes(memoryview(encode(text, set())).cast("B"))


def test_spans_are_counted_while_the_index_encodes_on_another_thread(monkeypatch):
    """The command line starts the index ahead of the chunking; a count asked meanwhile finds each
    span's anchors and own tokens while the document encodes, then waits for its tokens."""
    name = "cl100k_base"
    text = real_text()[:120_000] + " words"
    counter = get_counter(name)
    get_encoding(name)  # built before, as the run's first counts are
    token_index.clear_cache()
    order: list[str] = []
    parted = threading.Event()
    encode, span_parts = TokenIndex._buffers, TokenIndex.span_parts

    def encode_after_parts(self, whole):
        parted.wait(10)
        order.append("encode")
        return encode(self, whole)

    def parts_first(self, spans):
        order.append("parts")
        try:
            return span_parts(self, spans)
        finally:
            parted.set()

    monkeypatch.setattr(TokenIndex, "_buffers", encode_after_parts)
    monkeypatch.setattr(TokenIndex, "span_parts", parts_first)
    counter.index_ahead(text)
    wait_until_encoding(text, name)
    spans = [(a, min(len(text), a + 3000)) for a in range(0, len(text), 2500)]
    assert counter.count_spans(text, spans) == [direct(name, text[a:b]) for a, b in spans]
    assert order == ["parts", "encode"]
    assert cached_index(text, name) is not None


def test_spans_asked_before_the_thread_has_its_encoder_are_still_counted_meanwhile(monkeypatch):
    """The thread ahead first builds tiktoken's encoder (0.1-0.2 s); a count asked then (a token
    chunking's first, right after finding the paragraphs) does not wait for the encode to start."""
    from chunktui.engine.core import tokens

    name = "cl100k_base"
    text = real_text()[:120_000] + " more words"
    counter = get_counter(name)
    get_encoding(name)
    token_index.clear_cache()
    order: list[str] = []
    parted = threading.Event()
    encode, span_parts, encoding = TokenIndex._buffers, TokenIndex.span_parts, tokens.get_encoding

    def encoder_after_parts(which):
        if threading.current_thread().name == "token index":
            parted.wait(3)
        return encoding(which)

    def parts(self, spans):
        order.append("parts")
        return span_parts(self, spans)

    monkeypatch.setattr(tokens, "get_encoding", encoder_after_parts)
    monkeypatch.setattr(TokenIndex, "_buffers", lambda self, whole: order.append("encode") or encode(self, whole))
    monkeypatch.setattr(TokenIndex, "span_parts", lambda self, spans: (parts(self, spans), parted.set())[0])
    counter.index_ahead(text)
    assert token_index.pending_index(text, name) is None
    spans = [(a, min(len(text), a + 3000)) for a in range(0, len(text), 2500)]
    assert counter.count_spans(text, spans) == [direct(name, text[a:b]) for a, b in spans]
    assert order == ["parts", "encode"]
    index = cached_index(text, name)
    assert index is not None and index._fragments  # what the count encoded meanwhile is kept


def test_an_index_that_fails_ahead_is_built_by_the_caller_without_a_traceback(monkeypatch, capfd):
    name = "cl100k_base"
    text = real_text()[:100_000]
    counter = get_counter(name)
    token_index.clear_cache()
    encode, failed = TokenIndex.encode, []

    def fail_once(self):
        if not failed:
            failed.append(threading.get_ident())
            raise MemoryError("the build ahead")
        encode(self)

    monkeypatch.setattr(TokenIndex, "encode", fail_once)
    counter.index_ahead(text)
    spans = [(a, min(len(text), a + 2000)) for a in range(0, len(text), 1800)]
    assert counter.count_spans(text, spans) == [direct(name, text[a:b]) for a, b in spans]
    assert failed and failed[0] != threading.get_ident()
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("params", [{"size": 2048, "overlap": 128}, {"size": 512, "overlap": 50, "unit": "tokens"}])
def test_a_chunking_with_its_index_built_ahead_is_the_chunking_without(monkeypatch, params):
    """chunk_document(index_ahead=True), as the command line runs it: the same chunks and counts,
    with the index encoded on a thread of its own; not for a strategy that samples the text."""
    from chunktui.engine import chunk_document
    from chunktui.engine.readers.documents import Document

    doc = Document.from_text(real_text()[:150_000], "sample.md")
    token_index.clear_cache()
    want = [(c.start, c.end, c.tokens) for c in chunk_document(doc, "recursive", params).chunks]
    token_index.clear_cache()
    ahead = []
    build_ahead = token_index.build_ahead
    monkeypatch.setattr(token_index, "build_ahead", lambda *a: ahead.append(a[1]) or build_ahead(*a))
    got = chunk_document(doc, "recursive", params, index_ahead=True)
    assert ahead == ["cl100k_base"] and [(c.start, c.end, c.tokens) for c in got.chunks] == want
    log = Document.from_text("2026-12-02 07:50:00 INFO started\n" * 5_000, "service.log")
    chunk_document(log, "log", {}, index_ahead=True)
    assert ahead == ["cl100k_base"]


def cut_into_eight_blocks(monkeypatch, least: int = 8_000) -> None:
    """A text of 2 * `least` characters or more is encoded in 8 blocks on 2 threads, as a big
    document is on an idle 2-core machine."""
    monkeypatch.setattr(token_index, "_PARALLEL_FROM", least)
    monkeypatch.setattr(token_index, "free_cores", lambda: 2)
    monkeypatch.setattr(token_index, "_BLOCKS_PER_THREAD", 4)


def eight_blocks_to_encode(monkeypatch):
    """(encoding name, a real text, its counter, the text's 8 blocks) with no index kept: the text
    is encoded in those blocks on 2 threads (cut_into_eight_blocks)."""
    name = "cl100k_base"
    text = real_text()[:160_000]
    get_encoding(name)
    token_index.clear_cache()
    cut_into_eight_blocks(monkeypatch)
    return name, text, get_counter(name), token_index.blocks(text, name, 8)


def wait_until_encoding(text: str, name: str) -> None:
    """Until the thread building the text's index has registered it (pending_index)."""
    for _ in range(1000):
        if token_index.pending_index(text, name) is not None:
            return
        threading.Event().wait(0.01)


def cover_only_when_asked(monkeypatch) -> list[int]:
    """Each block after the first is summed only once a count waits for text past what is covered
    (with 10 s to spare): the encode covers the text front to back no faster than the counts ask,
    so a count that can go on with what is covered does so, whatever the machine's speed. The
    furthest offset asked for is kept, not a signal that one wake-up consumes: a count that asked
    while a block was being summed is not lost (with an Event cleared after each block, three of
    the eight blocks waited out their 10 s). Gives the offsets covered."""
    wanted, covered = [0], []
    asked = threading.Condition()
    cover, covering = TokenIndex._cover, TokenIndex.covering

    def cover_when_asked(self, offset):
        if self._ready and offset > self._ready:
            with asked:
                asked.wait_for(lambda: wanted[0] > self._ready, timeout=10)
        covered.append(offset)
        cover(self, offset)

    def waits(self, offset):
        if self._ready < offset:
            with asked:
                wanted[0] = max(wanted[0], offset)
                asked.notify_all()
        return covering(self, offset)

    monkeypatch.setattr(TokenIndex, "_cover", cover_when_asked)
    monkeypatch.setattr(TokenIndex, "covering", waits)
    return covered


def count_groups(monkeypatch) -> list[int]:
    """The sizes of the groups of spans counted while an index encodes (counts_in_order)."""
    groups: list[int] = []
    in_order = token_index.counts_in_order

    def recorded(*args, **options):
        for group in in_order(*args, **options):
            groups.append(len(group))
            yield group

    monkeypatch.setattr(token_index, "counts_in_order", recorded)
    return groups


def chunks_and_gaps(chunkset) -> tuple[list, list]:
    return [(c.start, c.end, c.tokens, c.embed_tokens, c.metadata) for c in chunkset.chunks], [
        (g.start, g.end, g.reason) for g in chunkset.gaps
    ]


def test_a_count_on_an_index_still_encoding_waits_only_for_the_blocks_its_spans_need(monkeypatch):
    """The encode sums its blocks front to back: a count of spans in the first blocks is exact as
    soon as they are summed, while the last block still encodes (the command line's token
    chunking works on the first paragraphs meanwhile)."""
    name, text, counter, pieces = eight_blocks_to_encode(monkeypatch)
    assert len(pieces) == 8
    last, released = threading.Event(), []
    encode_block = token_index._encode_block

    def last_block_held(long_pieces, bpe, block):
        if block is pieces[-1] or block == pieces[-1]:
            released.append(last.wait(10))
        return encode_block(long_pieces, bpe, block)

    monkeypatch.setattr(token_index, "_encode_block", last_block_held)
    counter.index_ahead(text)
    wait_until_encoding(text, name)
    early = len(text) - len(pieces[-1]) - 2_000
    spans = [(a, min(early, a + 1500)) for a in range(0, early, 700)]
    assert counter.count_spans(text, spans) == [direct(name, text[a:b]) for a, b in spans]
    backwards = spans[::-1]  # not in text order: one group, once the encode covers them all
    groups = list(token_index.counts_in_order(text, name, get_encoding(name), backwards))
    assert groups == [[direct(name, text[a:b]) for a, b in backwards]]
    assert not released and cached_index(text, name) is None  # counted with the last block held
    last.set()
    spans = [(a, min(len(text), a + 1500)) for a in range(0, len(text), 700)]
    assert counter.count_spans(text, spans) == [direct(name, text[a:b]) for a, b in spans]
    assert released == [True] and cached_index(text, name) is not None


@pytest.mark.parametrize(
    "params",
    [
        {"size": 512, "overlap": 50, "unit": "tokens"},
        {"size": 60, "overlap": 20, "unit": "tokens"},
        {"size": 7, "overlap": 0, "unit": "tokens"},
    ],
)
def test_a_token_chunking_runs_front_to_back_while_its_index_encodes(monkeypatch, params):
    """With the index encoding ahead (the command line), the recursive splitter merges and splits
    the paragraphs of each block as soon as the encode covers them: exactly the chunks, counts
    and gaps of counting every paragraph at once."""
    from chunktui.engine import chunk_document
    from chunktui.engine.readers.documents import Document

    text = real_text()[:150_000]
    # tiktoken refuses the last block: the whole text is encoded again and covered at its end
    text = text[:145_000] + "\ud800 a lone surrogate\n\n" + text[145_000:]
    doc = Document.from_text(text, "sample.md")
    token_index.clear_cache()
    want = chunks_and_gaps(chunk_document(doc, "recursive", params))
    token_index.clear_cache()
    cut_into_eight_blocks(monkeypatch)
    covered, groups = cover_only_when_asked(monkeypatch), count_groups(monkeypatch)
    got = chunks_and_gaps(chunk_document(doc, "recursive", params, index_ahead=True))
    assert len(covered) >= 8 and groups[0] > 1 and len([g for g in groups if g > 1]) >= 4, (covered, groups)
    assert got == want


def test_a_build_that_fails_midway_wakes_the_counts_waiting_for_it(monkeypatch, capfd):
    """Counts wait for the blocks their spans need; if the encode fails after some blocks, those
    waiting are woken and counted by a build of their own, exact, without a traceback."""
    name, text, counter, pieces = eight_blocks_to_encode(monkeypatch)
    asked, failed = threading.Event(), []
    encode_block, covering = token_index._encode_block, TokenIndex.covering

    def waits(self, offset):
        if self._ready < offset:
            asked.set()
        return covering(self, offset)

    def fifth_block_fails_once_asked(long_pieces, bpe, block):
        if not failed and block == pieces[4]:
            failed.append(asked.wait(10))  # a count waits for the blocks after the first four
            raise MemoryError("the build ahead")
        return encode_block(long_pieces, bpe, block)

    monkeypatch.setattr(TokenIndex, "covering", waits)
    monkeypatch.setattr(token_index, "_encode_block", fifth_block_fails_once_asked)
    counter.index_ahead(text)
    wait_until_encoding(text, name)
    spans = [(a, min(len(text), a + 1500)) for a in range(0, len(text), 700)]
    got: list = []

    def count() -> None:
        got.extend(token_index.counts_in_order(text, name, get_encoding(name), spans))

    counting = threading.Thread(target=count, daemon=True)
    counting.start()
    counting.join(30)
    assert not counting.is_alive() and failed == [True]
    assert len(got) > 1 and [n for group in got for n in group] == [direct(name, text[a:b]) for a, b in spans]
    assert cached_index(text, name) is not None and "Traceback" not in capfd.readouterr().err


paragraph_texts = st.lists(
    st.one_of(
        fragment_texts,
        st.lists(st.sampled_from(["word", " ", "\n", "x" * 30, "ab cd. ", "\t"]), max_size=200).map("".join),
    ),
    min_size=2,
    max_size=12,
).map("\n\n".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=paragraph_texts, size=st.integers(1, 80), overlap=st.integers(0, 30))
def test_a_token_chunking_of_any_text_is_the_same_front_to_back(monkeypatch, text, size, overlap):
    """Generated paragraphs, words, long runs and tricky fragments, cut into 8 blocks that the
    encode covers one at a time: the chunks of counting all the paragraphs at once."""
    from chunktui.engine import chunk_document
    from chunktui.engine.core import tokens
    from chunktui.engine.readers.documents import Document

    params = {"size": size, "overlap": min(overlap, size - 1), "unit": "tokens"}
    text = (text + "\n\n") * (1 + 2_000 // (len(text) + 2))
    doc = Document.from_text(text, "generated.md")
    with monkeypatch.context() as patched:
        patched.setattr(tokens, "INDEX_MIN_CHARS", 1_000)
        token_index.clear_cache()
        want = chunks_and_gaps(chunk_document(doc, "recursive", params))
        token_index.clear_cache()
        cut_into_eight_blocks(patched, least=len(text) // 2 - 1)
        cover_only_when_asked(patched)
        groups = count_groups(patched)
        got = chunks_and_gaps(chunk_document(doc, "recursive", params, index_ahead=True))
        uncut = len(token_index.blocks(text, "cl100k_base", 8)) == 1  # no anchor to cut at
        token_index.clear_cache()
    assert (len(groups) > 1 or uncut) and got == want


def test_short_spans_counted_at_once_are_not_each_encoded(monkeypatch):
    """A token-unit splitter counts every line it tries, most of them short: counted at once, their
    heads and tails (word ends, indents, which recur) are encoded, not each line whole."""
    monkeypatch.setattr(token_index, "DIRECT_BELOW", 96)  # the default, which count() still uses
    name = "cl100k_base"
    text = real_text()[:100_000]
    index = TokenIndex(text, name, get_encoding(name))
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    lines = [(s, e) for s, e in zip(starts, starts[1:]) if 40 <= e - s < 96]
    lines = list({text[s:e]: (s, e) for s, e in lines}.values())  # distinct lines
    assert len(lines) > 300
    encoded = []
    whole = index._encode
    monkeypatch.setattr(index, "_encode", lambda t: encoded.append(t) or whole(t))
    assert index.count_spans(lines) == [direct(name, text[s:e]) for s, e in lines]
    assert len(encoded) < len(lines) / 2, (len(encoded), len(lines))


def test_the_lead_table_is_cached_per_machine_and_rebuilt_when_damaged(tmp_path, monkeypatch):
    """Characters each token ends: built from the vocabulary once per machine, then read."""
    from chunktui.engine.core import tokens

    name, enc = "cl100k_base", get_encoding("cl100k_base")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(token_index, "_lead_tables", {})
    built = token_index._lead_table(name, enc)
    want = {rank: sum(not 0x80 <= b < 0xC0 for b in token) for token, rank in mergeable_ranks(enc).items()}
    assert [ord(c) for c in built] == [want[rank] for rank in range(len(want))]
    path = tokens.lead_cache_path(name)
    assert path.is_file()
    build = token_index._leads
    monkeypatch.setattr(token_index, "_leads", lambda ranks: pytest.fail("built again"))
    monkeypatch.setattr(token_index, "_lead_tables", {})  # the next process reads the file
    assert token_index._lead_table(name, enc) == built
    path.write_bytes(path.read_bytes()[:-10])
    monkeypatch.setattr(token_index, "_leads", build)
    monkeypatch.setattr(token_index, "_lead_tables", {})
    assert token_index._lead_table(name, enc) == built  # a truncated file is built again
    assert tokens._read_cache(path, tokens.LEAD_MAGIC, name) == built.encode("latin-1")


@pytest.mark.parametrize(("load", "free"), [(0.0, 4), (1.4, 4), (1.6, 3), (2.5, 3), (3.6, 1), (9.0, 1)])
def test_a_text_is_cut_into_blocks_for_the_cores_the_load_leaves_free(monkeypatch, load, free):
    """A second thread pays only where a core is idle: on a busy machine the text stays whole."""
    from chunktui.engine.core import cpus

    monkeypatch.setattr(cpus, "cores", lambda: 4)
    monkeypatch.setattr(cpus.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(token_index, "_PARALLEL_FROM", 2_000)
    assert len(token_index.blocks(BOUNDARY_HOSTILE * 8, "cl100k_base")) == free


def test_free_cores_counts_every_core_where_there_is_no_load_average(monkeypatch):
    """Windows has no os.getloadavg: the encode's block count fell over with AttributeError."""
    from chunktui.engine.core import cpus

    monkeypatch.delattr(cpus.os, "getloadavg")
    monkeypatch.setattr(cpus, "cores", lambda: 3)
    assert cpus.free_cores() == 3
    monkeypatch.setattr(cpus.os, "getloadavg", lambda: (2.2, 0.0, 0.0), raising=False)
    assert cpus.free_cores() == 2  # the calling thread's core and the one the load leaves free


def test_a_command_that_stops_while_the_text_encodes_exits_without_waiting_for_the_encode(tmp_path):
    """A run that fails once the encode has started (here `-s code` on a .md file, found when the
    strategy runs) or is interrupted must end then, not after every block is encoded: the
    interpreter joins a thread pool's workers at exit, and they encoded every block still queued
    first (2.3 s at 30 MB). The blocks' encode is made endless here; the run must still exit."""
    (tmp_path / "big.md").write_text("A line of prose to encode, long enough.\n\n" * 40_000)
    code = (
        "import sys, threading\n"
        "import chunktui.engine.core.token_index as ti\n"
        "ti.free_cores = lambda: 2\n"  # two threads whatever the machine's load
        "ti._encode_block = lambda *a: threading.Event().wait()\n"  # an encode that never ends
        "from chunktui.cli import main\n"
        "sys.exit(main())\n"
    )
    args = [sys.executable, "-c", code, "chunk", "big.md", "-s", "code", "-n"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("chunktui: error: big.md") and "grammar" in proc.stderr
