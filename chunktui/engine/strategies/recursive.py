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

from . import Param, Proposal, Strategy, check_overlap_below_size, register
from ..model import Span

SEPARATORS = ("\n\n", "\n", " ", "")
_BOUNDARY = {"\n\n": ("paragraph", "blank line"), "\n": ("line", "line break"),
             " ": ("word", "space"), "": ("char", "character")}
_PATTERNS = {sep: re.compile(re.escape(sep)) for sep in SEPARATORS if sep}


class _Splitter:
    def __init__(self, text: str, size: int, overlap: int, counter, ctx):
        self.text, self.size, self.overlap = text, size, overlap
        self.counter, self.ctx = counter, ctx
        self.exact = counter.name == "chars"
        self.spans: list[Span] = []
        self.gaps: list[tuple[int, int, str]] = []
        self.runs: list[tuple[list, int, int]] = []  # token runs still to verify
        self._char_counts: dict[str, int] = {}

    def lengths(self, pieces: list[tuple[int, int]], sep: str) -> list[int]:
        if self.exact:
            return [e - s for s, e in pieces]
        if sep == "":  # one character a piece: count each distinct character once
            cache, text, count = self._char_counts, self.text, self.counter.count
            out = []
            for s, _ in pieces:
                ch = text[s]
                if ch not in cache:
                    cache[ch] = count(ch)
                out.append(cache[ch])
            return out
        return self.counter.count_spans(self.text, pieces)

    def split(self, start: int, end: int, separators: tuple[str, ...]) -> None:
        """LangChain's `_split_text` on text[start:end], emitting spans in order."""
        self.ctx.check()
        text = self.text
        sep, rest = separators[-1], ()
        for i, candidate in enumerate(separators):
            if candidate == "":
                sep = candidate
                break
            if text.find(candidate, start, end) != -1:
                sep, rest = candidate, separators[i + 1:]
                break
        if sep == "" and self.exact and self.size > 1:
            self._char_windows(start, end)
            return
        pieces = self._pieces(start, end, sep)
        lengths = self.lengths(pieces, sep)
        good: list[int] = []
        for k, length in enumerate(lengths):
            if length < self.size:
                good.append(k)
                continue
            if good:
                self._merge([pieces[g] for g in good], [lengths[g] for g in good])
                good = []
            if rest:
                self.split(*pieces[k], rest)
            else:
                self._emit(*pieces[k], oversized=length > self.size)
        if good:
            self._merge([pieces[g] for g in good], [lengths[g] for g in good])

    def _pieces(self, start: int, end: int, sep: str) -> list[tuple[int, int]]:
        """Pieces of text[start:end], each separator opening the piece after it; no empty pieces."""
        if sep == "":
            return [(i, i + 1) for i in range(start, end)]
        cuts = [start]
        for m in _PATTERNS[sep].finditer(self.text, start, end):
            if m.start() > cuts[-1]:
                cuts.append(m.start())
        cuts.append(end)
        return list(zip(cuts, cuts[1:]))

    def _merge(self, pieces, lengths) -> None:
        """LangChain's `_merge_splits`: grow a run of pieces up to `size`, keep at most
        `overlap` of its tail for the next chunk."""
        size, overlap = self.size, self.overlap
        first, total = 0, 0
        for k, length in enumerate(lengths):
            if total + length > size and k > first:
                self._emit_run(pieces, first, k)
                while total > overlap or (total + length > size and total > 0):
                    total -= lengths[first]
                    first += 1
            total += length
        if first < len(pieces):
            self._emit_run(pieces, first, len(pieces))

    def _emit_run(self, pieces, a: int, b: int) -> None:
        """Emit pieces[a:b] as one chunk. With tokens the run waits for `verify`: BPE is not
        additive, so the joined text is counted again (in one batch) before it is trusted."""
        if not self.exact and b - a > 1:
            self.runs.append((pieces, a, b))
        self._emit(pieces[a][0], pieces[b - 1][1])

    def verify(self) -> None:
        """Split any token run whose joined text encodes longer than `size`."""
        if not self.runs:
            return
        ends = [(pieces[a][0], pieces[b - 1][1]) for pieces, a, b in self.runs]
        too_long = {span for span, n in zip(ends, self.counter.count_spans(self.text, ends)) if n > self.size}
        if not too_long:
            return
        self.spans = [sp for sp in self.spans if (sp.start, sp.end) not in too_long]
        self.gaps = [g for g in self.gaps if (g[0], g[1]) not in too_long]
        for pieces, a, b in self.runs:
            if (pieces[a][0], pieces[b - 1][1]) in too_long:
                self._split_run(pieces, a, b)

    def _split_run(self, pieces, a: int, b: int) -> None:
        count, text = self.counter.count, self.text
        while a < b:
            start, k = pieces[a][0], a + 1
            while k < b and count(text[start:pieces[k][1]]) <= self.size:
                k += 1
            self._emit(start, pieces[k - 1][1])
            a = k

    def _char_windows(self, start: int, end: int) -> None:
        """The merge of one-character pieces in closed form: windows of `size`, stepping
        `size - overlap` (what `_merge` computes, without a Python object per character)."""
        pos = start
        while True:
            stop = min(pos + self.size, end)
            self._emit(pos, stop)
            if stop >= end:
                return
            pos = stop - self.overlap

    def _emit(self, start: int, end: int, oversized: bool = False) -> None:
        if self.text[start:end].isspace():
            if self.gaps and start <= self.gaps[-1][1]:  # overlapping windows of whitespace: one gap
                start = min(start, self.gaps[-1][0])
                end = max(end, self.gaps.pop()[1])
            self.gaps.append((start, end, "whitespace only"))
            return
        if start == 0:
            boundary, label = "start", "start of text"
        else:  # separators open the piece they precede, so the chunk's first characters say which
            sep = next(s for s in SEPARATORS if self.text.startswith(s, start))
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
