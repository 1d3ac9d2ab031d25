"""Exact encodings of texts holding huge pre-tokenizer pieces, in time linear in their length.

tiktoken splits text into pieces with its pattern and BPE-encodes each piece whole. A run of
letters with no space (`a` repeated, DNA, CJK without punctuation), of punctuation or of
whitespace is one piece however long, and tiktoken's BPE of one piece grows faster than its
length (1 MB of DNA: 460 ns a byte, against 130 at 16 KB). Here such a piece is encoded in
windows of 32 KB and the windows' tokens are joined where the join is proven exact.

Why the join is exact. tiktoken's BPE of a piece (`_byte_pair_merge` and its heap variant for big
pieces) starts from single bytes and repeatedly merges the adjacent pair of parts whose joined
bytes have the lowest rank, the leftmost on a tie. Call a token sequence *valid* when it is the
BPE of its own bytes. Two facts, proven on that rule alone:

* Every run of consecutive tokens of a valid sequence is valid. In the run over the whole text
  no merge crosses a final token boundary, so the merges inside the sub-run are the ones the
  sub-run's own run makes, in the same order: each was the lowest-ranked (leftmost) pair of the
  whole, so of the sub-run too.
* If x + [u] and [u, v] are valid then x + [u, v] is valid. Run BPE on their joined bytes X U V.
  Until a merge crosses the edge X|U or U|V, the merges inside X U are exactly the first steps of
  the run over X U alone (each is the lowest-ranked, leftmost pair of X U, by the argument above),
  and those inside U V the first steps of the run over U V alone. So the first crossing merge
  would be a step of one of those runs, which never cross those edges (their results are x + [u]
  and [u, v]). No merge crosses; each part ends as its own BPE, and the edges stay unmerged.

Applying the second fact token by token, a sequence is valid when every adjacent pair in it is
(the "compatible pairs" of GitHub's `bpe` crate). A piece is encoded window by window: the
running result R is the BPE of the piece up to the current window's end, the next window starts
at one of R's token boundaries inside the current window and is encoded on its own, and the two
are joined at a position c where both have a token boundary (near the middle of the overlap,
away from both windows' cut edges). R up to c and the next window from c are valid (first fact);
the pair (u, v) meeting at c is checked by encoding u's and v's bytes together, which must give
exactly [u, v] (tiktoken returns a single token when those bytes are one, which fails the check:
it only ever refuses a join). Then R' is the BPE of the piece up to the next window's end, and
the last window ends at the piece's end. A window whose seams all fail sends the whole piece to
tiktoken as before.

Where the pieces are. A piece of at least LONG_PIECE bytes is at least 32,768 characters, most of
them of one kind (see _KINDS), and holds no token-index anchor (see token_index.py: a position where
the text's pieces are those of the text before it followed by those of the text after it; an anchor
is a piece boundary). So it holds some sample, taken every 4,096 characters, followed by 4,096
characters of one kind without an anchor; ordinary text fails that test within a few characters of
each sample. Around such a sample the text is cut at the anchors before and after the piece, and
only that stretch is split into pieces here, with tiktoken's own pattern (through the `regex`
package that tiktoken itself depends on); every other stretch goes to tiktoken whole. Pieces under
LONG_PIECE bytes go to tiktoken's `encode_single_piece`, which is what its encoder does with each
piece. The one assumption beyond tiktoken's code is the token index's: that Python's and the
`regex` package's Unicode classes are tiktoken's (the property tests compare with tiktoken).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate

from .compat import core_bpe, mergeable_ranks

WINDOW = 32 * 1024  # bytes BPE-encoded at once: 130 ns a byte at 16 KB, 180 at 64 KB
OVERLAP = 2 * 1024  # bytes two windows share; seams are tried from its middle out
LONG_PIECE = 4 * WINDOW  # shorter pieces are encoded whole, as tiktoken would
SAMPLE_STEP = 4096  # characters between samples: an eighth of the shortest long piece
MIN_CHARS = LONG_PIECE // 4  # a shorter text holds no long piece (4 bytes a character at most)
_BACK_REACH = 16 * SAMPLE_STEP  # characters searched back for the anchor before a long piece
_SEAM_TRIES = 16  # seams tried in one overlap before the piece goes to tiktoken whole

# The kinds of character a long piece is made of, as runs from a sample: letters (Python's: no
# marks, so a long run of letters and marks is left to tiktoken whole), punctuation (with "_" and
# \x1c-\x1f, which Python reads as a word character and whitespace), whitespace (Python's is a
# superset of tiktoken's), and o200k_base's end of a punctuation piece (line feeds and "/").
_KINDS = tuple(re.compile(kind) for kind in (r"[^\W\d_]*", r"(?:[^\w\s]|[_\x1c-\x1f])*", r"\s*", r"[\r\n/]*"))


def _run_of_one_kind(text: str, p: int) -> bool:
    """Whether text[p:p + SAMPLE_STEP] is all of one kind (read no further)."""
    end = p + SAMPLE_STEP
    return any((m := kind.match(text, p, end)) is not None and m.end() == end for kind in _KINDS)


class PieceEncoder:
    """Encodes text as tiktoken's `encode_ordinary` would, long pieces in windows."""

    def __init__(self, encoding, pat_str: str, anchors):
        self._encoding = encoding
        self._bpe = core_bpe(encoding)
        self._pat_str = pat_str
        self._pieces = None
        self._anchors = anchors  # (last_before, first_after) in the whole text, see token_index
        self._lengths: bytearray | None = None
        self.window, self.overlap = WINDOW, OVERLAP
        self.fallbacks = 0  # pieces whose seams all failed (encoded whole)

    @property
    def _length(self) -> bytearray:
        """Bytes of each token id (at most 128 in both encodings)."""
        if self._lengths is None:
            ranks = mergeable_ranks(self._encoding)
            lengths = bytearray(max(ranks.values()) + 1)
            for token, rank in ranks.items():
                lengths[rank] = len(token)
            self._lengths = lengths
        return self._lengths

    def stretches(self, text: str) -> list[tuple[int, int, bool]]:
        """(start, end, long) covering the text in order, cut at anchors: a long stretch holds a
        piece of at least SAMPLE_STEP characters and is split into pieces here; the others are
        tiktoken's to encode whole.

        A piece of LONG_PIECE bytes is at least 32,768 characters, most of one kind, with no
        anchor inside (an anchor is a piece boundary), so some sample p starts SAMPLE_STEP
        characters of one kind with no anchor among them; the piece starts after the sample
        before (or that one would have been taken)."""
        last_before, first_after = self._anchors
        out, done, n = [], 0, len(text)
        for p in range(0, n - SAMPLE_STEP, SAMPLE_STEP):
            if (
                p < done
                or not _run_of_one_kind(text, p)
                or not self._one_piece_from(text, p)
                or first_after(text, p + 1, p + SAMPLE_STEP) is not None
            ):
                continue
            a1 = self._anchor_before(text, done, p)
            if a1 is None:  # tiktoken encodes this piece whole
                continue
            end = self._end_of_long_piece(text, a1, p)
            if end is None:
                continue
            a2 = first_after(text, end, min(n, end + SAMPLE_STEP))
            a2 = first_after(text, end, n) if a2 is None else a2
            a2 = n if a2 is None else a2
            if done < a1:
                out.append((done, a1, False))
            out.append((a1, a2, True))
            done = a2
        if done < n:
            out.append((done, n, False))
        return out

    def _anchor_before(self, text: str, done: int, p: int) -> int | None:
        """The last anchor before p, searched back 8,192 characters and then 65,536; `done` (the
        text's start or the end of the stretch before, an anchor) when the search reaches it."""
        for reach in (2 * SAMPLE_STEP, _BACK_REACH):
            lo = max(done, p - reach)
            a1 = self._anchors[0](text, lo, p)
            if a1 is not None or lo == done:
                return done if a1 is None else a1
        return None

    def _one_piece_from(self, text: str, p: int) -> bool:
        """Whether tiktoken's pattern, tried at p, takes SAMPLE_STEP characters in one match: a
        cheap test that a long piece may hold p (a run of o200k_base's "aBcD", one kind to Python,
        is pieces of two letters), so that the anchor searches below are made only for runs that
        pass it. The match stops SAMPLE_STEP on: it only chooses which stretches are split here
        (every stretch is encoded exactly), and reading on to a run's end from every sample made a
        long run quadratic."""
        return self._piece_pattern().match(text, p, p + SAMPLE_STEP).end() - p == SAMPLE_STEP

    def _end_of_long_piece(self, text: str, start: int, p: int) -> int | None:
        """Where the piece holding text[p:p + SAMPLE_STEP] ends, reading pieces from `start`
        (an anchor), if it holds all of it; None when those characters are several pieces."""
        for m in self._piece_pattern().finditer(text, start):
            if m.end() > p:
                return m.end() if m.start() <= p and m.end() >= p + SAMPLE_STEP else None
        return None

    def _piece_pattern(self):
        if self._pieces is None:
            import regex

            self._pieces = regex.compile(self._pat_str)
        return self._pieces

    def encode(self, text: str) -> array | None:
        """The text's tokens, equal to tiktoken's `encode_ordinary(text)`; None when the text
        holds no long piece (tiktoken's own encoding is then as fast)."""
        if len(text) < MIN_CHARS:
            return None
        stretches = self.stretches(text)
        if not any(long for _, _, long in stretches):
            return None
        tokens = array("I")
        for start, end, long in stretches:
            part = text[start:end]
            tokens.extend(self.encode_pieces(part) if long else self._bpe.encode_ordinary(part))
        return tokens

    def encode_pieces(self, text: str) -> array:
        """tiktoken's encoding of `text`, found piece by piece."""
        tokens = array("I")
        single = self._bpe.encode_single_piece
        for m in self._piece_pattern().finditer(text):
            piece = m.group().encode("utf-8")
            if len(piece) >= LONG_PIECE:
                tokens.extend(self.encode_long_piece(piece))
            else:
                tokens.extend(single(piece))
        return tokens

    def encode_long_piece(self, piece: bytes) -> array:
        """BPE of one piece, window by window (see the module's docstring for why it is exact)."""
        single, window, overlap = self._bpe.encode_single_piece, self.window, self.overlap
        n = len(piece)
        out = array("I")
        # cur: tokens of piece[cs:ce]; out + cur[k:] is the BPE of piece[:ce]
        cs, ce = 0, min(n, window)
        cur, k = single(piece[cs:ce]), 0
        while ce < n:
            ends = self._ends_back(cur, ce, ce - overlap)  # token ends of cur in the overlap
            q = min(ends)  # the next window starts on one of them
            ne = n if n - (q + window) < window // 2 else q + window
            nxt = single(piece[q:ne])
            starts = self._starts_forward(nxt, q, ce)  # token starts of nxt up to ce
            seam = self._seam(piece, cur, ends, nxt, starts, q, ce)
            if seam is None:
                self.fallbacks += 1
                return array("I", single(piece))
            i_cur, i_nxt = seam  # cur's tokens end before i_cur, nxt's are taken from i_nxt
            out.extend(cur[k:i_cur])
            cur, k, cs, ce = nxt, i_nxt, q, ne
        out.extend(cur[k:])
        return out

    def _ends_back(self, tokens, end: int, low: int) -> dict[int, int]:
        """{position: index of the token ending there} for tokens ending at or after `low`."""
        length, ends, i = self._length, {}, len(tokens)
        while i and end >= low:
            ends[end] = i
            i -= 1
            end -= length[tokens[i]]
        return ends

    def _starts_forward(self, tokens, start: int, high: int) -> dict[int, int]:
        """{position: index of the token starting there} for tokens starting before `high`
        (every token is at least a byte: no more tokens than bytes to `high` are read)."""
        heads = accumulate(map(self._length.__getitem__, tokens[: high - start]), initial=start)
        return {pos: i for i, pos in zip(range(len(tokens)), heads) if pos < high}

    def _seam(self, piece, cur, ends, nxt, starts, q, ce):
        """(index in cur, index in nxt) of a proven join, tried from the overlap's middle out."""
        middle = (q + ce) // 2
        common = sorted((c for c in ends if c in starts and q < c < ce), key=lambda c: abs(c - middle))
        single = self._bpe.encode_single_piece
        for c in common[:_SEAM_TRIES]:
            u, v = cur[ends[c] - 1], nxt[starts[c]]
            pair = piece[c - self._length[u] : c + self._length[v]]
            if single(pair) == [u, v]:
                return ends[c], starts[c]
        return None


_encoders: dict[str, PieceEncoder] = {}


def piece_encoder(name: str, encoding, pat_str: str, anchors) -> PieceEncoder:
    """The PieceEncoder of encoding `name`, made once."""
    encoder = _encoders.get(name)
    if encoder is None:
        encoder = _encoders[name] = PieceEncoder(encoding, pat_str, anchors)
    return encoder
