"""`prose`: sections at `#`/`##` headers, packed to `min_tokens`..`max_tokens`.

From autowiki's prose chunking: cut at H1/H2 headers once a chunk has
`min_tokens`, otherwise at paragraph boundaries (blank lines) before it would pass
`max_tokens`; never mid-paragraph unless one paragraph alone is longer than
`max_tokens`, which is then cut at sentences, then words, then characters.
A heading never ends a chunk or stands alone: it moves to the chunk it
introduces, and a paragraph that fits only without its heading is cut at
sentences instead. Boilerplate (license header, table of contents, navigation
lines) becomes a declared gap with its reason instead of tokens an agent pays
for; `keep_boilerplate` keeps it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import Param, Proposal, Strategy, register
from ._boilerplate import find_boilerplate, parse_blocks
from ..core.model import Span, one_line

_SENTENCE_END = re.compile(r"[.!?…](?:[\"'”’)\]]*)[ \t]+|\n")
_WORD_START = re.compile(r"(?<=\s)(?=\S)")


class _Unit:
    """A paragraph (or heading, or code block) with its trailing blank lines, as packed."""

    __slots__ = ("start", "end", "kind", "level", "title", "tokens", "path")

    def __init__(self, start, end, block, path):
        self.start, self.end = start, end
        self.kind, self.level, self.title = block.kind, block.level, block.title
        self.path = path
        self.tokens = 0


def _units(doc, keep_boilerplate):
    """Units tiling the text outside boilerplate, and the boilerplate gaps."""
    blocks = parse_blocks(doc)
    boiler = {} if keep_boilerplate else find_boilerplate(doc, blocks)
    units: list[_Unit] = []
    gaps: list[tuple[int, int, str]] = []
    path: list[tuple[int, str]] = []
    for i, b in enumerate(blocks):
        start = 0 if i == 0 else b.start
        end = blocks[i + 1].start if i + 1 < len(blocks) else len(doc.text)
        if b.kind == "heading" and b.level:  # H4-H6 too: they tell the chunks of a long H2 apart
            path = [p for p in path if p[0] < b.level] + [(b.level, b.title)]
        if i in boiler:
            if gaps and gaps[-1][1] == start and gaps[-1][2] == boiler[i]:
                gaps[-1] = (gaps[-1][0], end, boiler[i])
            else:
                gaps.append((start, end, boiler[i]))
            continue
        units.append(_Unit(start, end, b, [t for _, t in path]))
    return units, gaps


def _regions(units):
    """Runs of units that touch: a chunk can never span a boilerplate gap."""
    run: list[_Unit] = []
    for u in units:
        if run and run[-1].end != u.start:
            yield run
            run = []
        run.append(u)
    if run:
        yield run


def _span_count(counter, text):
    """Exact size of text[s:e] without copying or re-encoding growing text where possible."""
    if hasattr(counter, "span_index"):
        return counter.span_index(text).count
    if counter.name == "chars":
        return lambda s, e: e - s
    return lambda s, e: counter.count(text[s:e])


def _pieces(text, start, end, limit, counter, level=0, glue=0, count=None):
    """Cut an oversized range at sentences, then words, then characters: [(start, end, boundary)].

    No cut falls at or before `glue` (the end of a heading), so a heading keeps some text.
    Each segment is counted once and the sums accumulate (linear in the paragraph); token
    counts are not quite additive, so each chosen piece is re-counted exactly and backs off
    a segment at a time if it overshoots.
    """
    count = count or _span_count(counter, text)
    kinds = ("sentence", "word")
    if level >= len(kinds):
        return _char_pieces(start, end, limit, count)
    pattern = _SENTENCE_END if level == 0 else _WORD_START
    cuts = [m.end() for m in pattern.finditer(text, start, end) if max(start, glue) < m.end() < end]
    bounds = [start, *cuts, end]
    segs: list[tuple[int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        if segs and not text[a:b].strip():  # blank lines stay with the sentence before them
            segs[-1] = (segs[-1][0], b)
        elif b > a:
            segs.append((a, b))
    sizes = [count(a, b) for a, b in segs]
    out = []
    i, n = 0, len(segs)
    while i < n:
        a = segs[i][0]
        if sizes[i] > limit:
            out.extend(_pieces(text, a, segs[i][1], limit, counter, level + 1, glue, count))
            i += 1
            continue
        j, acc = i, 0
        while j < n and sizes[j] <= limit:
            if acc + sizes[j] > limit:  # the sum overestimates ("word " is 2 tokens, "word word " 3)
                exact = count(a, segs[j][1])
                if exact > limit:
                    break
                acc = exact
            else:
                acc += sizes[j]
            j += 1
        while j > i + 1 and count(a, segs[j - 1][1]) > limit:
            j -= 1
        out.append((a, end if j == n else segs[j][0], kinds[level]))
        i = j
    return out


def _char_pieces(start, end, limit, count):
    """Largest prefixes that fit. The search starts at the previous piece's length and gallops
    from there, so a run of similar text costs a few counts per piece, not a bisection of the rest."""
    out, guess = [], max(1, limit)
    while start < end:
        lo, hi = start + 1, end  # lo fits (or is the one-character minimum); nothing past hi fits
        probe, step = min(end, start + guess), 1
        if count(start, probe) <= limit:
            lo = probe
            while lo < end:
                probe = min(end, lo + step)
                if count(start, probe) > limit:
                    hi = probe - 1
                    break
                lo, step = probe, step * 2
        else:
            hi = probe - 1
            while hi > lo:
                probe = max(lo, hi - step)
                if count(start, probe) <= limit:
                    lo = probe
                    break
                hi, step = probe - 1, step * 2
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(start, mid) <= limit:
                lo = mid
            else:
                hi = mid - 1
        out.append((start, lo, "char"))
        guess, start = lo - start, lo
    return out


def _label(text, u):
    if u.kind == "heading":
        return ("#" * u.level + " " + u.title) if u.level else u.title
    return one_line(text[u.start : u.end].strip().split("\n", 1)[0], 60)


def run(doc, params, ctx) -> Proposal:
    lo, hi = params["min_tokens"], params["max_tokens"]
    counter = ctx.counter("tokens")
    text = doc.text
    count = _span_count(counter, text)
    units, gaps = _units(doc, params["keep_boilerplate"])
    for u, n in zip(units, counter.count_spans(text, [(u.start, u.end) for u in units])):
        u.tokens = n
    spans = []

    def emit(group):
        first = group[0]
        kind = "heading" if first.kind == "heading" else "start" if first.start == 0 else "paragraph"
        meta = {"header_path": list(first.path), "paragraphs": sum(u.kind != "heading" for u in group)}
        spans.append(Span(first.start, group[-1].end, kind, _label(text, first), meta))

    def fit(group, at_end=False):
        """Split off what must open the next chunk: trailing headings, and units past max_tokens."""
        carry: list[_Unit] = []
        while not at_end and len(group) > 1 and group[-1].kind == "heading":
            carry.insert(0, group.pop())
        # token counts of joined units can exceed their sum: confirm before closing
        while len(group) > 1 and count(group[0].start, group[-1].end) > hi:
            carry.insert(0, group.pop())
        return group, carry

    for region in _regions(units):
        ctx.check()
        group: list[_Unit] = []
        acc = 0
        for u in region:
            cut_here = u.kind == "heading" and u.level <= 2 and acc >= lo
            if group and not all(g.kind == "heading" for g in group) and (cut_here or acc + u.tokens > hi):
                done, group = fit(group)
                emit(done)
                acc = sum(c.tokens for c in group)
            headings_only = bool(group) and all(g.kind == "heading" for g in group)
            # a paragraph over the limit, or one that fits only without its heading, is cut inside:
            # a heading alone in a chunk (orphaned) is worse than a cut between sentences
            if u.tokens > hi or (headings_only and acc + u.tokens > hi and count(group[0].start, u.end) > hi):
                heads: list[_Unit] = []
                while group and group[-1].kind == "heading":
                    heads.insert(0, group.pop())
                while group:
                    done, group = fit(group, at_end=True)
                    emit(done)
                acc = 0
                start = heads[0].start if heads else u.start
                first_kind = "heading" if heads else "start" if start == 0 else "paragraph"
                glue = heads[-1].end if heads else 0
                for k, (a, b, kind) in enumerate(_pieces(text, start, u.end, hi, counter, glue=glue, count=count)):
                    meta = {"header_path": list(u.path), "paragraphs": 1, "split_paragraph": True}
                    if kind == "char" and b - a == 1 and count(a, b) > hi:
                        meta["oversized"] = True  # one character (an emoji) is more tokens than the limit
                    label = _label(text, heads[0]) if heads and not k else one_line(text[a:b], 60)
                    spans.append(Span(a, b, kind if k else first_kind, label, meta))
                continue
            group.append(u)
            acc += u.tokens
        while group:
            done, group = fit(group, at_end=True)
            last = spans[-1] if spans else None
            joinable = (
                not group
                and last is not None
                and last.end == done[0].start
                and not last.metadata.get("split_paragraph")
                and sum(u.tokens for u in done) < lo
                and count(last.start, done[-1].end) <= hi
            )
            if joinable and last is not None:  # a short tail joins the chunk before it
                paragraphs = last.metadata["paragraphs"] + sum(u.kind != "heading" for u in done)
                spans[-1] = replace(last, end=done[-1].end, metadata={**last.metadata, "paragraphs": paragraphs})
            else:
                emit(done)
    if not units and not gaps and text:  # only whitespace: still one chunk, nothing silently lost
        for a, b, kind in _pieces(text, 0, len(text), hi, counter, count=count):
            spans.append(Span(a, b, "start" if a == 0 else kind, "", {"header_path": [], "paragraphs": 0}))
    notes = [f"prose: {len(gaps):,} boilerplate block(s) left out"] if gaps else []
    return Proposal(spans, gaps=gaps, notes=notes)


register(
    Strategy(
        name="prose",
        summary="Sections at #/## headers packed to a token range, paragraphs kept whole, boilerplate left out as gaps.",
        params=(
            Param(
                "min_tokens",
                "int",
                256,
                "Cut at a header only once a chunk has this many tokens.",
                min=1,
                max=10_000_000,
                step=100,
            ),
            Param(
                "max_tokens",
                "int",
                512,
                "Most tokens per chunk; only an oversized paragraph is cut inside.",
                min=1,
                max=10_000_000,
                step=100,
            ),
            Param("keep_boilerplate", "bool", False, "Keep license headers, tables of contents and navigation lines."),
        ),
        run=run,
        kinds=("markdown", "prose"),
        size_param="max_tokens",
        overlap_param=None,
        max_size=lambda p: ("tokens", p["max_tokens"]),
    )
)
