"""`markdown` (cgft MarkdownChunker): sections by H1-H3, small ones fused, large ones split.

Three stages, all on offsets of the untouched source so repeated text and
whitespace never shift a chunk:

1. Split at H1/H2/H3 headings (ATX `#` outside fenced code, and setext
   `===` / `---` underlines); each section keeps its header path.
2. Fuse adjacent sections while the running chunk or the next section is
   shorter than `min_chars` and the result still fits `max_chars`; the fused
   chunk keeps the first section's header path and lists every fused heading.
   A section holding only its heading always goes with the next one.
3. Split sections longer than `max_chars`: cut at the last paragraph break in the
   second half of the allowed window, else a line break, else a space, else a
   character (then the same over the whole window); the next piece starts at the first word boundary at most
   `overlap_chars` characters before the cut, else at the first word inside a URL or path
   there (a letter or digit after punctuation), else at the cut: an overlap is shorter or
   none rather than starting mid-word. Cuts never fall inside a fenced
   code block unless the block alone is longer than `max_chars`; such a block is
   cut at line breaks and its pieces carry `cut_code_block` (they still fit
   `max_chars`, so none is ever `oversized`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import cached_property, lru_cache
from collections.abc import Callable, Sequence
from itertools import chain

from . import Order, Param, Proposal, Strategy, register
from ._boilerplate import heading_title
from ..core.derived import derived
from ..core.model import SpanTable

# a line that opens or closes a fence or is a heading, parsed where it is found: up to three spaces,
# then a fence (a backtick fence's info has no backtick) and the rest of its line, or up to six "#"
# and the rest of the line (_atx_title decides), or a setext underline (nothing but "=" or "-", so
# list items are not candidates). The first line is matched in place; one finditer finds every other
# one: its literal "\n" lets the regex engine skip ahead (where "^" with re.M tries every position)
# and the look-ahead (the indent and a marker character) drops most lines before the alternatives
# are tried. What follows an indent is never a space, so it is matched possessively (no backing off).
_CANDIDATE_BODY = r" {0,3}+(?:(`{3,}(?=[^`\n]*$)|~{3,})([^\n]*)|(#{1,6})([^\n]*)|(=+|-+)[ \t]*\r?$)"
_CANDIDATE = re.compile(_CANDIDATE_BODY, re.M)
_NEXT_CANDIDATE = re.compile(r"\n(?= {0,3}+[#`~=-])" + _CANDIDATE_BODY, re.M)
_FRONT_MATTER_END = re.compile(r"^[ \t]*(?:---|\.\.\.)[ \t]*\r?$", re.M)
_NOT_SETEXT_TEXT = re.compile(r"^\s{0,3}(?:[-*+>|]|\d+[.)]\s|#|`{3}|~{3})")
_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t\r]*\n)+")
_BEFORE_WORD = re.compile(r"\s(?=\S)")
_NEXT_START = re.compile(r"\n|\s(?=\S)")  # the character before a line or a word (its end is the start)
# where no line or word start is within reach (a long URL or path): a letter or digit after
# punctuation, as "rust" in "github.com/rust-lang" (the match ends at it); never between two letters
_INNER_WORD = re.compile(r"(?:[^\w\s]|_)(?=[^\W_])").search
# the last match in a window: a greedy `.*` runs to the window's end and backs off to the
# rightmost start where the pattern matches (a blank-line run ends where the last one does)
_LAST_PARAGRAPH_BREAK = re.compile(r"(?s).*" + _PARAGRAPH_BREAK.pattern)
_LAST_BEFORE_WORD = re.compile(r"(?s).*" + _BEFORE_WORD.pattern)
_HEADING_REST = re.compile(r"\s*+(?:(?:=+|-+)\s*+)?")  # after a heading's first line: a setext underline at most


class MarkdownScan:
    """Headings and fenced blocks of a markdown text, found by offset; by 1-based line number on demand."""

    def __init__(self, starts: list[int], line_count: int, front_matter: int):
        self.starts, self.line_count = starts, line_count
        self.front_matter = front_matter  # lines of YAML front matter at the top (0 if none)
        self.heads: list[tuple[int, int, str]] = []  # (offset of the line, level, title without note marks)
        self.fence_spans: list[tuple[int, int]] = []  # (offset of the opening line, offset past the closing one)

    @cached_property
    def headings(self) -> list[tuple[int, int, str]]:
        """(line, level, title) of every heading."""
        return [(bisect_right(self.starts, s), level, title) for s, level, title in self.heads]

    @cached_property
    def fences(self) -> list[tuple[int, int]]:
        """(first line, last line), inclusive, of every fenced block."""
        return [(bisect_right(self.starts, a), bisect_right(self.starts, b - 1)) for a, b in self.fence_spans]

    @cached_property
    def in_fence(self) -> bytearray:
        """Index 1..n: 1 on a line inside a fence or the front matter."""
        flags = bytearray(self.line_count + 2)
        flags[1 : self.front_matter + 1] = b"\x01" * self.front_matter
        for a, b in self.fences:
            flags[a : b + 1] = b"\x01" * (b - a + 1)
        return flags


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
    begin = front = 0
    if n > 1 and text[: starts[1] - 1].strip() == "---":  # YAML front matter is not a setext underline
        m = _FRONT_MATTER_END.search(text, starts[1])
        if m:
            front = bisect_right(starts, m.start())
            begin = starts[front] if front < len(starts) else len(text)
    scan = MarkdownScan(starts, n, front)
    heads, fences = scan.heads, scan.fence_spans
    special = begin  # where the line after the last front matter, fence or heading starts (never setext text)
    # every match but the first line's starts at the "\n" before its line
    found = _NEXT_CANDIDATE.finditer(text, begin - 1 if begin else 0)
    first = None if begin else _CANDIDATE.match(text)
    fence = None  # (offset of the opening line, fence character, length) of the fence being skipped
    size = len(text)
    for m in chain((first,), found) if first else found:
        run, rest, hashes, after, underline = m.groups()
        if fence is not None:  # only the line that closes it matters
            if run and run[0] == fence[1] and len(run) >= fence[2] and (not rest or rest.isspace()):
                e = m.end() + 1
                fences.append((fence[0], e if e <= size else size))
                fence, special = None, e
        elif run:
            fence = (m.start() + (m is not first), run[0], len(run))
        elif hashes:  # most titles: after a space, no closing "#"s
            title = t if after[:1] == " " and (t := after.strip())[-1:] != "#" else _atx_title(after)
            if title is not None:
                heads.append((m.start() + (m is not first), len(hashes), heading_title(title)))
                special = m.end() + 1
        elif (s := m.start() + (m is not first)) > 0 and special != s:
            p = text.rfind("\n", 0, s - 1) + 1
            prev = text[p : s - 2] if s - 2 >= p and text[s - 2] == "\r" else text[p : s - 1]
            if prev.strip() and not _NOT_SETEXT_TEXT.match(prev) and not prev.startswith(("    ", "\t")):
                heads.append((p, 1 if underline[0] == "=" else 2, heading_title(prev.strip())))
                special = m.end() + 1
    if fence is not None:
        fences.append((fence[0], len(text)))
    return scan


def _atx_title(rest: str) -> str | None:
    """The title of an ATX heading whose line goes on with `rest` after its "#"s, or None if it is
    not one: a space or tab must follow the "#"s; a closing run of "#" after a space or tab is dropped."""
    if rest[-1:] == "\r":
        rest = rest[:-1]
    if rest and rest[0] not in " \t":
        return None
    title = rest.strip(" \t")
    if title[-1:] == "#":
        head = title.rstrip("#")
        if head[-1:] in (" ", "\t") and head:
            title = head
    return title.strip()


def heading_label(level: int, title: str) -> str:
    return "#" * level + (" " + title if title else "")


class _Cuts:
    """Allowed cut positions of one section, found by searching only the window asked about."""

    def __init__(self, text: str, fences: Sequence[tuple[int, int]], max_char: int):
        self.text = text
        self.fences = [(a, b) for a, b in fences if b - a <= max_char]  # kept whole
        self.fence_starts = [a for a, _ in self.fences]
        self.big = [(a, b) for a, b in fences if b - a > max_char]  # may be cut

    def _kept_fence_around(self, pos: int) -> tuple[int, int] | None:
        k = bisect_right(self.fence_starts, pos) - 1
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
        return hi - 1 if text[hi - 1 : hi + 1] == "\r\n" else hi

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


@lru_cache(maxsize=64)
def _cut_pattern(max_char: int, overlap: int) -> re.Pattern:
    """Matched at a piece's start, ends at its cut: after the last paragraph break, else line break,
    else before the last word in the window's second half, else `max_char` characters on; the group
    that matched names the level. A greedy count backs off from the window's end, so each level's
    first match is its last position; with a literal right after the count, the engine skips every
    position without that character. Only a blank line's spaces can run past the window (_split checks).

    With `overlap`, the group before the level's ends at the first line or word start at most
    `overlap` characters before the cut (a look-behind of that width holding a look-ahead): where
    the next piece starts, found in the same match."""
    half = max_char // 2
    n = overlap + 1  # a run of spaces or of other characters past that is no start before the cut
    back = rf"(?:(?<=(?=\S{{0,{n}}}+[^\S\n]{{0,{n}}}+(?:\n|(?=\S))()).{{{n}}})|)" if overlap else ""
    levels = [
        rf".{{{half},{max_char - 1}}}\n{back}(?P<line>)",
        rf".{{{half},{max_char - 1}}}\s(?=\S){back}(?P<word>)",
        f".{{{max_char}}}{back}(?P<char>)",
    ]
    if max_char - 2 >= half:  # room for a blank line in the second half
        levels.insert(0, rf".{{{half},{max_char - 2}}}\n[ \t\r]*\n{back}(?P<paragraph>)")
    return re.compile(f"(?s){'|'.join(levels)}")


def _split(
    text: str,
    start: int,
    sec_end: int,
    fences,
    max_char: int,
    overlap: int,
    kind: str,
    cut_at,
    ctx,
    starts: list[int],
    ends: list[int],
    kinds: list[str],
):
    """Appends the starts, ends and boundary types (the first one `kind`) of the pieces of one long
    section to the lists given; returns the _Cuts of its fences (None without any).
    `cut_at` is _cut_pattern(max_char, overlap).match.

    A piece's cut, and with overlap the next piece's start, is one regex match; only where the cut
    falls inside a fence kept whole or past the window (rare) does _Cuts search again, before the fence."""
    cuts = _Cuts(text, fences, max_char) if fences else None
    kept_starts, kept = (cuts.fence_starts, cuts.fences) if cuts else ((), ())
    half, next_start, check = max_char // 2, _NEXT_START.search, ctx.check
    add_start, add_end, add_kind = starts.append, ends.append, kinds.append
    while (limit := start + max_char) < sec_end:
        if not len(starts) & 255:
            check()
        add_start(start)
        add_kind(kind)
        m = cut_at(text, start, sec_end)
        cut, kind = m.end(), m.lastgroup
        if kind == "char" and text[cut - 1 : cut + 1] == "\r\n":
            cut -= 1
            m = None
        if (
            cut > limit
            or cut <= start + half
            or kept_starts
            and (k := bisect_right(kept_starts, cut) - 1) >= 0
            and kept[k][0] < cut < kept[k][1]
        ):
            cut, level = _cut(cuts or _Cuts(text, (), max_char), start, limit, half)
            kind = _LEVEL_NAMES[level]
            m = None
        add_end(cut)
        if not overlap:
            start = cut
            continue
        lo = cut - overlap
        if m is not None and lo > start and (word := m.end(m.lastindex - 1)) >= 0:
            if word >= cut:  # the look-behind's answer: the first line or word start from `lo` on
                word = None
        else:
            if lo <= start:
                lo = start + 1
            if not (lo < cut and (m := next_start(text, lo - 1, cut)) is not None and (word := m.end()) < cut):
                word = None
        if word is None and (m := _INNER_WORD(text, lo - 1, cut)) is not None:
            word = m.end()  # no line or word start within reach: a word inside a URL or path
        if (
            word is not None
            and cuts
            and (k := bisect_right(kept_starts, word) - 1) >= 0
            and kept[k][0] < word < kept[k][1]
        ):
            word = cuts.first(kept[k][1], cut)
        start = cut if word is None else word  # never mid-word: a shorter overlap or none
    add_start(start)
    add_kind(kind)
    add_end(sec_end)
    return cuts


def _heading_only(text: str, start: int, end: int) -> bool:
    """Whether the section in [start, end) holds nothing but its heading (an ATX line, or a setext
    title and its underline): such a section goes with the next one, never into a chunk alone.
    Only the text after the heading's first line is read, and only where a group would end."""
    nl = text.find("\n", start, end)
    return nl < 0 or _HEADING_REST.fullmatch(text, nl + 1, end) is not None


def _cut(cuts: _Cuts, start: int, limit: int, half: int) -> tuple[int, int]:
    """(cut, level) of a piece from `start`, looking before the fences kept whole: the last paragraph
    break, else line, word or character in the window's second half, then the same over all of it."""
    for low in (start + half, start):
        for level in range(4):
            cut = cuts.last(level, low, limit)
            if cut is not None:
                return cut, level
    return limit, 3  # cannot happen while `start` is never inside a kept fence; cut hard rather than loop


def _cutting_big(starts: list[int], ends: list[int], big, max_char: int) -> set[int]:
    """Indexes of the pieces that hold part, not all, of a fence longer than max_char. Piece starts
    rise and a piece is at most max_char long, so only pieces starting in (fa - max_char, fb) are looked at."""
    found = set()
    for fa, fb in big:
        for k in range(bisect_right(starts, fa - max_char), bisect_left(starts, fb)):
            a, b = starts[k], ends[k]
            if fa < b and (a > fa or b < fb):
                found.add(k)
    return found


_HASHES = ("", "# ", "## ", "### ")
_NONES: tuple[tuple[None, ...], ...] = ((), (None, None), (None,), ())  # the levels below 1, 2, 3 that a heading resets
_NON_BLANK = re.compile(r"\S")


def heading_path_at(doc) -> Callable[[int, int], tuple[str, ...]] | None:
    """`(start, end) -> path`: the header path in force at the first non-blank character of
    text[start:end] of a markdown document (or an extracted PDF, HTML or DOCX text), as `run`
    gives a section: the H1-H3 titles above it. A piece that opens with the blank lines before a
    heading is under that heading. `--context-header path` takes it for chunks whose strategy
    names no place. None for other kinds. The paths are made once per document from its scan."""
    if doc.kind != "markdown":
        return None
    offsets, paths = derived(doc, "heading_paths", lambda: _heading_paths(scan_markdown(doc)))
    search = _NON_BLANK.search
    text = doc.text

    def at(start: int, end: int) -> tuple[str, ...]:
        m = search(text, start, end)
        i = bisect_right(offsets, m.start() if m else start)
        return paths[i - 1] if i else ()

    return at


def _heading_paths(scan: MarkdownScan) -> tuple[list[int], list[tuple[str, ...]]]:
    """Where each H1-H3 heading's line starts, and the header path from there on."""
    offsets: list[int] = []
    paths: list[tuple[str, ...]] = []
    titles: tuple[str | None, ...] = (None, None, None)
    for offset, level, title in scan.heads:
        if level <= 3:
            titles = titles[: level - 1] + (title,) + _NONES[level]
            offsets.append(offset)
            paths.append(tuple(t for t in titles if t is not None))
    return offsets, paths


class _DeepHeadings:
    """The H4-H6 headings, which do not start sections but name what a split piece starts under."""

    def __init__(self, heads: list[tuple[int, int, str]]):
        self.heads = heads
        self.offsets = [h[0] for h in heads]

    def paths(self, section: int, cores: list[int]) -> list[list[str]]:
        """For each core start (in order) in the section starting at `section`, the titles of the
        H4-H6 headings in force there, shallowest first."""
        out: list[list[str]] = []
        stack: list[tuple[int, str]] = []
        i = bisect_left(self.offsets, section)
        for core in cores:
            while i < len(self.heads) and self.offsets[i] <= core:
                _, level, title = self.heads[i]
                stack = [h for h in stack if h[0] < level] + [(level, title)]
                i += 1
            out.append([t for _, t in stack if t])
        return out


def run(doc, params, ctx) -> Proposal:
    """A section runs from one H1-H3 heading to the next (the text before the first one is a section
    without heading); a short running group or a short next section is joined if it fits. Header
    paths and labels are built per chunk-to-be, not per section; a long group is split."""
    min_char, max_char, overlap = params["min_chars"], params["max_chars"], params["overlap_chars"]
    text = doc.text
    scan = scan_markdown(doc)
    fences = scan.fence_spans
    fence_starts = [a for a, _ in fences]
    titled = [h for h in scan.heads if h[1] <= 3]
    deep = _DeepHeadings([h for h in scan.heads if h[1] > 3])
    bounds = [h[0] for h in titled]
    heads: list[tuple[int, int, str] | None] = list(titled)  # None: the text before the first heading
    if not bounds or bounds[0] > 0:
        bounds.insert(0, 0)
        heads.insert(0, None)
    bounds.append(len(text))
    starts: list[int] = []
    ends: list[int] = []
    types: list[str] = []
    labels: list[str] = []
    metas: list[dict] = []
    total = max(1, len(text))
    check, progress = ctx.check, ctx.progress
    cut_at = _cut_pattern(max_char, overlap).match
    parts: dict[int, list[str]] = {}  # n -> [" (part 2/n)", ..., " (part n/n)"]: one f-string per n, not per piece
    titles: tuple[str | None, ...] = (None, None, None)  # the title in force at each level
    i, n = 0, len(bounds) - 1 if bounds[-1] else 0  # an empty text has no section
    while i < n:
        check()
        start, j = bounds[i], i + 1
        end = bounds[j]
        progress(start / total)
        while j < n:
            after = bounds[j + 1]
            if (
                (end - start < min_char or after - end < min_char)
                and after - start <= max_char
                or heads[j - 1] is not None
                and _heading_only(text, bounds[j - 1], end)
            ):
                j += 1
                end = after
            else:
                break
        head = heads[i]
        if head is None:
            path, label, btype = [], "", "start"
        else:
            _, level, title = head
            titles = titles[: level - 1] + (title,) + _NONES[level]
            path = [t for t in titles if t is not None]
            label, btype = _HASHES[level] + title if title else "#" * level, "heading"
        if j > i + 1:
            fused = [label] if head is not None else []
            for _, level, title in filter(None, heads[i + 1 : j]):  # only the first section can be without heading
                titles = titles[: level - 1] + (title,) + _NONES[level]
                fused.append(_HASHES[level] + title if title else "#" * level)
        if j > i + 1 and end - start <= max_char:
            meta = {"header_path": path, "fused_headings": fused, "sections": len(fused) + (head is None)}
            starts.append(start)
            ends.append(end)
            types.append(btype)
            labels.append(label)
            metas.append(meta)
        elif end - start <= max_char:
            meta = {"header_path": path}
            starts.append(start)
            ends.append(end)
            types.append(btype)
            labels.append(label)
            metas.append(meta)
        else:
            inner = fences[bisect_left(fence_starts, start) : bisect_left(fence_starts, end)]
            first = len(starts)
            cuts = _split(text, start, end, inner, max_char, overlap, btype, cut_at, ctx, starts, ends, types)
            k = len(starts) - first
            labels.append(label)
            tails = parts.get(k) or parts.setdefault(k, [f" (part {p}/{k})" for p in range(2, k + 1)])
            labels += map((label or "start").__add__, tails)
            # each piece its own header path, as every chunk's metadata is its own, down to the
            # H4-H6 heading it starts under (`filehandle.close()`, not only `Class: FileHandle`)
            cores = [start, *ends[first : first + k - 1]]
            metas += [
                {"header_path": path + deeper, "part": p, "parts": k}
                for p, deeper in enumerate(deep.paths(start, cores), 1)
            ]
            if j > i + 1:  # a heading-only section and the long one it goes with
                for meta in metas[first:]:
                    meta["fused_headings"] = fused.copy()
            if cuts is not None and cuts.big:
                for p in _cutting_big(starts[first:], ends[first:], cuts.big, max_char):
                    metas[first + p]["cut_code_block"] = True
        i = j
    return Proposal(SpanTable(starts, ends, types, labels, metas) if starts else [])


# 1280 characters with the overlap hold 512 tokens of dense text (an API reference's code, an XML
# table: 2.2-2.8 characters a token); cgft's 2048 made 48 of Node's fs.md's 180 chunks over budget
register(
    Strategy(
        name="markdown",
        summary="Sections by H1-H3 with header paths; short sections fused, long ones split with overlap, code fences kept whole.",
        params=(
            Param(
                "min_chars",
                "int",
                640,
                "Sections shorter than this are fused with their neighbours.",
                min=0,
                max=10_000_000,
                step=128,
                aliases=("min_char",),
            ),
            Param(
                "max_chars",
                "int",
                1280,
                "Sections longer than this are split.",
                min=1,
                max=10_000_000,
                step=128,
                aliases=("max_char",),
            ),
            Param(
                "overlap_chars",
                "int",
                128,
                "Characters repeated between the pieces of a split section.",
                min=0,
                max=10_000_000,
                step=16,
                aliases=("chunk_overlap",),
            ),
        ),
        run=run,
        kinds=("markdown",),
        constraints=(Order("overlap_chars", "max_chars"),),
        size_param="max_chars",
        overlap_param="overlap_chars",
        overlap_at_most=True,
        max_size=lambda p: ("chars", p["max_chars"]),
    )
)
