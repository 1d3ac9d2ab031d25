"""Chunk quality: per-chunk flags with a one-line reason, and one score per configuration.

Flags (severity "warning" unless noted):
  over_budget     embed_tokens > budget (the embedded text: what the model receives)
  tiny            embed_tokens < min_tokens
  mid_word        a cut between two word characters
  mid_sentence    (prose, markdown) a cut not after . ! ? or a newline
  in_code_block   (markdown, prose, email) a cut inside a fenced code block
  in_table        (markdown, prose, email) a cut inside a markdown table
  in_list_item    (markdown, prose, email) a cut inside one list item
  orphan_heading  a heading in a chunk's last lines, cut off from its section's body
  split_entity    (code) metadata split_entity, or a chunk's core (its span minus overlap,
                  from core_start_line/core_end_line) starting or ending inside a function
                  or method (from a tree-sitter parse, else from metadata entities); cuts
                  between the methods of a class are fine
  duplicate       same sha256 as an earlier chunk
  overlap         measured overlap at a boundary far from the requested one: none, or under
                  half the request; over twice the request plus one unit; some where none
                  was asked. Measured in the unit of the overlap param; a count of
                  emails/messages is judged by presence only. Where the strategy defines its
                  overlap as the most it repeats (recursive's whole pieces, markdown's word
                  starts, code's lines within the limit), only more than asked is off. "info" where less than asked
                  meets a structural boundary (heading, function, message...), where
                  strategies such as markdown add no overlap
  gap             text no chunk covers; "info" when the strategy declared why (sampling)
                  or the gap is only whitespace

A cut is a chunk's core boundary strictly inside the document: its end, or where its new text
starts (start + overlap_prev_chars), never the start of an overlap it repeats; each cut is
flagged once (on the chunk that ends there, else the one that starts there).

Score (0..100, higher is better; only "warning" flags count):
    score = 100 - 40 * flagged_share
                - sum over flags f of weight[f] * min(1, count[f] / chunks)
                - min(10, 5 * max(0, spread - 2))
  clamped to 0..100 and rounded to one decimal, where flagged_share is the share of
  embedded tokens held by chunks with at least one warning flag and spread = p95 / median
  embedded tokens. docs/quality.md says what each term stands for in retrieval terms.
  Weights: over_budget 20, split_entity 15, mid_word 12, in_code_block 10, in_table 8,
  gap 8, duplicate 8, orphan_heading 6, in_list_item 5, mid_sentence 5, overlap 4, tiny 4.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from ..readers.documents import Document
from ..core.model import ChunkSet
from ..core.stats import percentile
from ..core.tokens import DEFAULT_BUDGET

DEFAULT_MIN_TOKENS = 16

FLAG_NAMES = (
    "over_budget",
    "tiny",
    "mid_word",
    "mid_sentence",
    "in_code_block",
    "in_table",
    "in_list_item",
    "orphan_heading",
    "split_entity",
    "duplicate",
    "overlap",
    "gap",
)
WEIGHTS = {
    "over_budget": 20,
    "split_entity": 15,
    "mid_word": 12,
    "in_code_block": 10,
    "in_table": 8,
    "gap": 8,
    "duplicate": 8,
    "orphan_heading": 6,
    "in_list_item": 5,
    "mid_sentence": 5,
    "overlap": 4,
    "tiny": 4,
}
FLAGGED_SHARE_WEIGHT = 40
SPREAD_FREE, SPREAD_SLOPE, SPREAD_MAX = 2.0, 5.0, 10.0

STRUCTURED_KINDS = ("markdown", "prose", "email")
SENTENCE_KINDS = ("markdown", "prose")
SENTENCE_END = ".!?…。！？"
CLOSERS = "\"')]}»”’*_`"
# structural boundaries where strategies such as markdown deliberately add no overlap
STRUCTURAL_BOUNDARIES = {
    "heading",
    "section",
    "function",
    "class",
    "method",
    "import",
    "message",
    "cue",
    "record",
    "row",
    "sample",
    "entity",
    "start",
}
CONTAINER_ENTITIES = {
    "class",
    "interface",
    "module",
    "namespace",
    "impl",
    "trait",
    "struct",
    "enum",
    "object",
    "program",
}
ORPHAN_TAIL_LINES = 2
ORPHAN_MIN_BODY = 40


@dataclass(frozen=True)
class Flag:
    """One problem at one place: chunk_index is None for gaps (no chunk holds them)."""

    name: str
    chunk_index: int | None
    start: int
    end: int
    line: int
    reason: str
    severity: str = "warning"


@dataclass(frozen=True)
class Score:
    counts: dict[str, int]
    info_counts: dict[str, int]
    flagged_chunks: int
    flagged_share: float
    spread: float
    score: float


@dataclass(frozen=True)
class Quality:
    flags: list[Flag]
    score: Score
    budget: int
    min_tokens: int

    def by_chunk(self) -> dict[int, list[Flag]]:
        out: dict[int, list[Flag]] = {}
        for f in self.flags:
            if f.chunk_index is not None:
                out.setdefault(f.chunk_index, []).append(f)
        return out

    def flagged_indexes(self) -> list[int]:
        """Chunks with a warning flag, in order: what `f` / `F` step through."""
        return sorted({f.chunk_index for f in self.flags if f.chunk_index is not None and f.severity == "warning"})

    def summary(self) -> str:
        s = self.score
        parts = [f"{n} {name}" for name, n in s.counts.items() if n]
        info = [f"{n} {name}" for name, n in s.info_counts.items() if n]
        text = f"score {s.score:g}/100; flags: {', '.join(parts) or 'none'}"
        if info:
            text += f" (info: {', '.join(info)})"
        return text + f"; {s.flagged_share:.0%} of tokens in flagged chunks; spread p95/median {s.spread:.2f}"


# --- structure: one linear pass over the lines ---------------------------------------------

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TABLE_DELIM = re.compile(r"[ \t]*\|?[ \t]*:?-{1,}:?[ \t]*(\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$")


@dataclass(frozen=True)
class Heading:
    start: int
    end: int  # just past the heading line
    level: int
    line: int


@dataclass
class Structure:
    """Where fenced code, tables, list items and headings lie, as sorted char ranges."""

    fences: list[tuple[int, int]] = field(default_factory=list)
    tables: list[tuple[int, int]] = field(default_factory=list)
    items: list[tuple[int, int]] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    entities: list[tuple[int, int, str]] | None = None  # code: (start, end, "kind name"), None if unparsed


def scan_structure(doc: Document) -> Structure:
    """Fences, tables, list items and ATX headings, found in a single pass over the lines;
    for code, the function and method definitions of its syntax tree."""
    st = Structure()
    if doc.kind == "code":
        st.entities = _parsed_entities(doc)
    if doc.kind not in STRUCTURED_KINDS:
        return st
    text = doc.text
    starts = doc.line_starts
    n = len(starts)
    fence = None  # (char, length, start offset)
    table_start = None
    prev_line = None  # (start, text) of the previous line when it may be a table header
    item_start = None
    item_indent = 0
    item_end_pending = None  # a blank line ended the item unless an indented line follows
    for i in range(n):
        ls = starts[i]
        le = starts[i + 1] if i + 1 < n else len(text)
        if ls == le:
            break
        line = text[ls:le].rstrip("\r\n")
        if fence is not None:
            stripped = line.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= fence[1] and _FENCE.match(line):
                st.fences.append((fence[2], le))
                fence = None
            continue
        blank = not line.strip()
        indent = len(line) - len(line.lstrip(" \t"))
        if item_start is not None and not blank and item_end_pending is not None:
            if indent > item_indent:
                item_end_pending = None
            else:
                st.items.append((item_start, item_end_pending))
                item_start, item_end_pending = None, None
        if table_start is not None and (blank or "|" not in line):
            st.tables.append((table_start, ls))
            table_start = None
        m = _FENCE.match(line)
        if m:
            if item_start is not None and indent <= item_indent:
                st.items.append((item_start, ls))
                item_start = None
            fence = (m.group(1)[0], len(m.group(1)), ls)
            prev_line = None
            continue
        h = _HEADING.match(line)
        if h:
            if item_start is not None:
                st.items.append((item_start, item_end_pending if item_end_pending is not None else ls))
                item_start, item_end_pending = None, None
            st.headings.append(Heading(ls, le, len(h.group(1)), i + 1))
            prev_line = None
            continue
        if table_start is None and prev_line is not None and "|" in line and _TABLE_DELIM.match(line):
            table_start = prev_line
        it = _ITEM.match(line)
        if it and table_start is None:
            if item_start is not None:
                st.items.append((item_start, item_end_pending if item_end_pending is not None else ls))
            item_start, item_indent, item_end_pending = ls, len(it.group(1)), None
        elif blank and item_start is not None and item_end_pending is None:
            item_end_pending = ls
        prev_line = ls if ("|" in line and table_start is None) else None
    if fence is not None:  # an unclosed fence runs to the end of the document
        st.fences.append((fence[2], len(text)))
    if table_start is not None:
        st.tables.append((table_start, len(text)))
    if item_start is not None:
        st.items.append((item_start, item_end_pending if item_end_pending is not None else len(text)))
    return st


def _parsed_entities(doc: Document) -> list[tuple[int, int, str]] | None:
    """Leaf-like definitions (not classes, modules...) from a tree-sitter parse; None without a grammar."""
    from ..code.entities import extract
    from ..code.languages import detect_language
    from ..code.parse import parse
    from ..core.errors import ChunktuiError

    try:
        defs, _ = extract(parse(doc, detect_language(doc.path, doc.language)))
    except ChunktuiError:
        return None
    return sorted((e.start, e.end, f"{e.kind} {e.name}") for e in defs if e.kind not in CONTAINER_ENTITIES)


def _cuts_inside(ranges: list[tuple[int, int]], cuts: list[int]) -> dict[int, tuple[int, int]]:
    """{cut: range} for the sorted `cuts` strictly inside a range of the sorted `ranges`, each
    judged against the last range starting at or before it (a cut past a nested range's start
    is judged by that range alone). Walks the ranges, not the cuts: a document has far fewer
    fences, tables and list items than a small-size sweep cell has cuts."""
    out: dict[int, tuple[int, int]] = {}
    for i, r in enumerate(ranges):
        a, b = r
        if i + 1 < len(ranges):
            b = min(b, ranges[i + 1][0])
        for pos in cuts[bisect_right(cuts, a) : bisect_left(cuts, b)]:
            out[pos] = r
    return out


# --- flags ----------------------------------------------------------------------------------


def _where(doc: Document, pos: int, side: str) -> str:
    """'chunk ends at line 45' names the line holding the chunk's last character."""
    return f"chunk {side} at line {doc.line_of(pos - 1 if side == 'ends' else pos)}"


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _after_sentence_end(text: str, pos: int) -> bool:
    """True when `pos` follows a sentence end, sits at a line end, or is the document start."""
    if text[pos : pos + 1] in ("\n", "\r"):
        return True
    i = pos
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i == 0 or text[i - 1] in "\r\n":
        return True
    while i > 0 and text[i - 1] in CLOSERS:
        i -= 1
    return i > 0 and text[i - 1] in SENTENCE_END


def _requested_overlap(cs: ChunkSet) -> tuple[int, str, bool] | None:
    """(amount, unit, at_most) of overlap the run asked for, or None when the strategy has no
    overlap; at_most when the strategy defines the amount as the most it repeats.

    The unit comes from the param's name (overlap_lines), else the run's `unit` param, else
    the strategy's max_size unit; a count of something we cannot measure (overlap_emails)
    gives that word as the unit ("emails"), and then only the presence of overlap is judged.
    """
    from ..core.errors import ChunktuiError
    from ..strategies import get_strategy

    try:
        strat = get_strategy(cs.strategy)
    except ChunktuiError:
        return None
    name = strat.overlap_param
    if not name or not isinstance(cs.params.get(name), (int, float)):
        return None
    units = ("chars", "bytes", "lines", "tokens")
    suffix = name.rsplit("_", 1)[-1]
    at_most = strat.overlap_at_most
    if suffix in units:
        return cs.params[name], suffix, at_most
    if suffix != "overlap":
        return cs.params[name], suffix, at_most
    unit = cs.params.get("unit")
    if unit not in units:
        unit = "chars"
        if strat.max_size is not None:
            try:
                unit = strat.max_size(cs.params)[0]
            except (KeyError, TypeError, ValueError):
                pass
    return cs.params[name], unit, at_most


def _entity_ranges(doc: Document, cs: ChunkSet) -> list[tuple[int, int, str]]:
    """Char ranges of the leaf-like entities named in chunk metadata, when no grammar parsed the file."""
    seen = set()
    out = []
    for c in cs.chunks:
        for e in c.metadata.get("entities") or ():
            try:
                kind, a, b = str(e.get("kind", "")), int(e["start_line"]), int(e["end_line"])
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            key = (e.get("name"), a, b)
            if key in seen or kind in CONTAINER_ENTITIES:
                continue
            seen.add(key)
            out.append((doc.line_start(a), doc.line_end(b), f"{kind} {e.get('name', '?')}".strip()))
    out.sort()
    return out


def find_flags(
    cs: ChunkSet, budget: int = DEFAULT_BUDGET, min_tokens: int = DEFAULT_MIN_TOKENS, structure: Structure | None = None
) -> list[Flag]:
    """Every flag of the chunk set, ordered by position."""
    doc = cs.document
    text = doc.text
    n = len(text)
    chunks = cs.chunks
    st = structure if structure is not None else scan_structure(doc)
    flags: list[Flag] = []

    def add(name, idx, start, end, reason, severity="warning"):
        flags.append(Flag(name, idx, start, end, doc.line_of(min(start, max(0, n - 1))), reason, severity))

    # the first chunk of each text: equal texts are what equal hashes say, and comparing texts
    # leaves every chunk's hash (and byte offsets, which share its encoding) unmade
    first_of: dict[str, int] = {}
    for c in chunks:
        if c.embed_tokens > budget:
            add("over_budget", c.index, c.start, c.end, f"{_embedded_size(c)}, over the budget of {budget}")
        if c.embed_tokens < min_tokens:
            add("tiny", c.index, c.start, c.end, f"{_embedded_size(c)}, below the minimum of {min_tokens}")
        first = first_of.setdefault(c.text, c.index)
        if first != c.index:
            add("duplicate", c.index, c.start, c.end, f"same text as chunk-{first + 1:04d}")

    cuts = core_cuts(chunks, n)
    positions = sorted(cuts)
    entities = []
    split_marked = set()
    if doc.kind == "code":
        entities = st.entities if st.entities is not None else _entity_ranges(doc, cs)
        for c in chunks:
            if c.metadata.get("split_entity"):
                split_marked.add(c.index)
                add("split_entity", c.index, c.start, c.end, "the strategy marks this chunk as cutting an entity")
    for pos in positions:
        idx, side = cuts[pos]
        if _is_word(text[pos - 1]) and _is_word(text[pos]):
            a = pos
            while a > 0 and _is_word(text[a - 1]) and pos - a < 40:
                a -= 1
            b = pos
            while b < n and _is_word(text[b]) and b - pos < 40:
                b += 1
            add("mid_word", idx, pos, pos, f"{_where(doc, pos, side)} inside the word {text[a:pos]}|{text[pos:b]}")
        if doc.kind in SENTENCE_KINDS and not _after_sentence_end(text, pos):
            tail = text[max(0, pos - 30) : pos].rsplit("\n", 1)[-1]
            add("mid_sentence", idx, pos, pos, f"{_where(doc, pos, side)} mid-sentence after …{tail.strip()[-24:]!r}")
    # after the cuts' other flags: the final sort orders each position's flags by name
    for name, ranges, what in (
        ("in_code_block", st.fences, "fenced code block"),
        ("in_table", st.tables, "table"),
        ("in_list_item", st.items, "list item"),
    ):
        for pos, r in _cuts_inside(ranges, positions).items():
            idx, side = cuts[pos]
            add(
                name,
                idx,
                pos,
                pos,
                f"{_where(doc, pos, side)} inside the {what} of lines {doc.line_of(r[0])}-{doc.line_of(r[1] - 1)}",
            )

    if entities:
        _entity_cuts(cs, entities, split_marked, add)
    _orphan_headings(cs, st, add)
    _overlap_flags(cs, add)
    for g in cs.gaps:
        body = text[g.start : g.end]
        declared = g.reason != "uncovered"
        blank = not body.strip()
        why = f"declared: {g.reason}" if declared else "whitespace only" if blank else "no chunk covers it"
        add(
            "gap",
            None,
            g.start,
            g.end,
            f"{g.chars} chars uncovered at lines {g.start_line}-{g.end_line} ({why})",
            "info" if declared or blank else "warning",
        )
    order = {name: i for i, name in enumerate(FLAG_NAMES)}
    flags.sort(key=lambda f: (f.start, order[f.name]))
    return flags


def core_cuts(chunks, n: int) -> dict[int, tuple[int, str]]:
    """{position: (chunk index, "starts"/"ends")} of every real cut strictly inside the document,
    each once (on the chunk that ends there, else the one that starts there). A chunk starts
    where its new text starts, past the overlap it repeats (start + overlap_prev_chars): the
    start of an overlap the user asked for is no cut, the previous chunk's end is."""
    cuts: dict[int, tuple[int, str]] = {}
    for c in chunks:
        for pos, side in ((c.start + c.overlap_prev_chars, "starts"), (c.end, "ends")):
            if 0 < pos < n and (pos not in cuts or side == "ends"):
                cuts[pos] = (c.index, side)
    return cuts


def _embedded_size(chunk) -> str:
    """A chunk's embedded size for a flag's reason: `79 tokens`, or `351→79 tokens` where the
    embedded text is not the span (cue text without timings, a header in front)."""
    if chunk.embed_tokens == chunk.tokens:
        return f"{chunk.tokens} tokens"
    return f"{chunk.tokens}→{chunk.embed_tokens} tokens embedded"


def _entity_cuts(cs: ChunkSet, entities, skip: set[int], add) -> None:
    """Cuts inside a function or method, judged at each chunk's core (its span minus overlap)."""
    doc = cs.document
    n = len(doc.text)
    cuts: dict[int, tuple[int, str]] = {}
    for c in cs.chunks:
        if c.index in skip:
            continue
        a = (
            doc.line_start(c.metadata["core_start_line"])
            if c.metadata.get("core_start_line")
            else c.start + c.overlap_prev_chars
        )
        b = doc.line_end(c.metadata["core_end_line"]) if c.metadata.get("core_end_line") else c.end
        for pos, side in ((a, "starts"), (b, "ends")):
            if 0 < pos < n:
                cuts.setdefault(pos, (c.index, side))
    for pos in sorted(cuts):
        idx, side = cuts[pos]
        for a, b, label in entities:
            if a >= pos:
                break
            if pos < b:
                add(
                    "split_entity",
                    idx,
                    pos,
                    pos,
                    f"{_where(doc, pos, side)} inside {label} (lines {doc.line_of(a)}-{doc.line_of(b - 1)})",
                )
                break


def _orphan_headings(cs: ChunkSet, st: Structure, add) -> None:
    """A heading near a chunk's end whose section body continues in a later chunk."""
    heads = st.headings
    if not heads:
        return
    text = cs.document.text
    starts = [h.start for h in heads]
    # section end = start of the next heading of the same or a higher level
    section_end = [len(text)] * len(heads)
    stack: list[int] = []
    for i, h in enumerate(heads):
        while stack and heads[stack[-1]].level >= h.level:
            section_end[stack.pop()] = h.start
        stack.append(i)
    line_of = cs.document.line_of  # the chunks' own end lines would be made for all of them
    for c in cs.chunks:
        if c.end >= len(text):
            continue
        i = bisect_right(starts, c.end - 1) - 1
        if i < 0 or heads[i].start < c.start:
            continue
        tail = line_of(c.end - 1) - ORPHAN_TAIL_LINES + 1
        while i >= 0 and heads[i].start >= c.start:
            h = heads[i]
            if h.line < tail:
                break
            body = text[h.end : c.end]
            if c.end < section_end[i] and len("".join(body.split())) < ORPHAN_MIN_BODY:
                title = text[h.start : h.end].strip()
                add(
                    "orphan_heading",
                    c.index,
                    h.start,
                    h.end,
                    f"heading {title[:40]!r} at line {h.line} is cut off from its section, which goes on in the next chunk",
                )
                break
            i -= 1


def _overlap_flags(cs: ChunkSet, add) -> None:
    requested = _requested_overlap(cs)
    if requested is None:
        return
    want, unit, at_most = requested
    from ..core.tokens import get_counter

    measurable = unit in ("chars", "bytes", "lines", "tokens")
    counter = get_counter(cs.tokenizer if unit == "tokens" else unit if measurable else "chars")
    text = cs.document.text
    for prev, nxt in zip(cs.chunks, cs.chunks[1:]):
        if nxt.start > prev.end:
            continue  # a gap, flagged on its own
        got = counter.count(text[nxt.start : prev.end]) if nxt.start < prev.end else 0
        if at_most and got <= want:
            continue  # as the strategy defines it: less or none where whole pieces do not fit
        if want > 0 and got == 0:
            problem = f"no overlap at this boundary, {want:g} {unit} requested"
        elif not measurable:
            if want > 0 or got == 0:
                continue  # overlap counted in emails, messages...: only its presence can be judged
            problem = f"{got} chars of overlap where none was requested"
        elif want > 0 and got * 2 < want:
            problem = f"{got} {unit} of overlap, under half the {want:g} requested"
        elif want > 0 and got > 2 * want + 1:
            problem = f"{got} {unit} of overlap, over twice the {want:g} requested"
        elif want == 0 and got > 0:
            problem = f"{got} {unit} of overlap where none was requested"
        else:
            continue
        severity = "info" if nxt.boundary_type in STRUCTURAL_BOUNDARIES and got < want else "warning"
        add(
            "overlap",
            nxt.index,
            nxt.start,
            max(nxt.start, prev.end),
            f"{problem} (between chunk-{prev.index + 1:04d} and chunk-{nxt.index + 1:04d})",
            severity,
        )


# --- score ----------------------------------------------------------------------------------


def score_flags(cs: ChunkSet, flags: list[Flag]) -> Score:
    """Combine flag counts, flagged token share and size spread by the formula in the docstring."""
    counts = {name: 0 for name in FLAG_NAMES}
    info = {name: 0 for name in FLAG_NAMES}
    flagged = set()
    for f in flags:
        if f.severity == "warning":
            counts[f.name] += 1
            if f.chunk_index is not None:
                flagged.add(f.chunk_index)
        else:
            info[f.name] += 1
    tokens = [c.embed_tokens for c in cs.chunks]
    total = sum(tokens)
    share = sum(tokens[i] for i in flagged) / total if total else (1.0 if flagged else 0.0)
    median = percentile(tokens, 50)
    spread = percentile(tokens, 95) / median if median > 0 else 1.0
    n = max(1, len(cs.chunks))
    value = 100 - FLAGGED_SHARE_WEIGHT * share
    value -= sum(WEIGHTS[name] * min(1.0, k / n) for name, k in counts.items())
    value -= min(SPREAD_MAX, SPREAD_SLOPE * max(0.0, spread - SPREAD_FREE))
    return Score(
        counts=counts,
        info_counts=info,
        flagged_chunks=len(flagged),
        flagged_share=share,
        spread=spread,
        score=round(max(0.0, min(100.0, value)), 1),
    )


def assess(
    cs: ChunkSet, budget: int = DEFAULT_BUDGET, min_tokens: int = DEFAULT_MIN_TOKENS, structure: Structure | None = None
) -> Quality:
    """Flags and score of one chunk set; pass `structure` to reuse a scan across runs."""
    flags = find_flags(cs, budget, min_tokens, structure)
    return Quality(flags=flags, score=score_flags(cs, flags), budget=budget, min_tokens=min_tokens)
