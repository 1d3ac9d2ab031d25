"""`recursive`: LangChain's RecursiveCharacterTextSplitter, with offsets that are never guessed.

Same algorithm (separators "\\n\\n", "\\n", " ", "" tried in order, each kept at
the start of the piece it opens; pieces smaller than `size` are merged up to
`size`, the next chunk restarting at the trailing pieces that fit in `overlap`;
larger pieces are split again with the next separator), so boundaries match
LangChain's. But every piece is a span of the source from the walk itself:
no whitespace is stripped, repeated text cannot be mislocated, and overlap is
exactly the source the neighbours share. As in LangChain, a piece that had to
be split further starts a new run of chunks, so no overlap crosses its edges,
and a chunk of nothing but whitespace is left out (LangChain strips it to
nothing), here as a declared gap so the tool still shows it.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, compress, count, repeat
from operator import ge, not_
from collections.abc import Sequence

from . import Order, Param, Proposal, Strategy, register
from ..core.model import SpanTable

SEPARATORS = ("\n\n", "\n", " ", "")
_START, _PARAGRAPH, _CHAR = ("start", "start of text"), ("paragraph", "blank line"), ("char", "character")
_OPENED_BY = {"\n": ("line", "line break"), " ": ("word", "space")}  # a chunk's first character, unless "\n\n" opens it
_TYPE_OPENED_BY = {ch: kind[0] for ch, kind in _OPENED_BY.items()}
_LABEL_OPENED_BY = {ch: kind[1] for ch, kind in _OPENED_BY.items()}
_BEFORE = (-1).__add__  # a line start to the newline before it
_PATTERNS = {sep: re.compile(re.escape(sep)) for sep in SEPARATORS if sep}
_NON_SPACE = re.compile(r"\S")


class _Splitter:
    """Pieces are kept as cut positions (`bounds`, piece i = bounds[i]:bounds[i+1]) and their
    sizes as prefix sums, so merging is a bisect per chunk rather than a step per piece.
    Chunks are collected as (start, end) and turned into spans and gaps in one pass."""

    def __init__(self, text: str, line_starts: list[int], size: int, overlap: int, counter, ctx):
        self.text, self.line_starts, self.size, self.overlap = text, line_starts, size, overlap
        self.counter, self.ctx = counter, ctx
        self.exact = counter.name == "chars"
        self.out_starts: list[int] = []  # the spans made so far, as columns
        self.out_ends: list[int] = []
        self.out_types: list[str] = []
        self.out_labels: list[str] = []
        self.out_oversized: set[int] = set()  # positions in out_starts of an oversized character
        self.gaps: list[tuple[int, int, str]] = []
        self.starts: list[int] = []  # chunks emitted and not yet made spans or gaps, in order
        self.ends: list[int] = []
        self.oversized: set[int] = set()  # their positions in `starts` that hold an oversized character
        self.runs: list[tuple[Sequence[int], int, int]] = []  # token runs still to verify
        self._char_counts: dict[str, int] = {}

    def split(self, start: int, end: int, separators: tuple[str, ...]) -> None:
        """LangChain's `_split_text` on text[start:end], emitting chunks in order."""
        self.ctx.check()
        text = self.text
        for i, sep in enumerate(separators):
            if sep == "":
                self._split_chars(start, end)
                return
            if text.find(sep, start, end) != -1:
                rest = separators[i + 1 :]
                break
        if self.exact:  # sizes in characters: a chunk at a time
            self._split_greedy(start, end, sep, rest)
            return
        if sep == "\n":  # the document's line index already holds every newline, one past it
            line_starts = self.line_starts
            bounds = list(map(_BEFORE, line_starts[bisect_right(line_starts, start) : bisect_right(line_starts, end)]))
        else:
            bounds = [m.start() for m in _PATTERNS[sep].finditer(text, start, end)]
        if not bounds or bounds[0] > start:  # no empty first piece
            bounds.insert(0, start)
        bounds.append(end)
        # the pieces' sizes a group at a time, front to back: while the token index still encodes
        # the later blocks, the pieces it covers are merged and split (their run of small pieces
        # carried on to the next group), in the order and with the sizes of one count of them all
        lengths: list[int] = []
        first = 0  # start of the current run of pieces smaller than size
        for group in self.counter.counts_in_order(text, list(zip(bounds, bounds[1:]))):
            offset = len(lengths)
            lengths += group
            for k in compress(count(offset), map(ge, group, repeat(self.size))):
                self._merge(bounds, first, k, lengths)
                self.split(bounds[k], bounds[k + 1], rest)
                first = k + 1
        self._merge(bounds, first, len(lengths), lengths)

    def _split_greedy(self, start: int, end: int, sep: str, rest: tuple[str, ...]) -> None:
        """`split` with sizes in characters, a chunk at a time rather than a piece at a time:
        a chunk ends at the last separator that fits (`rfind`), its overlap starts at the first
        separator past the back-off point (`find`). The same chunks as merging the pieces: a
        piece of `size` or more is split on its own, and the chunk before it ends at its start,
        so no overlap reaches into it. "\n\n" matches as a scan from `start` does, without
        overlaps: a hit inside a longer run of newlines is checked by `_pair_last`/`_pair_next`."""
        text, size, overlap, check = self.text, self.size, self.overlap, self.ctx.check
        rfind, find, width = text.rfind, text.find, len(sep)
        pair = width > 1
        add_start, add_end = self.starts.append, self.ends.append
        cur = start  # a piece start: where the next chunk begins
        n = 0
        while end - cur > size:
            cut = rfind(sep, cur + 1, cur + size + width)  # the last piece start that fits
            if pair and cut != -1 and text[cut - 1] == "\n":
                cut = self._pair_last(cur, cut)
            if cut == -1:  # the piece at cur is longer than size
                cut = find(sep, cur + 1, end)
                if pair and cut != -1 and text[cut - 1] == "\n":
                    cut = self._pair_next(cur, cut, end)
                cut = end if cut == -1 else cut
                self.split(cur, cut, rest)
                cur = cut
                continue
            add_start(cur)
            add_end(cut)
            n += 1
            if not n & 1023:
                check()
            if overlap:
                after = find(sep, cut + width, end)  # the end of the piece that did not fit
                if after == -1:
                    after = end
                if after - cut < size:  # not a piece split on its own: back off into the chunk
                    lo = after - size
                    if lo < cut - overlap:
                        lo = cut - overlap
                    back = find(sep, lo, cut)
                    if back != -1:
                        if pair and text[back - 1] == "\n":
                            back = self._pair_next(cur, back, cut)
                        if back != -1:
                            cut = back
            cur = cut
        if cur < end:
            add_start(cur)
            add_end(end)

    def _pair_odd(self, cur: int, pos: int) -> bool:
        """Whether a "\n\n" at pos overlaps the match before it: its run of newlines, read
        back to the chunk start `cur` (a match, or the start of the scan), is odd up to pos."""
        text, first = self.text, pos
        while first > cur and text[first - 1] == "\n":
            first -= 1
        return (pos - first) % 2 == 1

    def _pair_last(self, cur: int, pos: int) -> int:
        """The last match at or before pos (the last hit after cur), or -1 if none is after cur."""
        if not self._pair_odd(cur, pos):
            return pos
        return pos - 1 if pos - 1 > cur else -1

    def _pair_next(self, cur: int, pos: int, hi: int) -> int:
        """The first match at or after pos (the first hit), ending by hi, or -1."""
        text = self.text
        while pos != -1 and self._pair_odd(cur, pos):
            pos = pos + 1 if text.startswith("\n\n", pos + 1, hi) else text.find("\n\n", pos + 2, hi)
        return pos

    def _split_chars(self, start: int, end: int) -> None:
        """The last separator, "": every character a piece. Characters at least `size` long
        (in tokens, or any character when size is 1) stand alone; the runs between are merged."""
        if self.exact:
            size_of, big = None, ("" if self.size > 1 else None)
        else:
            cache, count_text = self._char_counts, self.counter.count
            chars = set(self.text[start:end])
            for ch in chars - cache.keys():
                cache[ch] = count_text(ch)
            size_of = cache.__getitem__
            big = "".join(ch for ch in chars if cache[ch] >= self.size)
        if big is None:  # size 1 in chars: one chunk a character
            for i in range(start, end):
                self._emit(i, i + 1)
            return
        pos = start
        if big and size_of is not None:  # big is "" or None when exact
            for m in re.finditer("[" + re.escape(big) + "]", self.text[start:end]):
                self._merge_chars(pos, start + m.start(), size_of)
                ch = m.group()
                self._emit(start + m.start(), start + m.end(), oversized=size_of(ch) > self.size)
                pos = start + m.end()
        self._merge_chars(pos, end, size_of)

    def _merge_chars(self, start: int, end: int, size_of) -> None:
        if end <= start:
            return
        bounds = range(start, end + 1)
        if self.exact:
            self._merge_exact(bounds, 0, end - start)
        else:
            sizes = array("q", accumulate(map(size_of, self.text[start:end]), initial=0))
            self._merge_prefix(bounds, 0, end - start, sizes, 0)

    def _merge(self, bounds, a: int, b: int, lengths) -> None:
        if b > a:  # token sizes (character sizes never get here: `_split_greedy`)
            self._merge_prefix(bounds, a, b - a, list(accumulate(lengths[a:b], initial=0)), 0)

    def _merge_exact(self, bounds, a: int, b: int) -> None:
        """`_merge_prefix` where sizes are lengths, so `bounds` are the prefix sums: chunks are
        collected as piece indices and read out of `bounds` at C level."""
        size, overlap, check = self.size, self.overlap, self.ctx.check
        if bounds[b] - bounds[a] <= size:  # the whole run is one chunk
            self.starts.append(bounds[a])
            self.ends.append(bounds[b])
            return
        firsts, lasts = [a], list[int]()
        add_first, add_last, hi = firsts.append, lasts.append, b + 1
        first = a
        while first < b:
            check()
            for _ in repeat(None, 4096):  # a cancellation check every 4096 chunks
                k = bisect_right(bounds, bounds[first] + size, first, hi) - 1  # pieces first..k-1 fit
                add_last(k)
                if k == b:
                    break
                # the next chunk starts at the trailing pieces that fit `overlap` and leave room
                # for piece k; pieces are never empty, so with no overlap that is piece k itself
                first = bisect_left(bounds, max(bounds[k] - overlap, bounds[k + 1] - size), first, k) if overlap else k
                add_first(first)
            else:
                continue
            break
        self.starts += map(bounds.__getitem__, firsts)
        self.ends += map(bounds.__getitem__, lasts)

    def _merge_prefix(self, bounds, a: int, n: int, prefix, p: int) -> None:
        """LangChain's `_merge_splits` (token sizes) over the n pieces a, a+1, ... (prefix[p + i] minus
        prefix[p] = size of the first i): grow a chunk while it fits `size`; the next starts at
        the trailing pieces that fit `overlap` and leave room for the piece that did not fit."""
        size, overlap, check = self.size, self.overlap, self.ctx.check
        add_start, add_end = self.starts.append, self.ends.append
        runs = self.runs
        first = p  # in prefix positions; piece i is prefix position p + i
        last = p + n
        while True:
            k = bisect_right(prefix, prefix[first] + size, first, last + 1) - 1  # pieces first..k-1 fit
            if k >= last:
                k = last
            add_start(bounds[a + first - p])
            add_end(bounds[a + k - p])
            # with tokens the run waits for `verify`: BPE is not additive, so the joined text
            # is counted again (in one batch) before it is trusted
            if k - first > 1:
                runs.append((bounds, a + first - p, a + k - p))
            if k == last:
                return
            if overlap:
                after = prefix[k + 1] - size  # room for piece k
                first = max(bisect_left(prefix, prefix[k] - overlap, first, k), bisect_left(prefix, after, first, k))
            else:  # pieces are never empty, so no earlier piece fits an overlap of 0
                first = k
            check()

    def verify(self) -> None:
        """Split any token run whose joined text encodes longer than `size`."""
        if not self.runs:
            return
        self.flush()
        ends = [(bounds[a], bounds[b]) for bounds, a, b in self.runs]
        too_long = {span for span, n in zip(ends, self.counter.count_spans(self.text, ends)) if n > self.size}
        if not too_long:
            return
        keep = [span not in too_long for span in zip(self.out_starts, self.out_ends)]
        self.out_oversized = {j for j, i in enumerate(compress(range(len(keep)), keep)) if i in self.out_oversized}
        self.out_starts, self.out_ends = list(compress(self.out_starts, keep)), list(compress(self.out_ends, keep))
        self.out_types, self.out_labels = list(compress(self.out_types, keep)), list(compress(self.out_labels, keep))
        self.gaps = [g for g in self.gaps if (g[0], g[1]) not in too_long]
        for bounds, a, b in self.runs:
            if (bounds[a], bounds[b]) in too_long:
                self._split_run(bounds, a, b)

    def _split_run(self, bounds, a: int, b: int) -> None:
        count_text, text = self.counter.count, self.text
        while a < b:
            k = a + 1
            while k < b and count_text(text[bounds[a] : bounds[k + 1]]) <= self.size:
                k += 1
            self._emit(bounds[a], bounds[k])
            a = k

    def _emit(self, start: int, end: int, oversized: bool = False) -> None:
        if oversized:
            self.oversized.add(len(self.starts))
        self.starts.append(start)
        self.ends.append(end)

    def flush(self) -> None:
        """The emitted chunks, in order, as span columns; those of whitespace only as gaps."""
        text, starts, ends, gaps = self.text, self.starts, self.ends, self.gaps
        visible = list(map(bool, map(_NON_SPACE.search, repeat(text), starts, ends)))
        for start, end in compress(zip(starts, ends), map(not_, visible)):
            if gaps and start <= gaps[-1][1]:  # overlapping windows of whitespace: one gap
                start = min(start, gaps[-1][0])
                end = max(end, gaps.pop()[1])
            gaps.append((start, end, "whitespace only"))
        shown = list(compress(starts, visible))
        if self.oversized:
            base, oversized = len(self.out_starts), self.oversized
            self.out_oversized.update(base + j for j, i in enumerate(compress(count(), visible)) if i in oversized)
        # separators open the piece they precede, so the chunk's first characters say which
        firsts = list(map(text.__getitem__, shown))
        types = list(map(_TYPE_OPENED_BY.get, firsts, repeat(_CHAR[0])))
        labels = list(map(_LABEL_OPENED_BY.get, firsts, repeat(_CHAR[1])))
        for j in compress(count(), map(text.startswith, repeat("\n\n"), shown)):
            types[j], labels[j] = _PARAGRAPH
        if shown and shown[0] == 0:
            types[0], labels[0] = _START
        self.out_types += types
        self.out_labels += labels
        self.out_starts += shown
        self.out_ends += compress(ends, visible)
        starts.clear()
        ends.clear()
        self.oversized.clear()

    def table(self) -> SpanTable:
        oversized = self.out_oversized
        metadata = (
            [{"oversized": True} if i in oversized else {} for i in range(len(self.out_starts))] if oversized else None
        )
        return SpanTable(self.out_starts, self.out_ends, self.out_types, self.out_labels, metadata)


def run(doc, params, ctx) -> Proposal:
    counter = ctx.counter(params["unit"])
    splitter = _Splitter(doc.text, doc.line_starts, params["size"], params["overlap"], counter, ctx)
    if doc.text:
        splitter.split(0, len(doc.text), SEPARATORS)
        splitter.verify()
        splitter.flush()
    return Proposal(splitter.table(), gaps=splitter.gaps)


register(
    Strategy(
        name="recursive",
        summary="LangChain's recursive character splitter (paragraphs, then lines, words, characters) "
        "with exact offsets and no stripped whitespace.",
        params=(
            Param("size", "int", 1000, "Largest chunk, in `unit`s.", min=1, max=100_000_000, step=100),
            Param(
                "overlap",
                "int",
                200,
                "Most of a chunk's tail the next chunk repeats, in whole pieces (smaller than size).",
                min=0,
                max=100_000_000,
                step=50,
            ),
            Param(
                "unit",
                "choice",
                "chars",
                "What size and overlap count: characters or tokens of the run's tokenizer.",
                choices=("chars", "tokens"),
            ),
        ),
        run=run,
        constraints=(Order("overlap", "size"),),
        max_size=lambda p: (p["unit"], p["size"]),
        overlap_at_most=True,
    )
)
