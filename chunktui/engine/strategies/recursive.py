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
from itertools import accumulate
from operator import sub
from typing import Sequence

from . import Param, Proposal, Strategy, check_overlap_below_size, register
from ..model import Span

SEPARATORS = ("\n\n", "\n", " ", "")
_BOUNDARY = {"\n\n": ("paragraph", "blank line"), "\n": ("line", "line break"),
             " ": ("word", "space"), "": ("char", "character")}
_PATTERNS = {sep: re.compile(re.escape(sep)) for sep in SEPARATORS if sep}
_NON_SPACE = re.compile(r"\S")


class _Splitter:
    """Pieces are kept as cut positions (`bounds`, piece i = bounds[i]:bounds[i+1]) and their
    sizes as prefix sums, so merging is a bisect per chunk rather than a step per piece."""

    def __init__(self, text: str, size: int, overlap: int, counter, ctx):
        self.text, self.size, self.overlap = text, size, overlap
        self.counter, self.ctx = counter, ctx
        self.exact = counter.name == "chars"
        self.spans: list[Span] = []
        self.gaps: list[tuple[int, int, str]] = []
        self.runs: list[tuple[Sequence[int], int, int]] = []  # token runs still to verify
        self._char_counts: dict[str, int] = {}

    def split(self, start: int, end: int, separators: tuple[str, ...]) -> None:
        """LangChain's `_split_text` on text[start:end], emitting spans in order."""
        self.ctx.check()
        text = self.text
        for i, sep in enumerate(separators):
            if sep == "":
                self._split_chars(start, end)
                return
            if text.find(sep, start, end) != -1:
                rest = separators[i + 1:]
                break
        bounds = [m.start() for m in _PATTERNS[sep].finditer(text, start, end)]
        if not bounds or bounds[0] > start:  # no empty first piece
            bounds.insert(0, start)
        bounds.append(end)
        if self.exact:
            lengths = list(map(sub, bounds[1:], bounds))
        else:
            lengths = self.counter.count_spans(text, list(zip(bounds, bounds[1:])))
        size, first = self.size, 0  # first: start of the current run of pieces smaller than size
        for k in [k for k, length in enumerate(lengths) if length >= size]:
            self._merge(bounds, first, k, lengths)
            self.split(bounds[k], bounds[k + 1], rest)
            first = k + 1
        self._merge(bounds, first, len(lengths), lengths)

    def _split_chars(self, start: int, end: int) -> None:
        """The last separator, "": every character a piece. Characters at least `size` long
        (in tokens, or any character when size is 1) stand alone; the runs between are merged."""
        if self.exact:
            size_of, big = None, ("" if self.size > 1 else None)
        else:
            cache, count = self._char_counts, self.counter.count
            chars = set(self.text[start:end])
            for ch in chars - cache.keys():
                cache[ch] = count(ch)
            size_of = cache.__getitem__
            big = "".join(ch for ch in chars if cache[ch] >= self.size)
        if big is None:  # size 1 in chars: one chunk a character
            for i in range(start, end):
                self._emit(i, i + 1)
            return
        pos = start
        if big:
            for m in re.finditer("[" + re.escape(big) + "]", self.text[start:end]):
                self._merge_chars(pos, start + m.start(), size_of)
                ch = m.group()
                self._emit(start + m.start(), start + m.end(), oversized=size_of(ch) > self.size)
                pos = start + m.end()
        self._merge_chars(pos, end, size_of)

    def _merge_chars(self, start: int, end: int, size_of) -> None:
        if end <= start:
            return
        if self.exact:
            self._merge_prefix(range(start, end + 1), 0, range(end - start + 1))
        else:
            sizes = array("q", accumulate(map(size_of, self.text[start:end]), initial=0))
            self._merge_prefix(range(start, end + 1), 0, sizes)

    def _merge(self, bounds, a: int, b: int, lengths) -> None:
        if b > a:
            self._merge_prefix(bounds, a, list(accumulate(lengths[a:b], initial=0)))

    def _merge_prefix(self, bounds, a: int, prefix) -> None:
        """LangChain's `_merge_splits` over pieces a, a+1, ... (prefix[i] = size of the first i):
        grow a chunk while it fits `size`; the next starts at the trailing pieces that fit
        `overlap` and leave room for the piece that did not fit."""
        size, overlap, n = self.size, self.overlap, len(prefix) - 1
        first = 0
        while True:
            k = bisect_right(prefix, prefix[first] + size, first) - 1  # pieces first..k-1 fit
            if k >= n:
                self._emit_run(bounds, a + first, a + n)
                return
            self._emit_run(bounds, a + first, a + k)
            after = prefix[k] + (prefix[k + 1] - prefix[k]) - size  # room for piece k
            first = max(bisect_left(prefix, prefix[k] - overlap, first, k),
                        bisect_left(prefix, after, first, k))
            self.ctx.check()

    def _emit_run(self, bounds, a: int, b: int) -> None:
        """Emit pieces a..b-1 as one chunk. With tokens the run waits for `verify`: BPE is not
        additive, so the joined text is counted again (in one batch) before it is trusted."""
        if not self.exact and b - a > 1:
            self.runs.append((bounds, a, b))
        self._emit(bounds[a], bounds[b])

    def verify(self) -> None:
        """Split any token run whose joined text encodes longer than `size`."""
        if not self.runs:
            return
        ends = [(bounds[a], bounds[b]) for bounds, a, b in self.runs]
        too_long = {span for span, n in zip(ends, self.counter.count_spans(self.text, ends)) if n > self.size}
        if not too_long:
            return
        self.spans = [sp for sp in self.spans if (sp.start, sp.end) not in too_long]
        self.gaps = [g for g in self.gaps if (g[0], g[1]) not in too_long]
        for bounds, a, b in self.runs:
            if (bounds[a], bounds[b]) in too_long:
                self._split_run(bounds, a, b)

    def _split_run(self, bounds, a: int, b: int) -> None:
        count, text = self.counter.count, self.text
        while a < b:
            k = a + 1
            while k < b and count(text[bounds[a]:bounds[k + 1]]) <= self.size:
                k += 1
            self._emit(bounds[a], bounds[k])
            a = k

    def _emit(self, start: int, end: int, oversized: bool = False) -> None:
        text = self.text
        if not _NON_SPACE.search(text, start, end):
            if self.gaps and start <= self.gaps[-1][1]:  # overlapping windows of whitespace: one gap
                start = min(start, self.gaps[-1][0])
                end = max(end, self.gaps.pop()[1])
            self.gaps.append((start, end, "whitespace only"))
            return
        if start == 0:
            boundary, label = "start", "start of text"
        else:  # separators open the piece they precede, so the chunk's first characters say which
            if text.startswith("\n\n", start):
                sep = "\n\n"
            else:
                sep = text[start] if text[start] in "\n " else ""
            boundary, label = _BOUNDARY[sep]
        self.spans.append(Span(start, end, boundary, label, metadata={"oversized": True} if oversized else {}))


def run(doc, params, ctx) -> Proposal:
    counter = ctx.counter(params["unit"])
    splitter = _Splitter(doc.text, params["size"], params["overlap"], counter, ctx)
    if doc.text:
        splitter.split(0, len(doc.text), SEPARATORS)
        splitter.verify()
    return Proposal(splitter.spans, gaps=splitter.gaps)


register(Strategy(
    name="recursive",
    summary="LangChain's recursive character splitter (paragraphs, then lines, words, characters) "
            "with exact offsets and no stripped whitespace.",
    params=(
        Param("size", "int", 1000, "Largest chunk, in `unit`s.", min=1, max=100_000_000, step=100),
        Param("overlap", "int", 200, "Most of a chunk's tail the next chunk repeats, in whole pieces "
              "(smaller than size).", min=0, max=100_000_000, step=50),
        Param("unit", "choice", "chars", "What size and overlap count: characters or tokens of the "
              "run's tokenizer.", choices=("chars", "tokens")),
    ),
    run=run,
    validate_extra=check_overlap_below_size(),
    max_size=lambda p: (p["unit"], p["size"]),
))
