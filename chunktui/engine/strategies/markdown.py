"""`markdown` (cgft MarkdownChunker): sections by H1-H3, small ones fused, large ones split.

Three stages, all on offsets of the untouched source so repeated text and
whitespace never shift a chunk:

1. Split at H1/H2/H3 headings (ATX `#` outside fenced code, and setext
   `===` / `---` underlines); each section keeps its header path.
2. Fuse adjacent sections while the running chunk or the next section is
   shorter than `min_char` and the result still fits `max_char`; the fused
   chunk keeps the first section's header path and lists every fused heading.
3. Split sections longer than `max_char`: cut at the last paragraph break in the
   second half of the allowed window, else a line break, else a space, else a
   character (then the same over the whole window); the next piece starts at the first word boundary at most
   `chunk_overlap` characters before the cut. Cuts never fall inside a fenced
   code block unless the block alone is longer than `max_char`; such a block is
   cut at line breaks and its pieces carry `cut_code_block` (they still fit
   `max_char`, so none is ever `oversized`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from . import Param, Proposal, Strategy, check_overlap_below_size, register
from ..derived import derived
from ..model import SpanTable

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# a setext underline is nothing but "=" or "-": list items ("- x") are not candidates.
# _CANDIDATE checks one line start; _NEXT_CANDIDATE finds the newline before the next such line
# (a literal first character lets the regex engine skip ahead; "^" with re.M tries every position)
_CANDIDATE_LINE = r" {0,3}(?:`{3}|~{3}|#|=+[ \t]*\r?$|-+[ \t]*\r?$)"
_CANDIDATE = re.compile(_CANDIDATE_LINE, re.M)
_NEXT_CANDIDATE = re.compile(rf"\n(?={_CANDIDATE_LINE})", re.M)
# the line that may close a fence of this character: the fence characters alone (no more than
# three spaces before them, any whitespace after); its length is checked against the opening's
_CLOSING = {c: re.compile(rf"\n {{0,3}}({re.escape(c)}{{3,}})[^\S\n]*(?=\n|\Z)") for c in "`~"}
_FRONT_MATTER_END = re.compile(r"^[ \t]*(?:---|\.\.\.)[ \t]*\r?$", re.M)
_NOT_SETEXT_TEXT = re.compile(r"^\s{0,3}(?:[-*+>|]|\d+[.)]\s|#|`{3}|~{3})")
_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t\r]*\n)+")
_BEFORE_WORD = re.compile(r"\s(?=\S)")
# the last match in a window: a greedy `.*` runs to the window's end and backs off to the
# rightmost start where the pattern matches (a blank-line run ends where the last one does)
_LAST_PARAGRAPH_BREAK = re.compile(r"(?s).*" + _PARAGRAPH_BREAK.pattern)
_LAST_BEFORE_WORD = re.compile(r"(?s).*" + _BEFORE_WORD.pattern)


@dataclass
class MarkdownScan:
    """Headings and fenced blocks of a markdown text, by 1-based line number."""

    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, title)
    fences: list[tuple[int, int]] = field(default_factory=list)  # (first line, last line), inclusive
    in_fence: bytearray = field(default_factory=bytearray)  # index 1..n: 1 inside a fence or front matter


def split_lines(text: str, line_count: int) -> list[str]:
    """The document's lines without "\\n" or a trailing "\\r" (index 0 is line 1)."""
    lines = text.split("\n")[:line_count]
    return [l[:-1] if l.endswith("\r") else l for l in lines]


def scan_markdown(doc) -> MarkdownScan:
    """Fences (unclosed ones run to the end), front matter and headings of `doc`.

    Scanned once per document (shared, read-only): re-chunking with new
    parameters reuses it. Only lines that can open or close a fence or be a heading are looked at (one
    regex pass over the text), so long plain runs cost nothing in Python.
    """
    return derived(doc, "markdown_scan", lambda: _scan(doc))


def _scan(doc) -> MarkdownScan:
    text, starts, n = doc.text, doc.line_starts, doc.line_count
    scan = MarkdownScan(in_fence=bytearray(n + 2))

    def line(i: int) -> str:
        end = starts[i] - 1 if i < len(starts) else len(text)
        s = text[starts[i - 1]:end]
        return s[:-1] if s.endswith("\r") else s

    begin = special = 0  # special: last line taken as front matter, fence or heading, never setext text
    if n > 1 and line(1).strip() == "---":  # YAML front matter is not a setext underline
        m = _FRONT_MATTER_END.search(text, starts[1])
        if m:
            last = bisect_right(starts, m.start())
            scan.in_fence[1:last + 1] = b"\x01" * last
            begin = starts[last] if last < len(starts) else len(text)
            special = last
    # candidate lines in order; inside a fence only its closing line matters, so the search jumps there
    i = bisect_right(starts, begin) if _CANDIDATE.match(text, begin) else None
    pos, search = begin, _NEXT_CANDIDATE.search
    while True:
        if i is None:
            m = search(text, pos)
            if m is None:
                break
            i = bisect_right(starts, m.end())
        if i > n:
            break
        pos = starts[i - 1]  # the next search finds the newline that ends this line
        ln = line(i)
        fm = _FENCE.match(ln)
        if fm and not (fm.group(1)[0] == "`" and "`" in ln[fm.end():]):
            close = _closing_line(text, starts, i, fm.group(1)[0], len(fm.group(1)))
            scan.fences.append((i, n if close is None else close))
            if close is None:
                break
            special, pos, i = close, starts[close - 1], None
            continue
        am = _ATX.match(ln) if "#" in ln[:4] else None
        if am:
            scan.headings.append((i, len(am.group(1)), (am.group(2) or "").strip()))
            special = i
        elif i > 1 and special != i - 1 and _SETEXT.match(ln):
            prev = line(i - 1)
            if prev.strip() and not _NOT_SETEXT_TEXT.match(prev) and not prev.startswith(("    ", "\t")):
                scan.headings.append((i - 1, 1 if ln.lstrip(" ")[0] == "=" else 2, prev.strip()))
                special = i
        i = None
    for a, b in scan.fences:
        scan.in_fence[a:b + 1] = b"\x01" * (b - a + 1)
    return scan


def _closing_line(text: str, starts: list[int], opening: int, char: str, length: int) -> int | None:
    """The line that closes the fence opened on line `opening`, or None (it runs to the end)."""
    pattern, pos = _CLOSING[char], starts[opening - 1]
    while (m := pattern.search(text, pos)) is not None:
        if len(m.group(1)) >= length:
            return bisect_right(starts, m.start() + 1)
        pos = m.end()
    return None


def heading_label(level: int, title: str) -> str:
    return "#" * level + (" " + title if title else "")


@dataclass
class _Section:
    start: int
    end: int
    header_path: list[str]
    heading: str  # "## Title", or "" for the text before the first heading


def _sections(doc, scan: MarkdownScan) -> list[_Section]:
    """Contiguous sections covering the whole text, one per H1-H3 heading (plus any preamble)."""
    heads = [h for h in scan.headings if h[1] <= 3]
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    first = doc.line_start(heads[0][0]) if heads else len(doc.text)
    if first > 0:
        sections.append(_Section(0, first, [], ""))
    for k, (line, level, title) in enumerate(heads):
        path = [p for p in path if p[0] < level] + [(level, title)]
        start = doc.line_start(line)
        end = doc.line_start(heads[k + 1][0]) if k + 1 < len(heads) else len(doc.text)
        sections.append(_Section(start, end, [t for _, t in path], heading_label(level, title)))
    return sections


def _fuse(sections: list[_Section], min_char: int, max_char: int) -> list[list[_Section]]:
    """Groups of adjacent sections: a short running group or a short next section is joined if it fits."""
    groups: list[list[_Section]] = []
    for sec in sections:
        if groups:
            group = groups[-1]
            size = group[-1].end - group[0].start
            nxt = sec.end - sec.start
            if (size < min_char or nxt < min_char) and size + nxt <= max_char:
                group.append(sec)
                continue
        groups.append([sec])
    return groups


class _Cuts:
    """Allowed cut positions of one section, found by searching only the window asked about."""

    def __init__(self, text: str, fences: list[tuple[int, int]], max_char: int):
        self.text = text
        self.fences = [(a, b) for a, b in fences if b - a <= max_char]  # kept whole
        self.big = [(a, b) for a, b in fences if b - a > max_char]  # may be cut

    def _kept_fence_around(self, pos: int) -> tuple[int, int] | None:
        if not self.fences:
            return None
        k = bisect_right(self.fences, (pos, float("inf"))) - 1
        if k >= 0 and self.fences[k][0] < pos < self.fences[k][1]:
            return self.fences[k]
        return None

    def allowed(self, pos: int) -> bool:
        return self._kept_fence_around(pos) is None

    def _last_of(self, level: int, lo: int, hi: int) -> int | None:
        text = self.text
        if level == 0:  # the line after a run of blank lines
            m = _LAST_PARAGRAPH_BREAK.match(text, lo, hi)
            return m.end() if m is not None else None
        if level == 1:
            j = text.rfind("\n", lo, hi)
            return j + 1 if j >= 0 else None
        if level == 2:  # a non-space character after a space (the look-ahead may read text[hi])
            m = _LAST_BEFORE_WORD.match(text, lo, min(len(text), hi + 1))
            return m.end() if m is not None else None
        return hi - 1 if text[hi - 1:hi + 1] == "\r\n" else hi

    def last(self, level: int, lo: int, hi: int) -> int | None:
        """Greatest allowed position of `level` (0 paragraph, 1 line, 2 word, 3 any char) in (lo, hi]."""
        while hi > lo:
            pos = self._last_of(level, lo, hi)
            if pos is None or pos <= lo:
                return None
            fence = self._kept_fence_around(pos)
            if fence is None:
                return pos
            hi = fence[0]
        return None

    def first(self, lo: int, hi: int) -> int | None:
        """Smallest allowed line or word start in [lo, hi)."""
        text = self.text
        while lo < hi:
            j = text.find("\n", lo - 1, hi - 1)
            m = _BEFORE_WORD.search(text, lo - 1, hi)
            if m is None and j < 0:
                return None
            pos = j + 1 if m is None else m.end() if j < 0 else min(j + 1, m.end())
            fence = self._kept_fence_around(pos)
            if fence is None:
                return pos
            lo = fence[1]
        return None


_LEVEL_NAMES = ("paragraph", "line", "word", "char")


def _split(text: str, sec_start: int, sec_end: int, fences, max_char: int, overlap: int, ctx) -> list[tuple[int, int, str, bool]]:
    """Pieces (start, end, boundary_type of the start, cuts_code_block) of one long section."""
    cuts = _Cuts(text, fences, max_char)
    pieces: list[tuple[int, int, str, bool]] = []
    start, kind = sec_start, "heading"
    while True:
        ctx.check()
        limit = start + max_char
        if limit >= sec_end:
            pieces.append((start, sec_end, kind, False))
            break
        cut = None
        for low in (start + max_char // 2, start):
            for level in range(4):
                cut = cuts.last(level, low, limit)
                if cut is not None:
                    break
            if cut is not None:
                break
        if cut is None:  # cannot happen while `start` is never inside a kept fence; cut hard rather than loop
            cut, level = limit, 3
        pieces.append((start, cut, kind, False))
        nxt = cut
        if overlap:
            lo = max(cut - overlap, start + 1)
            word = cuts.first(lo, cut)
            if word is not None:
                nxt = word
            elif cuts.allowed(lo) and text[lo - 1:lo + 1] != "\r\n":
                nxt = lo
        start, kind = nxt, _LEVEL_NAMES[level]
    if not cuts.big:
        return pieces
    return [(a, b, k, _cuts_big(a, b, cuts.big)) for a, b, k, _ in pieces]


def _cuts_big(a: int, b: int, big) -> bool:
    return any(fa < b and a < fb and (a > fa or b < fb) for fa, fb in big)


def run(doc, params, ctx) -> Proposal:
    min_char, max_char, overlap = params["min_char"], params["max_char"], params["chunk_overlap"]
    text = doc.text
    scan = scan_markdown(doc)
    fences = [(doc.line_start(a), doc.line_end(b)) for a, b in scan.fences]
    rows: list[tuple] = []  # (start, end, boundary type, label, metadata) of each span, in order
    groups = _fuse(_sections(doc, scan), min_char, max_char)
    for gi, group in enumerate(groups):
        ctx.check()
        ctx.progress(gi / max(1, len(groups)))
        first = group[0]
        start, end = first.start, group[-1].end
        meta = {"header_path": list(first.header_path)}
        if len(group) > 1:
            meta["fused_headings"] = [s.heading for s in group if s.heading]
            meta["sections"] = len(group)
        btype = "heading" if first.heading else "start"
        label = first.heading
        if end - start <= max_char:
            rows.append((start, end, btype, label, meta))
            continue
        inner = fences[bisect_left(fences, (start, -1)):bisect_left(fences, (end, -1))]
        pieces = _split(text, start, end, inner, max_char, overlap, ctx)
        for k, (a, b, kind, cut_code) in enumerate(pieces):
            m = dict(meta, part=k + 1, parts=len(pieces))
            if cut_code:
                m["cut_code_block"] = True
            rows.append((a, b, btype if k == 0 else kind,
                         label if k == 0 else f"{label or 'start'} (part {k + 1}/{len(pieces)})", m))
    return Proposal(SpanTable(*map(list, zip(*rows))) if rows else [])


register(Strategy(
    name="markdown",
    summary="Sections by H1-H3 with header paths; short sections fused, long ones split with overlap, code fences kept whole.",
    params=(
        Param("min_char", "int", 1024, "Sections shorter than this are fused with their neighbours.", min=0, max=10_000_000, step=128),
        Param("max_char", "int", 2048, "Sections longer than this are split (characters).", min=1, max=10_000_000, step=128),
        Param("chunk_overlap", "int", 128, "Characters repeated between the pieces of a split section.", min=0, max=10_000_000, step=16),
    ),
    run=run,
    kinds=("markdown",),
    validate_extra=check_overlap_below_size("max_char", "chunk_overlap"),
    size_param="max_char",
    overlap_param="chunk_overlap",
    max_size=lambda p: ("chars", p["max_char"]),
))
