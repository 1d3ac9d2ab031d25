"""The chunk model: every chunk knows its exact place in the source.

Strategies only propose spans (start, end, boundary, metadata); `build_chunkset`
turns them into frozen Chunks, so lines, overlaps, token counts, hashes and gaps
are always derived from offsets in one place and cannot drift from the text.
"""

from __future__ import annotations

import gc
import hashlib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Mapping

from .documents import Document


@dataclass(frozen=True)
class Span:
    """What a strategy proposes: a half-open character range and why it starts there."""

    start: int
    end: int
    boundary_type: str = "size"
    boundary_label: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    context_text: str | None = None


@dataclass(frozen=True)
class Gap:
    """Source text no chunk covers, and why (sampling, boilerplate, or uncovered)."""

    start: int
    end: int
    start_line: int
    end_line: int
    reason: str

    @property
    def chars(self) -> int:
        return self.end - self.start

    def to_dict(self) -> dict:
        return {"start_char": self.start, "end_char": self.end, "start_line": self.start_line,
                "end_line": self.end_line, "chars": self.chars, "reason": self.reason}


@dataclass(frozen=True)
class Chunk:
    """One chunk. Invariant: text == document.text[start:end]."""

    index: int
    start: int
    end: int
    start_line: int
    end_line: int
    text: str
    tokens: int
    sha256: str
    boundary_type: str = "size"
    boundary_label: str = ""
    overlap_prev_chars: int = 0
    overlap_next_chars: int = 0
    overlap_prev_lines: int = 0
    overlap_next_lines: int = 0
    start_byte: int = 0
    end_byte: int = 0
    metadata: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    context_text: str | None = None

    @property
    def id(self) -> str:
        return chunk_id(self.index)

    @property
    def chars(self) -> int:
        return self.end - self.start

    @property
    def line_count(self) -> int:
        return self.end_line - self.start_line + 1

    @property
    def label(self) -> str:
        """Where the chunk lives: scope chain or header path when known, else its boundary label."""
        for key in ("scope_chain", "header_path"):
            value = self.metadata.get(key)
            if value:
                return " > ".join(value) if isinstance(value, (list, tuple)) else str(value)
        return self.boundary_label


def chunk_id(index: int) -> str:
    return f"chunk-{index + 1:04d}"


@dataclass(frozen=True)
class Stats:
    count: int
    total_chars: int
    total_tokens: int
    chars_min: int
    chars_median: float
    chars_p95: float
    chars_max: int
    tokens_min: int
    tokens_median: float
    tokens_p95: float
    tokens_max: int
    coverage: float
    overlap_chars: int
    overlap_share: float
    gap_chars: int
    gap_count: int
    over_budget: int
    budget: int | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class ChunkSet:
    """The result of one chunking run: the chunks, what they miss, and how it was made."""

    document: Document
    strategy: str
    params: dict
    tokenizer: str
    chunks: list[Chunk]
    gaps: list[Gap]
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        # short: Textual names a worker by repr-ing its arguments, and the full dataclass repr
        # spells out every chunk's text (0.15 s of the app's event loop at 10 MB)
        return (f"ChunkSet({self.document.name!r}, strategy={self.strategy!r}, chunks={len(self.chunks)}, "
                f"gaps={len(self.gaps)})")

    def stats(self, budget: int | None = None) -> Stats:
        from .stats import compute_stats

        return compute_stats(self, budget)

    def chunk_at(self, offset: int) -> Chunk | None:
        """The chunk whose span holds `offset`; inside an overlap, the later one."""
        from bisect import bisect_left, bisect_right

        starts = getattr(self, "_starts", None)
        if starts is None or len(starts) != len(self.chunks):
            starts = self._starts = [c.start for c in self.chunks]
        i = bisect_right(starts, offset) - 1
        for j in range(i, max(-1, i - 64), -1):
            if self.chunks[j].end > offset:
                return self.chunks[j]
        return None


_span_order = attrgetter("start", "end")
_span_end = attrgetter("end")
_NO_METADATA = MappingProxyType({})  # read-only, so every chunk without metadata can share it


def build_chunkset(
    doc: Document,
    spans: list[Span],
    *,
    strategy: str,
    params: dict,
    tokenizer: str,
    declared_gaps: list[tuple[int, int, str]] = (),
    warnings: list[str] = (),
    notes: list[str] = (),
    counter=None,
) -> ChunkSet:
    """Freeze spans into Chunks (sorted by start), counting tokens and finding gaps."""
    from .tokens import get_counter

    text = doc.text
    spans = sorted((s for s in spans if s.end > s.start), key=_span_order)
    bounds = list(map(_span_order, spans))
    if spans and (spans[0].start < 0 or max(map(_span_end, spans)) > len(text)):
        bad = next(s for s in spans if s.start < 0 or s.end > len(text))
        raise ValueError(f"span {bad.start}:{bad.end} outside document of {len(text)} chars")
    counter = counter or get_counter(tokenizer)
    token_counts = counter.count_spans(text, bounds)
    # start bytes in one batch and plain bisects for lines: per-chunk calls dominate big inputs
    start_bytes = doc.byte_offsets([s.start for s in spans])
    line_starts = doc.line_starts
    chunks: list[Chunk] = []
    n = len(spans)
    # a frozen dataclass's __init__ sets its 18 fields one by one through object.__setattr__;
    # giving the instance its field dict at once makes the same Chunk about 5x faster
    new_chunk, set_field = object.__new__, object.__setattr__
    sha256 = hashlib.sha256
    # the loop makes only objects that stay reachable, so a garbage collection during it finds
    # nothing, yet on a big input it would run many times over a growing heap
    collecting = gc.isenabled()
    gc.disable()
    try:
        for i, s in enumerate(spans):
            start, end = s.start, s.end
            body = text[start:end]
            data = body.encode("utf-8", "surrogatepass")  # hashed, and its length is the byte span
            start_line = bisect_right(line_starts, start)
            end_line = bisect_right(line_starts, end - 1)
            ov_prev = ov_next = 0
            ov_prev_lines = ov_next_lines = 0
            if i:
                prev_end = spans[i - 1].end
                if prev_end > start:
                    ov_prev = min(prev_end, end) - start
                    ov_prev_lines = bisect_right(line_starts, start + ov_prev - 1) - start_line + 1
            if i + 1 < n:
                next_start = spans[i + 1].start
                if next_start < end:
                    ov_next = end - max(next_start, start)
                    ov_next_lines = end_line - bisect_right(line_starts, end - ov_next) + 1
            chunk = new_chunk(Chunk)
            set_field(chunk, "__dict__", {
                "index": i, "start": start, "end": end, "start_line": start_line, "end_line": end_line,
                "text": body, "tokens": token_counts[i], "sha256": sha256(data).hexdigest(),
                "boundary_type": s.boundary_type, "boundary_label": s.boundary_label,
                "overlap_prev_chars": ov_prev, "overlap_next_chars": ov_next,
                "overlap_prev_lines": ov_prev_lines, "overlap_next_lines": ov_next_lines,
                "start_byte": start_bytes[i], "end_byte": start_bytes[i] + len(data),
                "metadata": MappingProxyType(dict(s.metadata)) if s.metadata else _NO_METADATA,
                "context_text": s.context_text,
            })
            chunks.append(chunk)
    finally:
        if collecting:
            gc.enable()
    gaps = find_gaps(doc, chunks, declared_gaps)
    return ChunkSet(document=doc, strategy=strategy, params=dict(params), tokenizer=tokenizer,
                    chunks=chunks, gaps=gaps, warnings=list(doc.warnings) + list(warnings), notes=list(notes))


def find_gaps(doc: Document, chunks: list[Chunk], declared=()) -> list[Gap]:
    """Every uncovered range, labelled with the reason a strategy declared for it."""
    reasons = sorted(declared)
    # only reasons that can reach into a range matter: those ending after its start (a running
    # maximum of ends, so a bisect) and starting before its end; the rest clip to nothing
    starts = [r[0] for r in reasons]
    reach = list(accumulate((r[1] for r in reasons), max))
    gaps: list[Gap] = []
    pos = 0
    ranges = []
    for c in chunks:
        if c.start > pos:
            ranges.append((pos, c.start))
        pos = max(pos, c.end)
    if pos < len(doc.text):
        ranges.append((pos, len(doc.text)))
    for a, b in ranges:
        # split the uncovered range along declared reasons; the rest is plain "uncovered"
        cur = a
        for ds, de, reason in reasons[bisect_right(reach, a):bisect_left(starts, b)]:
            ds, de = max(ds, a), min(de, b)
            if de <= ds or ds < cur:
                continue
            if ds > cur:
                gaps.append(_gap(doc, cur, ds, "uncovered"))
            gaps.append(_gap(doc, ds, de, reason))
            cur = de
        if cur < b:
            gaps.append(_gap(doc, cur, b, "uncovered"))
    return gaps


def _gap(doc: Document, start: int, end: int, reason: str) -> Gap:
    a, b = doc.line_range(start, end)
    return Gap(start=start, end=end, start_line=a, end_line=b, reason=reason)
