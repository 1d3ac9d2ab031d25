"""Exact token counts of many spans of one big document, from a single encode pass.

tiktoken splits text with a pre-tokenizer pattern and BPE-encodes each piece on
its own, so a span's count is additive across any position that is a piece
boundary *in every window of text that contains it* and where no piece's match
depends on what follows. We call such positions anchors. Reading both patterns
(cl100k_base, o200k_base), these qualify (`_PAIRS`, `_LINE_FEED`):

* a letter or number followed by whitespace or by punctuation other than an
  apostrophe (or a combining mark, a letter to o200k_base): no alternative puts
  anything but letters (cl100k_base: digits) after a letter or digit in the
  same piece, and a letter/number run stops there whether the text goes on or ends;
  likewise an ASCII letter followed by a digit and a digit followed by a letter;
* ASCII punctuation other than an apostrophe followed by a space, tab or digit: the
  punctuation alternative stops there, and the letter alternative holds punctuation
  only right before letters;
* a line feed followed by a non-whitespace character (for o200k_base, other than
  "/", which its punctuation alternative may glue to preceding newlines): no
  piece holds a newline followed by a non-whitespace character, and the
  whitespace run before it ends in that newline whether the text goes on
  (`\\s*[\\r\\n]`) or ends (`\\s++$`);
* two that hold only in windows holding some context around them (a search for
  them keeps that context inside the span): the end of an ASCII punctuation run
  that a space opens and a letter or digit follows, and a line feed before an
  indented line (see `_AFTER_SPACED_PUNCTUATION` and `_LINE_FEED`);
* two for a window that starts or ends inside an indent, which hold only at its
  start or its end (`_INDENT_START`, `_INDENT_END`).

Both patterns' context-dependent parts (`\\s++$`, `\\s+(?!\\S)`, the possessive
and optional quantifiers) only look at whitespace runs or letter/digit runs,
which an anchor ends, so the pieces of text[x:y] are the pieces of text[x:a]
followed by those of text[a:y] for every anchor a in [x, y]. A span [s, e)
therefore costs: encode text[s:a1] (to the first anchor), look up the
document's tokens between a1 and a2 (the last anchor), encode text[a2:e]. A
fixed margin of pieces would not be exact; anchors are, and the property test
in tests/test_token_index.py checks it against direct encoding.

The index keeps, per document token, the character offset where it ends (summed
from its count of UTF-8 lead bytes, so a token that splits a character is still
placed exactly), so the count of tokens ending by character a is one bisect, among
the tokens of a's block of 512 characters.
"""

from __future__ import annotations

import re
import sys
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from array import array
from functools import partial
from itertools import accumulate, compress, count, repeat
from operator import add, is_, le, not_, rshift, sub

from . import slices
from .compat import core_bpe, mergeable_ranks
from .cpus import free_cores
from .small_bpe import TokenEnds, lead_bytes

_ENDS_SLICE = 1 << 16  # tokens summed per step when every token's end is built
_BLOCK_SHIFT = 9  # characters per block of the table that narrows each bisect: 512
_FRAGMENT_MAX = 48
# spans whose regex matches are held at once: fewer than the garbage collector's first threshold
# (700 new objects), or a 1 MB text's 2,000 matches set off collections that walk them all
_MATCHES_HELD = 512
_FRAGMENTS_KEPT = 100_000
# a span shorter than this is encoded directly by `count`: the two anchor lookups would cost more.
# Not by `count_spans`, whose anchor search covers every span in one pass anyway: its short spans'
# heads and tails recur and are counted in one batch (the 66,000 short spans among a 6 MB token
# chunking's 90,000 took 0.83 s of CPU encoded one by one, 0.41 s in all with them in the batch)
DIRECT_BELOW = 96

_PUNCT = r"!-&(-/:-@\[-`{-~"  # ASCII punctuation but the apostrophe (which may open "'s")
# What may follow a letter or number at an anchor: whitespace, or punctuation that no
# pattern glues to a letter run (ASCII but the apostrophe, and CJK/fullwidth punctuation;
# no marks, which o200k_base counts as letters).
_AFTER_WORD = (
    rf" \t\r\n{_PUNCT}\u3001-\u3003\u3008-\u3011\u3014-\u301f"
    r"\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
)


# Anchors read from the character before them and the one after (the anchor is the end of the
# match): a letter or number followed by _AFTER_WORD (`[^\W_\x00-\x7f]`: a non-ASCII one,
# str.isalnum), and three ASCII pairs: a letter and a digit either way round (no piece holds
# both), and punctuation followed by a space, tab or digit (the punctuation piece stops there, and
# a letter piece takes a punctuation mark only right before its letters). ASCII letters and digits
# come first, each with one lookahead: most characters searched are letters. One character a
# try, never a run: a search tries every position of a run, and a try that read the rest of the
# run made a run without an anchor (a long word: `a` repeated, DNA, CJK without punctuation)
# quadratic, 0.15 s to search 8,000 `a` (now 0.001 s) and minutes for a 50 KB file.
_PAIRS = (
    rf"[A-Za-z](?=[{_AFTER_WORD}0-9])|[0-9](?=[{_AFTER_WORD}A-Za-z])"
    rf"|[{_PUNCT}](?=[ \t0-9])|[^\W_\x00-\x7f](?=[{_AFTER_WORD}])"
)


# A line feed followed by a non-whitespace character (for o200k_base, other than "/", which
# its punctuation alternative may glue to preceding newlines), or by spaces or tabs and a
# non-space (an indented line): the line feed ends its piece (no newline follows to extend it)
# and the indent starts one. The indent rule holds only when the window holds the non-space and
# one more character: ending inside the indent, the window's last whitespace run would be one
# piece (`\s++$`); the extra character keeps it inside a window a last-anchor search reads one
# character past.
_LINE_FEED = {"cl100k_base": r"\n(?=\S|[ \t]+\S[\s\S])", "o200k_base": r"\n(?=[^\s/]|[ \t]+\S[\s\S])"}
# A space, a run of ASCII punctuation (no apostrophe) and then an ASCII letter or digit: both
# patterns start a piece at the space (neither lets a space prefix punctuation in a letter
# piece), take the whole run in it, and start the next piece at the letter. The anchor is the
# run's end, but only in windows that hold the space: without it the run may prefix the letters.
_AFTER_SPACED_PUNCTUATION = rf" [{_PUNCT}]+(?=[A-Za-z0-9])"
# Two rules for a window that starts or ends inside an indent (JSON and code cut mid-line),
# whose whitespace would otherwise be encoded with the text next to it each time:
# * at the window's start, in a run of spaces that a space and a non-space end: both patterns
#   end a piece before that last space (`\s+(?!\S)`), in the document (after any line feed in
#   the run, which `\s*[\r\n]` ends) and in the window, whose run holds no line feed. Only after
#   a space or tab: after anything else the pair or line feed rules anchor at the window's start.
#   The non-space and one more character are read (as in _LINE_FEED) so that the window holds the
#   non-space even where this anchor is its last (a span at the text's start).
_INDENT_START = r"[ \t] +(?= \S[\s\S])"
# * at the window's end, after punctuation and line feeds followed by spaces or tabs up to the
#   window's end (the match reads one character past it) or, right at it, by anything but a line
#   feed or "/": the punctuation piece takes the line feeds (`[\r\n]*+`, `[\r\n/]*`) and ends there.
_INDENT_END = rf"[{_PUNCT}]\n+(?=[ \t]+[\s\S]\Z|[^\r\n/]\Z)"
# `\S` excludes str.isspace, a superset of the White_Space set tiktoken's regex uses, so the
# rules only ever under-report anchors.
# A window [s, e)'s first and last anchors, in one match from s - 1 (where the pairs read the
# character before s) to e + 1 (where they read the one after e). Group 1 is the indent rule at
# the start, or runs lazily to the first anchor, else to the end (`\Z`); its spaced rule opens
# with the character before its space, so that the space is never s - 1, which the window does
# not hold. Then a greedy `.*` runs to the end and backs off to the rightmost place an anchor
# rule matches; when there is none the optional group matches nothing, and the match ends
# where group 1 does.
_ANCHOR_PATTERNS = {
    name: re.compile(
        rf"(?s)({_INDENT_START}|.*?(?:{_PAIRS}|{nl}|[\s\S]{_AFTER_SPACED_PUNCTUATION}|\Z))"
        rf"(?:.*(?:{_PAIRS}|{nl}|{_AFTER_SPACED_PUNCTUATION}|{_INDENT_END}))?"
    )
    for name, nl in _LINE_FEED.items()
}
_match_end = re.Match.end

# Anchors that hold in the whole text: the pairs and the line feed, read with the text around them
# as context (never the rules that hold only at a window's edge). The text's pieces are those of
# the text before such an anchor followed by those of the text after it. A search reads at most to
# `hi` plus a margin: a lookahead cut short there fails, so it can only miss an anchor.
_SPLITS = {name: re.compile(rf"{_PAIRS}|{nl}") for name, nl in _LINE_FEED.items()}
_LAST_SPLITS = {name: re.compile(rf"(?s).*(?:{_PAIRS}|{nl})") for name, nl in _LINE_FEED.items()}
_LOOKAHEAD_MARGIN = 64
# A text of at least twice this many characters is encoded in blocks on threads, one per free core
# (see blocks): a block of 512 K characters takes about 0.1 s to encode, a thread under 1 ms to start
_PARALLEL_FROM = 512 * 1024
_CUT_REACH = 4096  # characters searched for an anchor to cut at, from each 1/parts of the text
# blocks each encode thread takes in turn (see TokenIndex._buffers): what a count waiting for the last
# block does after the encode ends is one block's work (the 6 MB corpus's `--unit tokens` 512/50,
# chunk_document from the encode's end to its return, medians of 12: 88 ms with 4, 61 ms with 8)
_BLOCKS_PER_THREAD = 8


def split_finders(name: str):
    """(last_before, first_after) for encoding `name`: the last anchor in [lo, hi] and the first
    in [lo, hi] of a text (see _SPLITS), or None."""
    find, last = _SPLITS[name].search, _LAST_SPLITS[name].match

    def last_before(text: str, lo: int, hi: int) -> int | None:
        m = last(text, max(lo - 1, 0), hi + 1)  # the pairs read the character after the anchor
        return m.end() if m and m.end() >= lo else None

    def first_after(text: str, lo: int, hi: int) -> int | None:
        m = find(text, max(lo - 1, 0), hi + _LOOKAHEAD_MARGIN)
        return m.end() if m and m.end() <= hi else None

    return last_before, first_after


# ASCII text that each pattern reads as one piece: letters, after at most one space or punctuation
# mark that is not an apostrophe (which may open a contraction); o200k_base also splits a
# lowercase letter from the capital after it ("camelCase" is two pieces); or only spaces (the
# whitespace alternatives take a run to the text's end whole); or punctuation after at most one
# space (the punctuation alternative takes it all: no letter follows to make "'s" or a prefix)
_ONE_PIECE_PATTERNS = {
    "cl100k_base": re.compile(r"[ !-&(-/:-@\[-`{-~]?[A-Za-z]+| +| ?[!-/:-@\[-`{-~]+"),
    "o200k_base": re.compile(r"[ !-&(-/:-@\[-`{-~]?(?:[A-Z]*[a-z]+|[A-Z]+[a-z]*)| +| ?[!-/:-@\[-`{-~]+"),
}
# A run of ASCII digits is pieces of three digits from its start, and in both encodings every
# string of one to three digits is one token: n digits are (n + 2) // 3 tokens.
_DIGIT_RUN = re.compile(r"[0-9]+").fullmatch
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"  # tiktoken's buffer: native u32

_lead_tables: dict[str, str] = {}
_cache: OrderedDict = OrderedDict()
_CACHE_SIZE = 4
_lock = threading.Lock()
_building: dict[tuple, threading.Event] = {}  # indexes being built, by cache key
_pending: dict[tuple, TokenIndex] = {}  # those of them that are encoding (see pending_index)


def _lead_table(name: str, encoding) -> str:
    """Characters each token id ends (its bytes minus UTF-8 continuation bytes), as a
    str.translate table: character k is chr(what token k ends). Cached per machine with the
    vocabulary's other tables (tokens.py)."""
    table = _lead_tables.get(name)
    if table is None:
        from .tokens import LEAD_MAGIC, cached_payload, lead_cache_path

        lead = cached_payload(lead_cache_path(name), LEAD_MAGIC, name, partial(_leads, mergeable_ranks(encoding)))
        table = _lead_tables[name] = lead.decode("latin-1")
    return table


def _leads(ranks: dict[bytes, int]) -> bytes:
    """What each token ends, a byte a token: the lead table's payload."""
    lead = bytearray(max(ranks.values()) + 1)
    for token, rank in ranks.items():
        lead[rank] = lead_bytes(token)
    return bytes(lead)


class TokenIndex(TokenEnds):
    """One document encoded once; `count(s, e)` is exact for any span of it."""

    _ends: array  # each token's end, summed as the blocks are encoded
    _leads: bytes

    def __init__(self, text: str, name: str, encoding, *, encode: bool = True):
        """The index of `text`; with `encode=False` only what `span_parts` needs, until `encode()`."""
        if name not in _LINE_FEED:
            raise ValueError(f"no anchor rule proven for encoding {name!r}")
        self.text = text
        self.name = name
        self._encode = core_bpe(encoding).encode_ordinary
        self._encoding = encoding
        self._anchors_in: Callable[[str, int, int], re.Match[str]]
        self._anchors_in = _ANCHOR_PATTERNS[name].match  # type: ignore[assignment]  # matches at every position
        self._fragments: dict[str, int] = {}
        self._one_piece = _ONE_PIECE_PATTERNS[name].fullmatch
        # how far the encode has summed its blocks' token ends, front to back (see `covering`): a
        # count whose anchors lie before it is exact while the later blocks still encode
        self._ready = 0
        self._given_up = False  # the encode failed: nobody waits for it any longer
        self._covered = threading.Condition()
        self._ends = array("I")
        self._block_first: list[int] = []
        self._block_last: list[int] = []
        if encode:
            self.encode()

    def encode(self) -> None:
        """The whole-document encode pass and the tables every count reads, built front to back:
        each block's token ends and its part of the block table as soon as it and those before it
        are encoded, so that counts of the spans it covers need not wait for the rest."""
        text, name = self.text, self.name
        # chars ended by each token (0..255 fits a byte: a token is at most a few dozen bytes), each
        # block's as soon as its thread has encoded it (see _buffers)
        table = _lead_table(name, self._encoding)
        self._surrogates = False
        kept: list[bytes] = []
        try:
            buffers = self._buffers(text)
            for data, block_end in zip(buffers, self._block_ends):
                part = list(_lead_slices([data], table))
                self._sum_ends(part, self._ends)
                kept += part
                self._cover(block_end)
        except UnicodeEncodeError:
            # surrogates: let tiktoken apply its own replacement, as `count` would. The blocks
            # already covered hold none (each block's encode refuses them): their ends stand, as
            # the text before the first surrogate encodes alike either way, and the rest is
            # covered only once the whole text is
            self._surrogates = True
            whole = memoryview(array("I", self._encoding.encode_ordinary(text))).cast("B")
            kept = list(_lead_slices([whole], table))
            ends = _past_pairs(self._sum_ends(kept, array("I")), text)
            self._ends[len(self._ends) :] = ends[len(self._ends) :]
        self._leads = b"".join(kept)
        self.total_tokens = len(self._leads)
        self._cover(len(text))

    def _cover(self, offset: int) -> None:
        """Mark the text up to `offset` encoded (its tokens' ends summed): the table of tokens
        ending before each block of 512 characters grows to it, and the threads waiting for it
        (`covering`) wake. The table lets a span's bisects search one block's tokens, in memory
        close together, instead of the whole document's (about 0.6x of their cost at 1 MB, less
        at 10 MB; building it costs about 0.01x of the encode pass). Lists: their items are read
        without making an int each time. A block's entry is final once the text past it is
        covered; until then the last one's end is every token summed, an upper bound for the
        bisects of offsets it covers. Slices of 4096 blocks: a 100 MB text's 200 k bisects in
        one call held the GIL ~300 ms."""
        first, last, ends = self._block_first, self._block_last, self._ends
        block = 1 << _BLOCK_SHIFT
        # the entries of blocks starting by `offset`; past the text's end, two more (a span's end
        # reads its block's and the next one's)
        stop = offset + 1 if offset < len(self.text) else len(self.text) + 2 * block
        starts, tokens_by = range(len(first) * block, stop, block), partial(bisect_right, ends)
        for i in range(0, len(starts), 4096):
            more = list(map(tokens_by, starts[i : i + 4096]))
            if last:
                last[-1] = more[0]
            first += more
            last += more[1:]
            last.append(0)
        last[-1] = len(ends)  # the last block's, even when no block starts in what was added
        with self._covered:
            self._ready = min(offset, len(self.text))
            self._covered.notify_all()

    def covering(self, offset: int) -> int:
        """Wait until the encode covers character `offset` (its tokens ending by then are all
        summed, and `count_spans`/`finish_spans` of spans whose last anchor is there are exact),
        and say how far it covers now: the text's length once built, -1 if the encode failed."""
        if self._ready >= offset:
            return self._ready
        with self._covered:
            while self._ready < offset and not self._given_up:
                self._covered.wait()
            return -1 if self._ready < offset else self._ready

    def _give_up(self) -> None:
        """The encode failed: wake those waiting for it (see `covering`), who count otherwise."""
        with self._covered:
            self._given_up = True
            self._covered.notify_all()

    def _buffers(self, text: str) -> Iterator[memoryview]:
        """tiktoken's packed buffers of the text's blocks, in order, each as soon as it is encoded.
        A long text is encoded in blocks on threads, one thread per free core (see blocks) and
        _BLOCKS_PER_THREAD blocks a thread, so that the first blocks' tables are built (holding the
        GIL) while the threads encode the last ones."""
        from .tokens import long_piece_encoder

        encode = partial(_encode_block, long_piece_encoder(self.name), core_bpe(self._encoding))
        threads = _threads_for(text)
        texts = blocks(text, self.name, threads * _BLOCKS_PER_THREAD if threads > 1 else 1)
        self._block_ends = list(accumulate(map(len, texts)))  # where each block's tokens end
        return _on_threads(encode, texts, threads)

    def _encode_text(self, text: str) -> list[int]:
        try:
            return self._encode(text)
        except UnicodeEncodeError:
            # lone surrogates: let tiktoken apply its own replacement, as `count` would
            return self._encoding.encode_ordinary(text)

    def _count_text(self, text: str) -> int:
        """Tokens of a span's head or tail; short ones recur (word ends, indents), so keep them."""
        if len(text) > _FRAGMENT_MAX:
            return len(self._encode_text(text))
        count = self._fragments.get(text)
        if count is None:
            count = len(self._encode_text(text))
            self._remember({text: count})
        return count

    def _remember(self, counts: dict[str, int]) -> None:
        """Keep short fragments' counts, up to a bound: a full table is replaced, not emptied,
        so a thread still reading it is not disturbed."""
        if max(map(len, counts)) > _FRAGMENT_MAX:
            counts = {f: n for f, n in counts.items() if len(f) <= _FRAGMENT_MAX}
        if len(self._fragments) + len(counts) > _FRAGMENTS_KEPT:
            self._fragments = {}
        self._fragments.update(counts)

    def _parts(self, s: int, e: int) -> tuple[int, int, int]:
        """(n, a1, a2): text[s:e] holds n tokens of its own plus the document's tokens between
        anchors a1 and a2 (none when a1 == a2, for a span encoded whole). The text's start and
        end are anchors too."""
        text = self.text
        if e - s >= DIRECT_BELOW:
            m = self._anchors_in(text, s - 1, e + 1)
            a1 = m.end(1) if s else 0
            a2 = e if e == len(text) else m.end()
            if a1 < a2 <= e:  # not the end of the search (`\Z` at e + 1)
                fragments = self._fragments  # heads and tails recur: most are a dict lookup
                head, tail = text[s:a1], text[a2:e]
                n_head, n_tail = fragments.get(head), fragments.get(tail)
                return (
                    (
                        (self._count_text(head) if n_head is None else n_head)
                        + (self._count_text(tail) if n_tail is None else n_tail)
                    ),
                    a1,
                    a2,
                )
        return self._count_text(text[s:e]), 0, 0

    def count(self, s: int, e: int) -> int:
        """Exact token count of text[s:e]."""
        n, a1, a2 = self._parts(s, e)
        return n + self.tokens_before(a2) - self.tokens_before(a1) if a2 else n

    @staticmethod
    def _sum_ends(leads: Iterable[bytes], ends: array) -> array:
        """Every token's end appended to `ends` (the leads' characters summed on from its last),
        so that a span's anchors are one bisect each: about 0.08x of the encode pass to build, and
        it halves the cost of every later count. Each slice summed as it comes (a block's, while
        the threads encode the next ones), in steps: one C call for all would hold the GIL (and
        the app) for 0.1 s on a 10 MB text."""
        for lead in leads:
            for i in range(0, len(lead), _ENDS_SLICE):
                part = accumulate(lead[i : i + _ENDS_SLICE], initial=ends[-1] if ends else 0)
                next(part)  # the carry: the previous slice's last end
                ends.extend(part)
        return ends

    def _count_fragments(self, fragments: list[str]) -> dict[str, int]:
        """Each fragment's count. Most are a word's end or a space and a word's start, one
        pre-tokenizer piece, which tiktoken encodes about 3x faster without its regex; a run of
        digits needs no encoding (see _DIGIT_RUN)."""
        one_piece = list(map(bool, map(self._one_piece, fragments)))
        pieces = list(compress(fragments, one_piece))
        counts = dict(zip(pieces, map(len, map(core_bpe(self._encoding).encode_single_piece, map(str.encode, pieces)))))
        others = list(compress(fragments, map(not_, one_piece)))
        numbers = list(map(_DIGIT_RUN, others))
        counts.update((digits, (len(digits) + 2) // 3) for digits in compress(others, numbers))
        others = list(compress(others, map(not_, numbers)))
        counts.update(zip(others, map(len, map(self._encode_text, others))))
        return counts

    def _tokens_before_each(self, offsets: list[int]):
        """tokens_before of each offset, each bisect within the block that holds it."""
        blocks = list(map(rshift, offsets, repeat(_BLOCK_SHIFT)))
        return map(
            bisect_right,
            repeat(self._ends),
            offsets,
            map(self._block_first.__getitem__, blocks),
            map(self._block_last.__getitem__, blocks),
        )

    def count_spans(self, spans) -> list[int]:
        """Exact counts of many spans, each step one C-level pass over all of them (at 20,000
        spans a Python loop per span cost as much as the counting): every span's first and last
        anchor, its head and tail counted (looked up, or encoded once per distinct fragment),
        the document's tokens between the anchors; the rare span with no anchors is counted on
        its own. Short spans too (see DIRECT_BELOW)."""
        return self.finish_spans(*self.span_parts(spans))

    def span_parts(self, spans) -> tuple[list[int], list[int], list[int]]:
        """What count_spans reads besides the document's tokens, which may still be encoding on
        other threads (see build_ahead): each span's own tokens and its first and last anchor."""
        spans = list(spans)  # read twice below
        starts = [s for s, _ in spans]
        if not starts:
            return [], [], []
        ends = [e for _, e in spans]
        text = self.text
        # each span's first and last anchors (see _ANCHOR_PATTERNS); a span with no second one is
        # counted whole
        a1s: list[int] = []
        a2s: list[int] = []
        for i in range(0, len(starts), _MATCHES_HELD):
            matches = list(
                map(
                    self._anchors_in,
                    repeat(text),
                    map(sub, starts[i : i + _MATCHES_HELD], repeat(1)),
                    map(add, ends[i : i + _MATCHES_HELD], repeat(1)),
                )
            )
            a1s += map(_match_end, matches, repeat(1))
            a2s += map(_match_end, matches)
        whole = [i for i, s, e, a1, a2 in zip(count(), starts, ends, a1s, a2s) if a2 <= a1]
        for i in whole:  # their own fragments are counted below; none here
            a1s[i], a2s[i] = starts[i], ends[i]
        # over a whole chunking each pass below is sliced (slices.py): one C call over 117,000 spans
        # held the GIL, and froze the app, for up to 170 ms
        heads, tails = slices.texts(text, starts, a1s), slices.texts(text, a2s, ends)
        # heads and tails recur (word ends, indents): most are in the table kept across calls. This
        # call reads its own copy of what it needs, as another thread may count on the same index
        distinct: set[str] = set()
        for i in range(0, len(heads), slices.STEP):
            distinct.update(heads[i : i + slices.STEP], tails[i : i + slices.STEP])
        fragments = list(distinct)
        known = list(map(self._fragments.get, fragments))
        new = list(compress(fragments, map(is_, known, repeat(None))))
        counts = dict(zip(fragments, known))
        if new:
            new_counts = self._count_fragments(new)
            counts.update(new_counts)
            self._remember(new_counts)
        own = slices.mapped(add, slices.mapped(counts.__getitem__, heads), slices.mapped(counts.__getitem__, tails))
        for i in whole:
            own[i], a1s[i], a2s[i] = self._parts(starts[i], ends[i])
        return own, a1s, a2s

    def finish_spans(self, own: list[int], a1s: list[int], a2s: list[int]) -> list[int]:
        """count_spans from span_parts of the same text: each span's own tokens plus the
        document's between its anchors."""
        out: list[int] = []
        for i in range(0, len(own), slices.STEP):
            step = slice(i, i + slices.STEP)
            out += map(
                add, own[step], map(sub, self._tokens_before_each(a2s[step]), self._tokens_before_each(a1s[step]))
            )
        return out


def _threads_for(text: str) -> int:
    """Threads to encode `text` on: one per free core (see cpus.free_cores), each with at least
    _PARALLEL_FROM characters."""
    return min(free_cores(), len(text) // _PARALLEL_FROM)


def blocks(text: str, name: str, parts: int | None = None) -> list[str]:
    """The text cut into `parts` blocks (by default one per free core, see cpus.free_cores, each
    at least _PARALLEL_FROM characters) at anchors that hold in the whole text (see _SPLITS), so
    that its tokens are those of the blocks one after the other. A cut goes at the first anchor
    within _CUT_REACH characters after each 1/parts of the text; where there is none (a long run of
    one kind of character), the text is not cut there."""
    if parts is None:
        parts = _threads_for(text)
    if parts < 2:
        return [text]
    first_after = split_finders(name)[1]
    cuts = [0]
    for i in range(1, parts):
        at = i * len(text) // parts
        a = first_after(text, at, min(len(text), at + _CUT_REACH))
        if a is not None and cuts[-1] < a < len(text):
            cuts.append(a)
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts, cuts[1:])]


def _encode_block(long_pieces, bpe, text: str) -> memoryview:
    """tiktoken's packed buffer of the block's tokens (a block holding a huge piece: the long
    pieces' encoder's), as bytes."""
    tokens = long_pieces.encode(text)
    if tokens is None:
        tokens = bpe.encode_to_tiktoken_buffer(text, set())
    return memoryview(tokens).cast("B")


def _on_threads(encode: Callable[[str], memoryview], texts: list[str], threads: int) -> Iterator[memoryview]:
    """The blocks encoded on `threads` threads of their own (tiktoken releases the GIL while it
    encodes, so the blocks are encoded on as many cores as are free), in order, each given as soon
    as it and those before it are done; a lone block on this thread. Not the first block on this
    thread and the others on new ones: the 6 MB corpus's two halves took 0.81-1.09 s so against
    0.62-0.68 s on two new threads while this one waited (an idle 2-core machine; why was not
    found).

    Daemon threads, not a ThreadPoolExecutor: the interpreter joins a pool's workers at exit, and
    they first encode every block still queued, so a command that stopped early (a bad option
    found once the encode had started, Ctrl-C) waited for the whole encode (2.3 s at 30 MB). A
    thread takes the next block only while the blocks are still wanted."""
    if len(texts) == 1:
        yield encode(texts[0])
        return
    results: list[memoryview | BaseException | None] = [None] * len(texts)
    done = [threading.Event() for _ in texts]
    wanted = threading.Event()
    wanted.set()
    order = count()  # shared by the threads: next() on it is one step under the GIL

    def work() -> None:
        for i in order:
            if i >= len(texts) or not wanted.is_set():
                return
            try:
                results[i] = encode(texts[i])
            except BaseException as exc:  # handed to the reader, as pool.map would
                results[i] = exc
            done[i].set()

    for _ in range(threads):
        threading.Thread(target=work, name="token encode", daemon=True).start()
    try:
        for i, event in enumerate(done):
            event.wait()
            value, results[i] = results[i], None
            if isinstance(value, BaseException):
                raise value
            assert value is not None  # set before its event
            yield value
    finally:
        wanted.clear()


def _lead_slices(buffers: Iterable[memoryview], table: str) -> Iterator[bytes]:
    """What each token of the buffers ends, a byte a token, in slices of 512 k tokens as the
    buffers come: each slice read one character per token id (no Python int per token) and mapped
    through the lead table by str.translate (the whole pass costs about 0.1x of the encoding less
    than a list would). Slices, not one str: decoding and joining a 100 MB log's 25 M tokens held
    the GIL, and froze the app, for 320 ms; one translate of a 10 MB text's tokens 80 ms."""
    step = _ENDS_SLICE * 32  # bytes: 512 k tokens of 4 bytes, about 5 ms of decoding
    for data in buffers:
        for i in range(0, len(data), step):
            # ids in the surrogate range are tokens too
            yield bytes(data[i : i + step]).decode(_UTF32, "surrogatepass").translate(table).encode("latin-1")


_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _past_pairs(ends: array, text: str) -> array:
    """Token ends moved from the text tiktoken encoded to `text`: tiktoken's replacement of
    surrogates joins each pair of them (a str may hold a character beyond U+FFFF as two code
    units) into the one character, so every end after a pair is one short per pair before it."""
    joined = [m.start() - k for k, m in enumerate(_SURROGATE_PAIR.finditer(text))]  # where each pair sits once joined
    if not joined:
        return ends
    return array(ends.typecode, map(add, ends, map(partial(bisect_left, joined), ends)))


# The first place in a text that follows a context header (which ends in a line feed) where the
# _LINE_FEED rule anchors: its start, as if right after that line feed, or just after a line feed of
# its own. The tokens of header + text are then those of header + text[:a] and of text[a:], and
# text[a:] has the tokens of text less those of text[:a]: counting needs no more than text[:a].
_FIRST_LINE_ANCHOR = {name: re.compile(r"(?:\A|\n)" + pattern[2:]).search for name, pattern in _LINE_FEED.items()}


def first_line_anchor(name: str, text: str) -> int | None:
    """The first anchor of `text` under encoding `name` at its start (read as if a line feed came
    before it) or after one of its line feeds (see _LINE_FEED); None when it has none."""
    m = _FIRST_LINE_ANCHOR[name](text)
    return None if m is None else m.end()


def cached_index(text: str, name: str) -> TokenIndex | None:
    """The index already built for this text and encoding, if any (no work otherwise)."""
    key = (name, len(text), hash(text))
    with _lock:
        index = _cache.get(key)
        if index is not None and (index.text is text or index.text == text):
            _cache.move_to_end(key)
            return index
    return None


def get_index(text: str, name: str, encoding) -> TokenIndex:
    """The TokenIndex of `text` under encoding `name`, reused across re-chunks of the same text.

    One build per text at a time: a thread that asks while another builds the same index waits
    for it (the app builds a big document's index in the background, and a re-chunk asking
    meanwhile would otherwise encode the whole text a second time, 20-35 s at 100 MB)."""
    key = (name, len(text), hash(text))
    while (index := cached_index(text, name)) is None:
        with _lock:
            building = _building.get(key)
            mine = building is None
            if building is None:
                building = _building[key] = threading.Event()
        if not mine:
            building.wait()  # then look again: built, or failed (and this thread tries itself)
            continue
        return _build(key, text, name, lambda: encoding, building)
    return index


def is_building(text: str, name: str) -> bool:
    """Whether a thread is building this text's index now (get_index would wait for it)."""
    with _lock:
        return (name, len(text), hash(text)) in _building


def build_ahead(text: str, name: str) -> None:
    """Start building the index of `text` on a thread of its own, unless it is built or being
    built, for a caller that will count spans over most of the text: the encode releases the GIL,
    so the caller works on (a strategy chunking in characters) while it runs, and its counts find
    the index built or wait for it (get_index). A build that fails is left to the caller's own
    get_index to try again and report."""
    key = (name, len(text), hash(text))
    with _lock:
        if key in _building or key in _cache:
            return
        building = _building[key] = threading.Event()
    from .tokens import get_encoding

    def build() -> None:
        try:
            _build(key, text, name, partial(get_encoding, name), building)
        except Exception:  # the caller's own get_index tries again and reports it
            pass

    threading.Thread(target=build, name="token index", daemon=True).start()


def _build(key: tuple, text: str, name: str, encoding: Callable[[], object], building: threading.Event) -> TokenIndex:
    """Build and keep the index under `key`, then wake the threads waiting on `building`. While it
    encodes, other threads may read it as pending_index."""
    try:
        index = TokenIndex(text, name, encoding(), encode=False)
        with _lock:
            _pending[key] = index
        try:
            index.encode()
        except BaseException:
            index._give_up()
            raise
        with _lock:
            _cache[key] = index
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
        return index
    finally:
        with _lock:
            del _building[key]
            _pending.pop(key, None)
        building.set()


def counts_while_encoding(text: str, name: str, encoding, spans: list[tuple[int, int]]) -> list[int]:
    """count_spans of the index a thread is building for this text: each span's anchors and own
    tokens found while that thread encodes (on the index it encodes, or one made here if it has not
    made it yet), then its tokens waited for, only until the encode covers the spans' last anchors
    (the encode sums its blocks front to back)."""
    return [n for group in counts_in_order(text, name, encoding, spans, whole=True) for n in group]


def counts_in_order(text: str, name: str, encoding, spans, whole: bool = False) -> Iterator[list[int]]:
    """count_spans of spans in text order (their ends never decreasing) on the index a thread is
    building for this text, a group at a time front to back, each as soon as the encode covers it:
    a caller works on the first spans' counts while the encode goes on. With `whole`, one group,
    once the encode covers every span's last anchor. Each span's anchors and own tokens are found
    first (see counts_while_encoding); if the build fails, the rest are counted by get_index,
    which builds the index again (and reports its error)."""
    spans = list(spans)
    building = pending_index(text, name)
    ahead = building or TokenIndex(text, name, encoding, encode=False)
    own, a1s, a2s = ahead.span_parts(spans)
    building = building or pending_index(text, name)  # its thread may have made it meanwhile
    done = 0
    if building is not None:
        if building is not ahead and ahead._fragments:
            building._remember(ahead._fragments)
        # a span's last anchor is never past its end (the anchor rules read the character after
        # it, which a search to the span's end + 1 holds only for the end itself)
        lasts = [] if whole else [e for _, e in spans]
        if whole or not all(map(le, lasts, lasts[1:])):  # out of order: counted once all are covered
            whole, lasts = True, [max(a2s, default=0)]
        while done < len(own):
            covered = building.covering(lasts[0] if whole else lasts[done])
            if covered < 0:  # the build failed
                break
            upto = len(own) if whole else bisect_right(lasts, covered, done)
            yield building.finish_spans(own[done:upto], a1s[done:upto], a2s[done:upto])
            done = upto
    if done < len(own):
        index = get_index(text, name, encoding)
        if index is not ahead and ahead._fragments:
            index._remember(ahead._fragments)
        yield index.finish_spans(own[done:], a1s[done:], a2s[done:])


def pending_index(text: str, name: str) -> TokenIndex | None:
    """The index of this text that a thread is encoding now, for its `span_parts` (then
    get_index waits for the encode), or None."""
    with _lock:
        index = _pending.get((name, len(text), hash(text)))
    return index if index is not None and (index.text is text or index.text == text) else None


def clear_cache() -> None:
    """Forget every kept index (frees memory; the next count re-encodes its document)."""
    with _lock:
        _cache.clear()


def anchor_rules(name: str) -> Callable[[str, int, int], re.Match[str]]:
    """The match of a span's first and last anchors that TokenIndex._parts reads (see
    _ANCHOR_PATTERNS): small_bpe's index of a short text counts its spans by the same rules."""
    return _ANCHOR_PATTERNS[name].match  # type: ignore[return-value]  # matches at every position
