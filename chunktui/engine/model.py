"""The chunk model: every chunk knows its exact place in the source.

Strategies only propose spans (start, end, boundary, metadata); `build_chunkset`
turns them into frozen Chunks, so lines, overlaps, token counts, hashes and gaps
are always derived from offsets in one place and cannot drift from the text.
"""

from __future__ import annotations

import gc
import hashlib
import threading
import weakref
from bisect import bisect_left, bisect_right
from collections import namedtuple
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import accumulate, compress, count, repeat
from operator import attrgetter, gt, le, lt, sub
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from .documents import Document


_FRESH = object()  # Span's metadata default: a new dict per span, as field(default_factory=dict) gives


@dataclass(frozen=True, init=False)
class Span:
    """What a strategy proposes: a half-open character range and why it starts there."""

    start: int
    end: int
    boundary_type: str = "size"
    boundary_label: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    context_text: str | None = None

    def __init__(self, start: int, end: int, boundary_type: str = "size", boundary_label: str = "",
                 metadata: Mapping[str, Any] = _FRESH, context_text: str | None = None):
        # strategies make one Span per chunk: setting the field dict at once, rather than six
        # frozen-dataclass setattrs, halves the cost at tens of thousands of chunks
        object.__setattr__(self, "__dict__", {
            "start": start, "end": end, "boundary_type": boundary_type, "boundary_label": boundary_label,
            "metadata": {} if metadata is _FRESH else metadata, "context_text": context_text})


class SpanTable(Sequence):
    """Many spans as columns, for strategies that propose tens of thousands: build_chunkset
    reads the columns without a Span object per chunk. Anyone else sees a sequence of Spans.
    `metadata` is one mapping per span, or None when no span has any."""

    def __init__(self, starts: list[int], ends: list[int], boundary_types: list[str],
                 boundary_labels: list[str], metadata: list[Mapping[str, Any]] | None = None):
        self.starts, self.ends, self.metadata = starts, ends, metadata
        self.boundary_types, self.boundary_labels = boundary_types, boundary_labels

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return Span(self.starts[i], self.ends[i], self.boundary_types[i], self.boundary_labels[i],
                    {} if self.metadata is None else self.metadata[i])


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

    def __eq__(self, other):
        """Field by field, whichever build made either (each build's chunks have a class of
        their own, see `_Batch`)."""
        if isinstance(other, Chunk):
            return _chunk_fields(self) == _chunk_fields(other)
        return NotImplemented

    def __reduce__(self):
        """Copies, deep copies and pickles: a Chunk made with every field, its metadata passed as a
        dict (the read-only mapping can be neither deep-copied nor pickled) and wrapped again."""
        values = list(_chunk_fields(self))
        values[_METADATA_AT] = dict(values[_METADATA_AT])
        return _chunk_of, tuple(values)

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


_chunk_fields = attrgetter(*Chunk.__dataclass_fields__)
_METADATA_AT = list(Chunk.__dataclass_fields__).index("metadata")


def _chunk_of(*values) -> Chunk:
    """A Chunk from every field's value in order, metadata as a dict (see Chunk.__reduce__)."""
    values = list(values)
    values[_METADATA_AT] = MappingProxyType(values[_METADATA_AT])
    return Chunk(*values)
_NO_METADATA = MappingProxyType({})  # read-only, so every chunk without metadata can share it


class _Derived:
    """A Chunk field that build_chunkset leaves out and the first read computes from the document.

    At tens of thousands of chunks, hashing each one and placing it in lines and bytes cost more
    than the chunking itself, yet most runs (a re-chunk in the app, a benchmark, the stats) read
    none of it. A non-data descriptor: once the field is in the instance's dict, or when the
    Chunk was made with every field (`Chunk(...)`), this is never consulted.
    """

    def __init__(self, name: str, fill):
        self.name, self.fill = name, fill

    def __get__(self, chunk, owner=None):
        if chunk is None:
            return self
        source = type(chunk)._source
        batch = source.batch()
        if batch is not None:
            batch.fill(self.fill)
        derived = chunk.__dict__
        if self.name not in derived:  # a copy, or its ChunkSet is gone: this chunk alone
            self.fill(source.doc, [chunk])
        return derived[self.name]


class _Source:
    """What every chunk of one build shares: the document and a weak reference to the batch."""

    __slots__ = ("doc", "batch")

    def __init__(self, doc: Document, batch: "_Batch"):
        self.doc, self.batch = doc, weakref.ref(batch)


class _Held(Chunk, tuple):
    """A built chunk: the fields a build has for every chunk are held in a tuple, so that
    build_chunkset makes all its chunks in one C-level pass (`tuple.__new__` over the zipped
    columns) rather than a Python step and a field dict per chunk; derived fields go to the
    instance dict when first read. Chunk comes first in the method order, so equality, hash,
    repr, frozenness, copies and pickles are Chunk's; the tuple's own behaviour (length, items,
    iteration, ordering, concatenation) is closed off. What cannot be closed off (README, Python
    API): `%`-formatting and JSON encoders read it as a tuple, and it cannot be weakly referenced."""

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        """What `dataclasses.replace` and the like call: a Chunk made with every field."""
        return Chunk(*args, **kwargs)

    def __bool__(self) -> bool:
        return True

    def __len__(self):
        raise TypeError("object of type 'Chunk' has no len()")

    def __getitem__(self, key):
        raise TypeError("'Chunk' object is not subscriptable")

    def __add__(self, other):
        return NotImplemented

    __mul__ = __rmul__ = __add__
    __iter__ = __contains__ = None  # not iterable, not a container
    __lt__, __le__, __gt__, __ge__ = object.__lt__, object.__le__, object.__gt__, object.__ge__


# The fields' descriptors are a namedtuple's: they read the tuple's item directly (C level),
# past the closed-off __getitem__, and faster than a property would
_HeldFields = namedtuple("_HeldFields", ("index", "start", "end", "text", "tokens", "boundary_type",
                                         "boundary_label", "overlap_prev_chars", "overlap_next_chars",
                                         "metadata", "context_text"))
for _name in _HeldFields._fields:
    setattr(_Held, _name, vars(_HeldFields)[_name])


class _Batch:
    """One build's chunks, so that a derived field read on one chunk is computed for all of
    them in one pass (a table reads every chunk's end line at once). The ChunkSet holds it;
    chunks reach it through a weak reference, so no reference cycle keeps a discarded
    chunking alive. Its chunks are of a subclass of `_Held` of this build's own, which holds
    the source."""

    def __init__(self, doc: Document):
        self.doc, self.chunks, self.done = doc, [], set()
        self.chunk_class = type("Chunk", (_Held,), {
            "__slots__": (), "__module__": __name__, "__qualname__": "Chunk", "_source": _Source(doc, self)})

    def fill(self, fill) -> None:
        if fill not in self.done:
            # the ChunkSet's list, less any chunk a caller put there from another build (it may hold none)
            cls = self.chunk_class
            chunks = [c for c in self.chunks if type(c) is cls]
            if chunks:
                fill(self.doc, chunks)
            self.done.add(fill)


_line_inputs = attrgetter("start", "end", "overlap_prev_chars", "overlap_next_chars")


def _fill_lines(doc: Document, chunks: list[Chunk]) -> None:
    """start/end lines and the lines of the overlaps, from the document's line starts."""
    line_starts = doc.line_starts
    for chunk, (start, end, ov_prev, ov_next) in zip(chunks, map(_line_inputs, chunks)):
        f = chunk.__dict__
        f["start_line"] = start_line = bisect_right(line_starts, start)
        f["end_line"] = end_line = bisect_right(line_starts, end - 1)
        f["overlap_prev_lines"] = bisect_right(line_starts, start + ov_prev - 1) - start_line + 1 if ov_prev else 0
        f["overlap_next_lines"] = end_line - bisect_right(line_starts, end - ov_next) + 1 if ov_next else 0


def _fill_bytes(doc: Document, chunks: list[Chunk]) -> None:
    """sha256 (of the UTF-8 text) and byte offsets into the file as on disk, which share each
    chunk's encoding when the file is UTF-8."""
    sha256 = hashlib.sha256
    start_bytes = doc.file_byte_offsets([c.start for c in chunks])
    codec = doc.file_codec
    for chunk, start_byte in zip(chunks, start_bytes):
        f = chunk.__dict__
        data = chunk.text.encode("utf-8", "surrogatepass")
        f["sha256"] = sha256(data).hexdigest()
        f["start_byte"] = start_byte
        f["end_byte"] = start_byte + (len(data) if codec == "utf-8" else len(chunk.text.encode(codec, "surrogatepass")))


# replacing the dataclass defaults of these class attributes leaves __init__'s defaults as they are
for _name in ("start_line", "end_line", "overlap_prev_lines", "overlap_next_lines"):
    setattr(Chunk, _name, _Derived(_name, _fill_lines))
for _name in ("sha256", "start_byte", "end_byte"):
    setattr(Chunk, _name, _Derived(_name, _fill_bytes))


_gc_switch = threading.Lock()


@contextmanager
def gc_paused():
    """No automatic garbage collection inside; the collector as it was after, with what was made
    inside moved to the oldest generation.

    The look and the switch are one step under a lock: runs in several threads (a batch of files)
    could otherwise see it off, let another run turn it back on, then turn it off for good.
    A run's chunks and their metadata outlive it, so the young collections right after it would
    only walk them (twice, 10-30% of a markdown or code run on 10 MB) to find nothing: freezing
    and unfreezing the heap puts every tracked object in the oldest generation without a walk.
    Skipped when the heap is frozen on purpose (a pre-fork server, our test session)."""
    with _gc_switch:
        collecting = gc.isenabled()
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            with _gc_switch:
                if not gc.get_freeze_count():
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()


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
_span_start = attrgetter("start")
_span_end = attrgetter("end")
_span_type = attrgetter("boundary_type")
_span_label = attrgetter("boundary_label")
_span_metadata = attrgetter("metadata")
_span_context = attrgetter("context_text")


def build_chunkset(
    doc: Document,
    spans: list[Span] | SpanTable,
    *,
    strategy: str,
    params: dict,
    tokenizer: str,
    declared_gaps: list[tuple[int, int, str]] = (),
    warnings: list[str] = (),
    notes: list[str] = (),
    counter=None,
) -> ChunkSet:
    """Freeze spans into Chunks (sorted by start), counting tokens and finding gaps.

    Lines, byte offsets and hashes are left to the first read (see `_Derived`)."""
    from .tokens import get_counter

    text = doc.text
    if isinstance(spans, SpanTable) and all(map(lt, spans.starts, spans.ends)) \
            and all(map(lt, spans.starts, spans.starts[1:])):
        starts, ends, types, labels = spans.starts, spans.ends, spans.boundary_types, spans.boundary_labels
        metadata = spans.metadata
        contexts = repeat(None)
    else:
        spans = [s for s in spans if s.end > s.start]
        if not all(map(lt, map(_span_start, spans), map(_span_start, spans[1:]))):  # rising starts are sorted
            spans.sort(key=_span_order)
        starts, ends = list(map(_span_start, spans)), list(map(_span_end, spans))
        types, labels = map(_span_type, spans), map(_span_label, spans)
        metadata, contexts = map(_span_metadata, spans), map(_span_context, spans)
    if starts and (starts[0] < 0 or max(ends) > len(text)):
        bad = next(k for k, (s, e) in enumerate(zip(starts, ends)) if s < 0 or e > len(text))
        raise ValueError(f"span {starts[bad]}:{ends[bad]} outside document of {len(text)} chars")
    counter = counter or get_counter(tokenizer)
    if counter.name == "chars":
        token_counts = list(map(sub, ends, starts))
    else:
        token_counts = counter.count_spans(text, list(zip(starts, ends)))
    # what each chunk shares with its neighbours (sorted by start, so the next one starts no
    # earlier): the next one's head, and (unless a chunk ends before its predecessor) the same
    # characters seen from the other side
    ov_next = [d if d > 0 else 0 for d in map(sub, ends, starts[1:])] + [0] if starts else []
    if all(map(le, ends, ends[1:])):
        ov_prev = [0, *ov_next[:-1]]
    else:
        ov_prev = list(map(max, repeat(0), map(sub, map(min, [0, *ends[:-1]], ends), starts)))
    batch = _Batch(doc)
    # a strategy's metadata dict is its span's alone and done with: wrapped, not copied
    metadata = repeat(_NO_METADATA) if metadata is None else [
        (MappingProxyType(m if type(m) is dict else dict(m)) if m else _NO_METADATA) for m in metadata]
    texts = map(text.__getitem__, map(slice, starts, ends))
    # made only objects that stay reachable, so a garbage collection meanwhile would find
    # nothing, yet on a big input it would run many times over a growing heap
    with gc_paused():
        batch.chunks = chunks = list(map(tuple.__new__, repeat(batch.chunk_class), zip(
            count(), starts, ends, texts, token_counts, types, labels, ov_prev, ov_next, metadata, contexts)))
    gaps = find_gaps(doc, starts, ends, declared_gaps)
    cs = ChunkSet(document=doc, strategy=strategy, params=dict(params), tokenizer=tokenizer,
                  chunks=chunks, gaps=gaps, warnings=list(doc.warnings) + list(warnings), notes=list(notes))
    cs._derived = batch
    return cs


def find_gaps(doc: Document, starts: list[int], ends: list[int], declared=()) -> list[Gap]:
    """Every range no chunk covers (chunks given by their starts and ends, sorted by start),
    labelled with the reason a strategy declared for it."""
    reasons = sorted(declared)
    # only reasons that can reach into a range matter: those ending after its start (a running
    # maximum of ends, so a bisect) and starting before its end; the rest clip to nothing
    reason_starts = [r[0] for r in reasons]
    reach = list(accumulate((r[1] for r in reasons), max))
    gaps: list[Gap] = []
    covered = list(accumulate(ends, max, initial=0))  # covered[i]: how far chunks before i reach
    ranges = list(compress(zip(covered, starts), map(gt, starts, covered)))
    if covered[-1] < len(doc.text):
        ranges.append((covered[-1], len(doc.text)))
    for a, b in ranges:
        # split the uncovered range along declared reasons; the rest is plain "uncovered"
        cur = a
        for ds, de, reason in reasons[bisect_right(reach, a):bisect_left(reason_starts, b)]:
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
