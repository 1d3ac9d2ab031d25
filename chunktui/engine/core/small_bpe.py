"""tiktoken's tokens for short texts, without building tiktoken's encoder.

`tiktoken.Encoding()` builds its Rust tables from the whole rank dict (100,000 or 200,000
entries) on every run: 100-165 ms, and loading that dict 47 ms more, against a few
milliseconds to encode a 1 KB file. For a short run, this module does what tiktoken's
`encode_ordinary` does, in Python, step by step as its Rust does it:

* The pre-tokenizer: each encoding's pattern with its classes written out for ASCII
  (`\\p{L}` is `[A-Za-z]`, `\\p{N}` is `[0-9]`, `\\s` is Unicode's White_Space, which in
  ASCII is tab to carriage return and space, not the separators 0x1C-0x1F that Python's
  `\\s` holds; `$` is `\\Z`, since Python's `$` also matches before a final line feed).
  A character beyond ASCII is read through a stand-in of the same classes (`skeleton`): its
  general category in Python's Unicode database picks an ASCII letter, digit or punctuation,
  a tab for White_Space, or one of two stand-ins the patterns add to their classes (Lm and
  Lo; marks, which o200k_base's letter classes hold). Python's `re` has no `\\p{..}`, and
  the stand-ins cost a set of the text's characters beyond ASCII and one `re.sub` (0.14 ms
  for 1 KB), against 16 ms to import the `regex` module and compile the pattern. A character
  this Python's database does not assign (tiktoken's may be a newer Unicode) or a lone
  surrogate is left to tiktoken (`fits`). Every character Unicode 14 assigns was checked
  against tiktoken 0.14 in 11 contexts: none differs.
* Each piece that is a token is that token; any other is merged as tiktoken's
  `_byte_pair_merge` merges its UTF-8 bytes: the adjacent pair whose bytes have the lowest
  rank, the leftmost of equals, until no pair is a token.

The ranks are read from `RankTable`, a hash table laid out in one cached file, so a lookup
reads a few slots of it instead of a dict of the whole vocabulary being built first.
`SmallIndex` reads a short text as token_index.TokenIndex does a long one.
tests/test_small_bpe.py compares the tokens with tiktoken's on generated texts for every
encoding chunktui offers.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, compress
from zlib import crc32

ASCII_SPACE = r"\t-\r "  # Unicode's White_Space in ASCII: tab, line feed, vertical tab, form feed, CR, space
# Unicode's White_Space beyond ASCII (unchanged since Unicode 6.3, which took U+180E out): the
# characters tiktoken's `\s` matches there; Python's `str.isspace` differs (it holds 0x1C-0x1F)
OTHER_SPACE = "\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
STAND_IN_LETTER = "\u4e2d"  # 中 (Lo): the stand-in of Lm and Lo, in both of o200k_base's letter classes
STAND_IN_MARK = "\u0301"  # a combining mark (Mn): a letter to o200k_base's classes, not to \p{L}

PATTERNS = {
    "cl100k_base": "|".join(
        [
            r"'(?i:[sdmt]|ll|ve|re)",
            rf"[^\r\nA-Za-z{STAND_IN_LETTER}0-9]?+[A-Za-z{STAND_IN_LETTER}]++",
            r"[0-9]{1,3}+",
            rf" ?[^{ASCII_SPACE}A-Za-z{STAND_IN_LETTER}0-9]++[\r\n]*+",
            rf"[{ASCII_SPACE}]++\Z",
            rf"[{ASCII_SPACE}]*[\r\n]",
            rf"[{ASCII_SPACE}]+(?![^{ASCII_SPACE}])",
            rf"[{ASCII_SPACE}]",
        ]
    ),
    "o200k_base": "|".join(
        [
            rf"[^\r\nA-Za-z{STAND_IN_LETTER}0-9]?[A-Z{STAND_IN_LETTER}{STAND_IN_MARK}]*"
            rf"[a-z{STAND_IN_LETTER}{STAND_IN_MARK}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            rf"[^\r\nA-Za-z{STAND_IN_LETTER}0-9]?[A-Z{STAND_IN_LETTER}{STAND_IN_MARK}]+"
            rf"[a-z{STAND_IN_LETTER}{STAND_IN_MARK}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            r"[0-9]{1,3}",
            rf" ?[^{ASCII_SPACE}A-Za-z{STAND_IN_LETTER}0-9]+[\r\n/]*",
            rf"[{ASCII_SPACE}]*[\r\n]+",
            rf"[{ASCII_SPACE}]+(?![^{ASCII_SPACE}])",
            rf"[{ASCII_SPACE}]+",
        ]
    ),
}
# What a character beyond ASCII stands in for in the patterns, by its general category: a letter
# of the same classes, a digit, or punctuation (`!`: no alternative names it). Long s (Ll) is `s`,
# as tiktoken's case-insensitive contractions (`'s`) take it, by Unicode's simple case folding.
_STAND_INS = {
    **dict.fromkeys(["Lu", "Lt"], "A"),
    "Ll": "a",
    **dict.fromkeys(["Lm", "Lo"], STAND_IN_LETTER),
    **dict.fromkeys(["Mn", "Mc", "Me"], STAND_IN_MARK),
    **dict.fromkeys(["Nd", "Nl", "No"], "0"),
    **dict.fromkeys(["Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Cc", "Cf", "Co"], "!"),
}
_BEYOND_ASCII = re.compile("[^\x00-\x7f]")
_SPACES = re.compile(f"[{OTHER_SPACE}]").fullmatch
_stand_in: dict[str, str | None] = {"\u017f": "s"}  # character -> its stand-in, or None: not encoded here

# the longest piece merged here: merging costs up to the square of a piece's length in Python steps
MERGED_PIECE_MAX = 64
_TABLE_FIELDS = 2  # the payload opens with the number of tokens and of slots, then the arrays


def fits(text: str) -> bool:
    """Whether `text` is one this module encodes exactly (see `skeleton`): the same test, without
    making the skeleton."""
    return text.isascii() or _all_stood_in(text)


def skeleton(text: str) -> str | None:
    """`text` with each character beyond ASCII replaced by its stand-in (see _STAND_INS), which
    the patterns split as tiktoken's split the text; None when the text holds a character that
    Python's Unicode database does not assign (tiktoken's may: a newer version) or a lone
    surrogate (tiktoken encodes a replacement character for it)."""
    if text.isascii():
        return text
    if not _all_stood_in(text):
        return None
    # a call per character beyond ASCII: on a mostly ASCII text, 0.1x of str.translate's time
    return _BEYOND_ASCII.sub(_stand_in_of_match, text)


def _all_stood_in(text: str) -> bool:
    """Whether every character of `text` beyond ASCII has a stand-in (see `skeleton`)."""
    for c in set(_BEYOND_ASCII.findall(text)):
        if c not in _stand_in:
            _stand_in[c] = _stand_in_of(c)
        if _stand_in[c] is None:
            return False
    return True


def _stand_in_of_match(m: re.Match[str]) -> str:
    return _stand_in[m.group()]  # type: ignore[return-value]  # skeleton found none None


def _stand_in_of(c: str) -> str | None:
    if _SPACES(c):
        return "\t"
    return _STAND_INS.get(unicodedata.category(c))


def table_payload(ranks: dict[bytes, int]) -> bytes:
    """`ranks` laid out for RankTable: counts, slots (entry + 1, or 0 for an empty slot; linear
    probing from the key's crc32, at most half full), each entry's offset into the key bytes, its
    rank, then the keys' bytes one after another."""
    keys = list(ranks)
    slots = array("I", bytes(4 * _slot_count(len(keys))))
    mask = len(slots) - 1
    for entry, key in enumerate(keys, 1):
        at = crc32(key) & mask
        while slots[at]:
            at = (at + 1) & mask
        slots[at] = entry
    offsets = array("I", [0])
    for key in keys:
        offsets.append(offsets[-1] + len(key))
    head = array("I", [len(keys), len(slots)])
    return b"".join([head.tobytes(), slots.tobytes(), offsets.tobytes(), array("I", ranks.values()).tobytes(), *keys])


def _slot_count(entries: int) -> int:
    """The smallest power of two at least twice `entries`: linear probing stays short."""
    size = 1
    while size < 2 * entries:
        size *= 2
    return size


class RankTable:
    """The ranks of a vocabulary read in place from `table_payload`'s bytes: `get(key)` hashes the
    key and reads the slots it probes, so nothing is built before the first lookup."""

    def __init__(self, payload: bytes):
        words = memoryview(payload)
        count, size = words[: 4 * _TABLE_FIELDS].cast("I")
        at = 4 * _TABLE_FIELDS
        self._slots = words[at : at + 4 * size].cast("I")
        at += 4 * size
        self._offsets = words[at : at + 4 * (count + 1)].cast("I")
        at += 4 * (count + 1)
        self._ranks = words[at : at + 4 * count].cast("I")
        self._keys = payload[at + 4 * count :]
        self._mask = size - 1
        if len(self._keys) != self._offsets[count]:
            raise ValueError("rank table's keys do not fill its payload")

    def get(self, key: bytes) -> int | None:
        slots, offsets, mask = self._slots, self._offsets, self._mask
        at = crc32(key) & mask
        while entry := slots[at]:
            if self._keys[offsets[entry - 1] : offsets[entry]] == key:
                return self._ranks[entry - 1]
            at = (at + 1) & mask
        return None


class SmallEncoder:
    """`encode_ordinary` of one encoding for texts that `fits` accepts."""

    def __init__(self, name: str, table: RankTable):
        self._split = re.compile(PATTERNS[name], re.ASCII)
        self._rank = table.get
        # piece -> its tokens, and how many characters each ends: a text's pieces repeat
        self._known: dict[str, tuple[list[int], list[int]]] = {}

    def encode(self, text: str) -> list[int] | None:
        """The tokens of `text`, or None when a piece of it is too long to merge here (its merge
        takes time quadratic in its length; tiktoken's long-piece encoder is the one for it) or
        the text does not `fit`."""
        return self._joined(text, 0)

    def token_leads(self, text: str) -> list[int] | None:
        """How many characters each token of `text` ends (its bytes that open a character, as
        token_index counts them), or None where `encode` gives None."""
        return self._joined(text, 1)

    def _joined(self, text: str, column: int) -> list[int] | None:
        """Column 0 (tokens) or 1 (characters each ends) of every piece of `text`, one after the
        other; None where a piece has none (see `encode`)."""
        pieces = self._pieces(text)
        if pieces is None:
            return None
        joined: list[int] = []
        for piece in pieces:
            found = self._known.get(piece) or self._encode_piece(piece)
            if found is None:
                return None
            joined += found[column]
        return joined

    def _pieces(self, text: str) -> list[str] | None:
        """The pre-tokenizer's pieces of `text`, found in its skeleton (as long as the text, each
        character at its place), or None when it has none."""
        if text.isascii():
            return self._split.findall(text)
        stand_ins = skeleton(text)
        if stand_ins is None:
            return None
        return [text[m.start() : m.end()] for m in self._split.finditer(stand_ins)]

    def _encode_piece(self, piece: str) -> tuple[list[int], list[int]] | None:
        data = piece.encode()  # a lone surrogate never gets here (see skeleton)
        if len(data) > MERGED_PIECE_MAX:
            return None
        rank = self._rank(data)
        if rank is not None:
            found = [rank], [len(piece)]
        else:
            rank_of = self._rank
            bounds = list(zip(*_merged_bounds(rank_of, data)))
            found = [rank_of(data[a:b]) for a, b in bounds], [lead_bytes(data[a:b]) for a, b in bounds]  # type: ignore[misc]
        self._known[piece] = found
        return found


def lead_bytes(token: bytes) -> int:
    """The characters a token's bytes end: those that are not UTF-8 continuation bytes."""
    return len(token.translate(None, _CONTINUATION))


_CONTINUATION = bytes(range(0x80, 0xC0))


class TokenEnds:
    """Where a text's tokens end, read by character offset: what token_index.TokenIndex and
    SmallIndex both answer from `_ends` (each token's end, rising) and `_leads` (each token's
    count of UTF-8 lead bytes: 0 for one that ends inside a character)."""

    text: str
    _ends: list[int] | array
    _leads: list[int] | bytes

    def tokens_before(self, offset: int) -> int:
        """How many of the text's tokens end at or before character `offset` (an anchor)."""
        return bisect_right(self._ends, offset)

    def end_of_tokens(self, offset: int, n: int) -> int:
        """Where the text's n-th token after character `offset` ends (the text's end if it has
        fewer): an estimate of where a span from `offset` reaches n tokens."""
        i = self.tokens_before(offset) + n - 1
        return self._ends[i] if i < len(self._ends) else len(self.text)

    def start_of_tokens(self, offset: int, n: int) -> int:
        """Where the text's last n tokens that end before character `offset` start (the text's
        start if it has fewer): an estimate of where a span ending at `offset` holds n tokens."""
        i = bisect_left(self._ends, offset) - n
        return self._ends[i] if i >= 0 else 0

    def token_ends(self) -> list[int]:
        """Character offsets where the text's tokens end (0 first, no repeats): where a
        token-sized window may cut. A token ending inside a character is placed after it."""
        return [0, *compress(self._ends, self._leads)]


class SmallIndex(TokenEnds):
    """token_index.TokenIndex's reading of a short text that `fits` (what strategies that size
    many spans use), without tiktoken's encoder: the whole text's token ends from one encoding
    here, and a span's count as TokenIndex makes it, from the text's tokens between the span's
    first and last anchors (`anchors_in`, token_index's proven rules) and its head and tail
    encoded here; without `anchors_in`, from the span encoded whole. `count_text` counts a
    head, tail or span that `encoder` gives None for (a piece too long to merge here)."""

    def __init__(self, text: str, encoder: SmallEncoder, leads: list[int], anchors_in, count_text):
        self.text = text
        self._encode = encoder.encode
        self._anchors_in = anchors_in
        self._count_text = count_text
        self._ends = list(accumulate(leads))
        self._leads = leads
        self.total_tokens = len(leads)

    def count(self, s: int, e: int) -> int:
        """Exact token count of text[s:e]: as TokenIndex.count, whose anchors make it a sum."""
        text = self.text
        if self._anchors_in is None:
            return self._count(text[s:e])
        m = self._anchors_in(text, s - 1, e + 1)  # as TokenIndex._parts reads them
        a1 = m.end(1) if s else 0
        a2 = e if e == len(text) else m.end()
        if a1 < a2 <= e:
            return self._count(text[s:a1]) + self.tokens_before(a2) - self.tokens_before(a1) + self._count(text[a2:e])
        return self._count(text[s:e])

    def _count(self, text: str) -> int:
        tokens = self._encode(text)
        return self._count_text(text) if tokens is None else len(tokens)


_NONE = 1 << 32  # above every rank: "this pair is no token"


def _merged_bounds(rank_of, piece: bytes) -> tuple[list[int], list[int]]:
    """(starts, ends) of the parts tiktoken's byte-pair merge leaves of `piece`: starting from
    single bytes, the adjacent pair whose joined bytes rank lowest is joined, the leftmost of
    equal ones, until no pair's bytes are a token (tiktoken's `_byte_pair_merge`)."""
    bounds = list(range(len(piece) + 1))
    pairs = [_rank_or_none(rank_of, piece[i : i + 2]) for i in range(len(piece) - 1)]  # pair i: parts i, i+1
    while pairs:
        lowest = min(pairs)
        if lowest == _NONE:
            break
        i = pairs.index(lowest)
        del bounds[i + 1], pairs[i]
        if i < len(pairs):
            pairs[i] = _rank_or_none(rank_of, piece[bounds[i] : bounds[i + 2]])
        if i > 0:
            pairs[i - 1] = _rank_or_none(rank_of, piece[bounds[i - 1] : bounds[i + 1]])
    return bounds[:-1], bounds[1:]


def _rank_or_none(rank_of, pair: bytes) -> int:
    rank = rank_of(pair)
    return _NONE if rank is None else rank
