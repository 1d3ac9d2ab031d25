"""The chunk model: every chunk knows its exact place in the source.

Strategies only propose spans (start, end, boundary, metadata); `build_chunkset`
turns them into frozen Chunks, so lines, overlaps, token counts, hashes and gaps
are always derived from offsets in one place and cannot drift from the text.
"""

from __future__ import annotations

import copy
import hashlib
import re
import weakref
from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from itertools import accumulate, compress, count, repeat
from operator import add, attrgetter, gt, le, lt, sub
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Mapping, Sequence

from . import slices
from .options import CONTEXT_HEADERS

if TYPE_CHECKING:  # a chunk set names its Document; core is below the readers that make one
    from ..readers.documents import Document


_CONTROL = "\x00-\x1f\x7f-\x9f\u2028\u2029"  # C0 and C1 controls (line feed, tab, NEL...) and Unicode's line breaks
_BREAK = re.compile(f" *[{_CONTROL}][ {_CONTROL}]*")  # a run of them, with the spaces around it
_LEADING = re.compile(f"[\\s{_CONTROL}]*")


def one_line(text: str, limit: int = 0) -> str:
    """`text` as a label: one line, whatever the document held. Line feeds, tabs and other control
    characters become a space (with the spaces and controls around them), and the ends are
    stripped; runs of plain spaces stay. Cut to `limit` characters when one is given (only the
    head of a long text is looked at). A label drawn in a gutter or a table cell with a line
    feed in it breaks the row (the table of contents of a PDF gave a label of three lines)."""
    if limit:
        blank = _LEADING.match(text)
        text = text[blank.end() if blank else 0 :][: limit * 4]
    if text.isprintable():
        return text.strip()[: limit or None]
    return _BREAK.sub(" ", text).strip()[: limit or None]


# Span's metadata default, told apart by identity: a new dict per span, as field(default_factory=dict) gives
_FRESH: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, init=False)
class Span:
    """What a strategy proposes: a half-open character range and why it starts there."""

    start: int
    end: int
    boundary_type: str = "size"
    boundary_label: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    context_text: str | None = None

    def __init__(
        self,
        start: int,
        end: int,
        boundary_type: str = "size",
        boundary_label: str = "",
        metadata: Mapping[str, Any] = _FRESH,
        context_text: str | None = None,
    ):
        # strategies make one Span per chunk: setting the field dict at once, rather than six
        # frozen-dataclass setattrs, halves the cost at tens of thousands of chunks
        object.__setattr__(
            self,
            "__dict__",
            {
                "start": start,
                "end": end,
                "boundary_type": boundary_type,
                "boundary_label": boundary_label,
                "metadata": {} if metadata is _FRESH else metadata,
                "context_text": context_text,
            },
        )


class SpanTable(Sequence):
    """Many spans as columns, for strategies that propose tens of thousands: build_chunkset
    reads the columns without a Span object per chunk. Anyone else sees a sequence of Spans.
    `metadata` is one mapping per span (or a `LazyMetadata`), or None when no span has any;
    `context_texts` one context text (or None) per span (or a `LazyContexts`), or None when no
    span has one."""

    def __init__(
        self,
        starts: list[int],
        ends: list[int],
        boundary_types: list[str],
        boundary_labels: list[str],
        metadata: Sequence[Mapping[str, Any]] | None = None,
        context_texts: Sequence[str | None] | None = None,
    ):
        self.starts, self.ends, self.metadata = starts, ends, metadata
        self.boundary_types, self.boundary_labels = boundary_types, boundary_labels
        self.context_texts = context_texts

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return Span(
            self.starts[i],
            self.ends[i],
            self.boundary_types[i],
            self.boundary_labels[i],
            {} if self.metadata is None else self.metadata[i],
            None if self.context_texts is None else self.context_texts[i],
        )


class LazyMetadata(Sequence):
    """Each span's metadata kept by its strategy in a compact form of its own, made into
    `Metadata` dicts only when a chunk's metadata is first read (for every chunk of the build
    at once, as lines and hashes are: see `_Source`). The code strategy describes each chunk
    with several lists (scope chain, entities, siblings, imports): tens of thousands of
    containers the garbage collector walks again at each of its passes while the run's heap
    grows, though most runs (a re-chunk, a benchmark, the embedded texts) never read them.
    A subclass gives `__len__` and `metadata(i)`, a new Metadata of its own on every call."""

    def metadata(self, i: int) -> Metadata:
        raise NotImplementedError

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self.metadata(k) for k in range(*i.indices(len(self)))]
        return self.metadata(range(len(self))[i])


class LazyContexts(Sequence):
    """Each span's context text (see `Span.context_text`), made only when a chunk's embedded text
    is first read, for every chunk of the build at once (as lines, hashes and `LazyMetadata` are:
    see `_Source`). The code strategy's context names the imports each chunk uses, found by
    reading every identifier of the file: at 10 MB and 512 characters, a third of a second and
    25 MB of strings that a run read only for its texts (a benchmark, a library caller that
    embeds the text itself) never needed. Reading any chunk's `embed_text`, `embed_tokens` or
    `context_text`, or the ChunkSet's stats, makes them all; they are exact either way.
    A subclass gives `__len__` and `texts(indices)`."""

    def texts(self, indices: Sequence[int]) -> list[str | None]:
        raise NotImplementedError

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.texts(range(*i.indices(len(self))))
        return self.texts([range(len(self))[i]])[0]


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
        return {
            "start_char": self.start,
            "end_char": self.end,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "chars": self.chars,
            "reason": self.reason,
        }


class Metadata(dict):
    """A chunk's metadata: a dict to JSON, YAML, `dataclasses.asdict` and copies, which refuses
    changes (a chunk is frozen, and what it says about itself with it)."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError("a chunk's metadata is read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        """Copies and pickles are made from a plain dict (item by item they would be refused)."""
        return Metadata, (dict(self),)


_NO_METADATA = Metadata()  # read-only, so every chunk without metadata can share it
_UNREAD = Metadata()  # a built chunk's metadata that its build's LazyMetadata makes when first read
_UNMADE = object()  # a built chunk's embedded text, which its build's LazyContexts makes when first read

# What a build knows of every chunk; the other fields are derived from the document when first read
_BUILT = (
    "index",
    "start",
    "end",
    "text",
    "tokens",
    "boundary_type",
    "boundary_label",
    "overlap_prev_chars",
    "overlap_next_chars",
    "metadata",
    "context_text",
    "embed_text",
    "embed_tokens",
)
_DERIVED = ("start_line", "end_line", "overlap_prev_lines", "overlap_next_lines", "sha256", "start_byte", "end_byte")


class _ChunkSlots:
    """The slots of a Chunk, and a plain initializer of the fields a build has.

    A build makes tens of thousands of chunks: each is made as this class (attribute stores in a
    Python initializer, several times faster than a frozen dataclass's `object.__setattr__` per
    field) and then given its class, Chunk, whose layout is the same (see `_built_chunks`).
    `_source` ties a built chunk to its build, so its derived fields can be computed when first
    read; it is None for a Chunk made with every field."""

    __slots__ = (*_BUILT, *_DERIVED, "_source", "__weakref__")

    def __init__(
        self,
        index,
        start,
        end,
        text,
        tokens,
        boundary_type,
        boundary_label,
        overlap_prev_chars,
        overlap_next_chars,
        metadata,
        context_text,
        embed_text,
        embed_tokens,
        source,
    ):
        self.index, self.start, self.end, self.text, self.tokens = index, start, end, text, tokens
        self.boundary_type, self.boundary_label = boundary_type, boundary_label
        self.overlap_prev_chars, self.overlap_next_chars = overlap_prev_chars, overlap_next_chars
        self._source = source
        if embed_text is not _UNMADE:  # else made from the build's LazyContexts when first read
            self.context_text, self.embed_text, self.embed_tokens = context_text, embed_text, embed_tokens
        if metadata is not _UNREAD:  # else made from the build's LazyMetadata when first read
            self.metadata = metadata


@dataclass(frozen=True, slots=True)
class Chunk(_ChunkSlots):
    """One chunk. Invariant: text == document.text[start:end].

    A frozen dataclass with slots: it compares, copies, pickles, converts (`to_dict`,
    `dataclasses.asdict`) and can be weakly referenced. Its metadata is a read-only dict.
    Lines, byte offsets and the hash of a chunk a run made are computed when first read, for
    every chunk of that run at once (see `_Source`)."""

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
    # a dict, so left out of the hash (set(chunks) works; equality still compares it)
    metadata: Mapping[str, Any] = field(default_factory=Metadata, hash=False)
    context_text: str | None = None
    embed_text: str = None  # type: ignore[assignment]  # None: __post_init__ fills it in, so never None once made
    embed_tokens: int = None  # type: ignore[assignment]  # likewise

    def __post_init__(self):
        if type(self.metadata) is not Metadata:
            object.__setattr__(self, "metadata", Metadata(self.metadata) if self.metadata else _NO_METADATA)
        object.__setattr__(self, "_source", None)
        if self.embed_text is None:  # made by hand: what a run without a context header embeds
            object.__setattr__(self, "embed_text", self.context_text or self.text)
        if self.embed_tokens is None:
            if self.embed_text != self.text:
                raise ValueError("a chunk whose embed_text is not its text needs its embed_tokens")
            object.__setattr__(self, "embed_tokens", self.tokens)

    def __getattr__(self, name: str):
        """Only called for a field a run left out and nobody has read yet (a slot not yet set)."""
        fill = _FILLS.get(name)
        if fill is None:
            raise AttributeError(f"'Chunk' object has no attribute {name!r}")
        source = self._source
        source.fill(fill)
        try:
            return object.__getattribute__(self, name)
        except AttributeError:  # its ChunkSet is gone or no longer holds it: this chunk alone
            fill(source, [self])
            return object.__getattribute__(self, name)

    def __reduce__(self):
        """Copies, deep copies and pickles: a Chunk made with every field."""
        return Chunk, _chunk_fields(self)

    def to_dict(self) -> dict:
        """Every field by name, the metadata a plain dict of its own (what `json.dumps` takes)."""
        values = dict(zip(_FIELD_NAMES, _chunk_fields(self)))
        values["metadata"] = copy.deepcopy(dict(self.metadata))
        return values

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


_FIELD_NAMES = tuple(Chunk.__dataclass_fields__)
_chunk_fields = attrgetter(*_FIELD_NAMES)
_set_class = object.__setattr__


def _built_chunks(columns, source: _Source) -> list[Chunk]:
    """Chunks from the build's columns (see `_ChunkSlots`): made by the slots' initializer, then
    given their class in one C-level pass (the layouts are the same, so nothing is copied)."""
    chunks = list(map(_ChunkSlots, *columns, repeat(source)))
    deque(map(_set_class, chunks, repeat("__class__"), repeat(Chunk)), 0)
    return chunks  # type: ignore[return-value]  # each one's class is Chunk now (set just above)


class _Source:
    """What the chunks of one build share: the document, and a weak reference to their ChunkSet
    (set once it is made), so that a derived field read on one chunk is computed for all of them
    in one pass (a table reads every chunk's end line at once). Weak, so no reference cycle keeps
    a discarded chunking alive. At tens of thousands of chunks, hashing each one and placing it
    in lines and bytes cost more than the chunking itself, yet most runs (a re-chunk in the app,
    a benchmark, the stats) read none of it."""

    __slots__ = ("doc", "metadata", "contexts", "counter", "chunkset", "done", "__weakref__")

    def __init__(
        self, doc: Document, metadata: LazyMetadata | None = None, contexts: LazyContexts | None = None, counter=None
    ):
        self.doc, self.metadata, self.done = doc, metadata, set[object]()
        self.contexts, self.counter = contexts, counter  # the counter counts the embedded texts made later
        self.chunkset: weakref.ref[ChunkSet] | None = None

    def fill(self, fill) -> None:
        """`fill` for every chunk of this build its ChunkSet still holds, once."""
        cs = self.chunkset() if self.chunkset is not None else None
        if cs is not None and fill not in self.done:
            self.done.add(fill)
            # the ChunkSet's list, less any chunk a caller put there from another build (it may hold none)
            chunks = [c for c in cs.chunks if c._source is self]
            if chunks:
                fill(self, chunks)


_line_inputs = attrgetter("start", "end", "overlap_prev_chars", "overlap_next_chars")


def _store(chunks: list[Chunk], name: str, values) -> None:
    """Set a derived field of each chunk (a slot: past the frozen dataclass's __setattr__)."""
    deque(map(getattr(_ChunkSlots, name).__set__, chunks, values), 0)


def _fill_lines(source: _Source, chunks: list[Chunk]) -> None:
    """start/end lines and the lines of the overlaps, from the document's line starts."""
    line_starts = source.doc.line_starts
    start_lines, end_lines, prev_lines, next_lines = [], [], [], []
    for start, end, ov_prev, ov_next in map(_line_inputs, chunks):
        start_lines.append(start_line := bisect_right(line_starts, start))
        end_lines.append(end_line := bisect_right(line_starts, end - 1))
        prev_lines.append(bisect_right(line_starts, start + ov_prev - 1) - start_line + 1 if ov_prev else 0)
        next_lines.append(end_line - bisect_right(line_starts, end - ov_next) + 1 if ov_next else 0)
    for name, values in (
        ("start_line", start_lines),
        ("end_line", end_lines),
        ("overlap_prev_lines", prev_lines),
        ("overlap_next_lines", next_lines),
    ):
        _store(chunks, name, values)


def _fill_bytes(source: _Source, chunks: list[Chunk]) -> None:
    """sha256 (of the UTF-8 text) and byte offsets into the file as on disk, which share each
    chunk's encoding when the file is UTF-8."""
    doc, sha256 = source.doc, hashlib.sha256
    start_bytes = doc.file_byte_offsets([c.start for c in chunks])
    codec = doc.file_codec
    data = [c.text.encode("utf-8", "surrogatepass") for c in chunks]
    _store(chunks, "sha256", [sha256(d).hexdigest() for d in data])
    _store(chunks, "start_byte", start_bytes)
    if codec == "utf-8":
        _store(chunks, "end_byte", map(add, start_bytes, map(len, data)))
    else:
        _store(
            chunks, "end_byte", [b + len(c.text.encode(codec, "surrogatepass")) for b, c in zip(start_bytes, chunks)]
        )


def _fill_metadata(source: _Source, chunks: list[Chunk]) -> None:
    """Each chunk's metadata from its build's LazyMetadata (a chunk's index is its row there)."""
    lazy = source.metadata
    assert lazy is not None  # a chunk is built without metadata only when its build has one
    _store(chunks, "metadata", [lazy.metadata(c.index) for c in chunks])


def _fill_embedded(source: _Source, chunks: list[Chunk]) -> None:
    """Each chunk's context text from its build's LazyContexts, what it embeds (the context, or
    else its text: a build with a LazyContexts has no contextual header) and that text's count."""
    contexts = source.contexts
    assert contexts is not None  # a chunk is built without its embedded text only when its build has them
    made = contexts.texts([c.index for c in chunks])
    texts = [c.text for c in chunks]
    embed_texts = [c or t for c, t in zip(made, texts)]
    counts = _embedded_counts(source.counter, [], made, embed_texts, texts, [c.tokens for c in chunks])
    _store(chunks, "context_text", made)
    _store(chunks, "embed_text", embed_texts)
    _store(chunks, "embed_tokens", counts)


_FILLS = {
    **dict.fromkeys(("start_line", "end_line", "overlap_prev_lines", "overlap_next_lines"), _fill_lines),
    **dict.fromkeys(("sha256", "start_byte", "end_byte"), _fill_bytes),
    "metadata": _fill_metadata,
    **dict.fromkeys(("context_text", "embed_text", "embed_tokens"), _fill_embedded),
}
# reading one computes the others of its fill
_ONE_FIELD_PER_FILL = ("end_line", "sha256", "metadata", "embed_tokens")


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
    context_header: str = "none"  # what each chunk's embed_text starts with: see CONTEXT_HEADERS

    def __repr__(self) -> str:
        # short: Textual names a worker by repr-ing its arguments, and the full dataclass repr
        # spells out every chunk's text (0.15 s of the app's event loop at 10 MB)
        return (
            f"ChunkSet({self.document.name!r}, strategy={self.strategy!r}, chunks={len(self.chunks)}, "
            f"gaps={len(self.gaps)})"
        )

    def stats(self, budget: int | None = None) -> Stats:
        from .stats import compute_stats

        return compute_stats(self, budget)

    def derive_all(self) -> None:
        """Compute every chunk's lines, byte offsets and hash now, and the metadata and embedded
        texts a strategy keeps lazily (`LazyMetadata`, `LazyContexts`). A run leaves them to the
        first read, which computes them for all of its chunks at once (lines and hashes 20-40 ms at
        10 MB; the code strategy's context texts, which find the imports each chunk uses, about
        0.6 s): a caller that will show them can pay that here, in its worker thread, rather than
        on first use."""
        for chunk in self.chunks:
            for name in _ONE_FIELD_PER_FILL:
                getattr(chunk, name)

    def chunk_at(self, offset: int) -> Chunk | None:
        """The chunk whose span holds `offset`; inside an overlap, the later one."""
        from bisect import bisect_right

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
    declared_gaps: Sequence[tuple[int, int, str]] = (),
    warnings: Sequence[str] = (),
    notes: Sequence[str] = (),
    counter=None,
    context_header: str = "none",
    headings: Headings | None = None,
) -> ChunkSet:
    """Freeze spans into Chunks (sorted by start), counting tokens and finding gaps.

    Each chunk's embed_text (what an embedding model receives, see `embedded_texts`) is
    counted too; where it is the chunk's text it is that same string, counted once. `headings`
    gives the document's header path for `--context-header path` (see `context_heads`).
    Lines, byte offsets and hashes are left to the first read (see `_Derived`)."""
    from .tokens import get_counter

    text = doc.text
    metadata: Any  # the table's column, or made here from the spans: a lazy map, then a list or a repeat
    types: Iterable[str]  # the table's columns, or lazy maps over the spans
    labels: Iterable[str]
    if (
        isinstance(spans, SpanTable)
        and all(map(lt, spans.starts, spans.ends))
        and all(map(lt, spans.starts, spans.starts[1:]))
    ):
        starts, ends, types, labels = spans.starts, spans.ends, spans.boundary_types, spans.boundary_labels
        metadata, contexts = spans.metadata, spans.context_texts
    else:
        spans = [s for s in spans if s.end > s.start]
        if not all(map(lt, map(_span_start, spans), map(_span_start, spans[1:]))):  # rising starts are sorted
            spans.sort(key=_span_order)
        starts, ends = list(map(_span_start, spans)), list(map(_span_end, spans))
        types, labels = map(_span_type, spans), map(_span_label, spans)
        metadata, contexts = map(_span_metadata, spans), list(map(_span_context, spans))
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
    # a table's LazyMetadata is left to the first read, unless the header path reads it now
    lazy = metadata if isinstance(metadata, LazyMetadata) and context_header != "path" else None
    if lazy is not None:
        metadata = repeat(_UNREAD)
    elif metadata is None:
        metadata = repeat(_NO_METADATA)
    else:  # a strategy's own Metadata is read-only already: kept, not copied (log-records makes 100,000)
        metadata = [m if type(m) is Metadata else Metadata(m) if m else _NO_METADATA for m in metadata]
    texts = slices.texts(text, starts, ends)  # a slice of chunks at a time: they copy the whole text
    lazy_contexts = contexts if isinstance(contexts, LazyContexts) else None
    if lazy_contexts is not None and context_header != "none":  # a header goes in front of each: made now
        contexts, lazy_contexts = lazy_contexts.texts(range(len(texts))), None
    # the chunks' context_text, embed_text and embed_tokens columns
    embedded: tuple[Iterable[Any], Iterable[Any], Iterable[Any]]
    if lazy_contexts is not None:  # left to the first read, with their counts (see `_fill_embedded`)
        embedded = (repeat(_UNMADE), repeat(_UNMADE), repeat(_UNMADE))
    elif context_header == "none" and not any(contexts or ()):  # every chunk embeds its text
        embedded = (contexts or repeat(None), texts, token_counts)  # a context may be "" (kept)
    else:
        made = list(contexts or [None] * len(texts))
        cores = list(map(add, starts, ov_prev))  # where each chunk's new text starts
        # the header path is the only one that reads metadata (`lazy` is None for it)
        placed = [_NO_METADATA] * len(texts) if isinstance(metadata, repeat) else metadata
        heads = context_heads(doc, placed, context_header, len(texts), cores, ends, headings)
        embed_texts = (
            [h + (c or t) for h, c, t in zip(heads, made, texts)] if heads else [c or t for c, t in zip(made, texts)]
        )
        embedded = (made, embed_texts, _embedded_counts(counter, heads, made, embed_texts, texts, token_counts))
    source = _Source(doc, lazy, lazy_contexts, counter)
    chunks = _built_chunks(
        (
            count(),
            starts,
            ends,
            texts,
            token_counts,
            types,
            labels,
            ov_prev,
            ov_next,
            metadata,
            *embedded,
        ),
        source,
    )
    gaps = find_gaps(doc, starts, ends, declared_gaps)
    cs = ChunkSet(
        document=doc,
        strategy=strategy,
        params=dict(params),
        tokenizer=tokenizer,
        chunks=chunks,
        gaps=gaps,
        warnings=list(doc.warnings) + list(warnings),
        notes=list(notes),
        context_header=context_header,
    )
    source.chunkset = weakref.ref(cs)
    return cs


# metadata naming where a chunk lives, most specific first: a header path or scope chain, else
# a log section or thread subject (pages are added to any of them, see `pages`)
_PLACE_KEYS = ("header_path", "scope_chain", "section", "subject")
# (start, end) -> the document's header path at the first non-blank character of text[start:end]
Headings = Callable[[int, int], Sequence[str]]


def embedded_texts(
    doc: Document,
    texts: list[str],
    contexts: list[str | None],
    metadata: list[Mapping],
    context_header: str,
    cores: Sequence[int] = (),
    ends: Sequence[int] = (),
    headings: Headings | None = None,
) -> list[str]:
    """What an embedding model receives for each chunk: the strategy's context text where it
    makes one (cue text without timings, a row under its header...), else the chunk's text (the
    same string), with the contextual header in front: `title` the file name, `path` the file
    name and where the chunk lives (`guide.md > Install > From source`, `manual.pdf > Intro > p. 2`),
    then a blank line. `cores`, `ends` and `headings` as in `context_heads`."""
    heads = context_heads(doc, metadata, context_header, len(texts), cores, ends, headings)
    bodies = [c or t for c, t in zip(contexts, texts)]
    return [h + b for h, b in zip(heads, bodies)] if heads else bodies


def context_heads(
    doc: Document,
    metadata: list[Mapping],
    context_header: str,
    n: int,
    cores: Sequence[int] = (),
    ends: Sequence[int] = (),
    headings: Headings | None = None,
) -> list[str]:
    """Each of `n` chunks' contextual header with the blank line after it (see `embedded_texts`),
    or an empty list for `none`. Under `path`, a chunk whose metadata names no place (recursive,
    fixed, lines... on a markdown document) takes the document's header path from `headings`
    (strategies.markdown.heading_path_at) at its core: from `cores` (where its new text starts,
    past the overlap it repeats) to `ends`."""
    if context_header not in CONTEXT_HEADERS:
        raise ValueError(f"context header {context_header!r} is not one of {', '.join(CONTEXT_HEADERS)}")
    if context_header == "none":
        return []
    title = doc.name or "untitled"
    if context_header == "title":
        return [f"{title}\n\n"] * n
    if headings is None:
        return [f"{' > '.join((title, *place(m)))}\n\n" for m in metadata]
    return [f"{' > '.join((title, *place(m, headings, core, end)))}\n\n" for m, core, end in zip(metadata, cores, ends)]


def _embedded_counts(
    counter,
    heads: list[str],
    contexts: list[str | None],
    embed_texts: list[str],
    texts: list[str],
    token_counts: list[int],
) -> list[int]:
    """Each embedded text's exact count. A chunk's own text (counted already) after a header is
    the header's count, taken once per distinct header, plus the text's, when the seam between
    them is an anchor (`seam_anchor`); when the anchor comes later, at a, only the header with
    text[:a] and text[:a] alone are encoded. Other embedded texts are encoded whole. BPE counts are
    not additive in general: "\n\n" + "\nx" is not the tokens of "\n\n" and those of "\nx"."""
    head_counts: dict[str, int] = {}
    anchor, count = seam_anchor(counter.name), counter.count
    out = []
    for head, context, embed, text, n in zip(heads or repeat(""), contexts, embed_texts, texts, token_counts):
        if embed is text:
            out.append(n)
            continue
        a = anchor(text) if head and not context else None  # embed is head + text
        if a == 0:
            if head not in head_counts:
                head_counts[head] = count(head)
            out.append(head_counts[head] + n)
        elif a is not None:
            out.append(count(head + text[:a]) + n - count(text[:a]))
        else:
            out.append(count(embed))
    return out


def seam_anchor(counter_name: str):
    """`text -> a`: the first place a in a chunk's text where its count splits cleanly after a
    header (which ends in a line feed), or None. Characters and bytes split anywhere (0); lines at
    the start of some text; a BPE encoding at its first line-feed anchor (token_index.py)."""
    if counter_name in ("chars", "bytes"):
        return lambda text: 0
    if counter_name == "lines":
        return lambda text: 0 if text else None
    from .token_index import first_line_anchor

    return partial(first_line_anchor, counter_name)


def place(metadata: Mapping, headings: Headings | None = None, core: int = 0, end: int = 0) -> list[str]:
    """Where a chunk lives, as the parts of a contextual header: its metadata's header path,
    scope chain, section or subject, else the document's header path at its core (`headings`,
    see `context_heads`), then the pages it lies on (`pages`); empty when nothing says."""
    for key in _PLACE_KEYS:
        value = metadata.get(key)
        if value not in (None, "", [], ()):
            parts = [str(p) for p in value] if isinstance(value, (list, tuple)) else [str(value)]
            break
    else:
        parts = list(headings(core, end)) if headings is not None else []
    return parts + pages(metadata)


def pages(metadata: Mapping) -> list[str]:
    """`p. 3` or `pp. 3-4`, the pages of a PDF's chunk (its `page_start`/`page_end`, which
    `readers.locate` sets), as a header's last part; empty for a chunk of any other file."""
    first, last = metadata.get("page_start"), metadata.get("page_end")
    if first is None:
        return []
    return [f"p. {first}" if last in (None, first) else f"pp. {first}-{last}"]


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
        for ds, de, reason in reasons[bisect_right(reach, a) : bisect_left(reason_starts, b)]:
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
