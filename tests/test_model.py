"""build_chunkset on arbitrary spans: unsorted, empty, nested and overlapping ones, checked
field by field against a direct computation from the text (lines, bytes, hashes and
overlaps are derived lazily, so this also pins what the first read returns)."""

from __future__ import annotations

import copy
import gc
import hashlib
import pickle
import weakref

from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine import Document
from chunktui.engine.core.model import Chunk, Span, SpanTable, build_chunkset

TEXT = st.text(alphabet="ab é\n€😀", min_size=1, max_size=80)


def expected_chunk(text: str, i: int, spans: list[tuple[int, int]]) -> dict:
    start, end = spans[i]
    body = text[start:end]
    ov_prev = max(0, min(spans[i - 1][1], end) - start) if i else 0
    ov_next = max(0, end - spans[i + 1][0]) if i + 1 < len(spans) else 0
    return {
        "index": i,
        "start": start,
        "end": end,
        "text": body,
        "tokens": len(body),
        "start_line": text.count("\n", 0, start) + 1,
        "end_line": text.count("\n", 0, end - 1) + 1,
        "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
        "start_byte": len(text[:start].encode("utf-8")),
        "end_byte": len(text[:end].encode("utf-8")),
        "overlap_prev_chars": ov_prev,
        "overlap_next_chars": ov_next,
        "overlap_prev_lines": text.count("\n", start, start + ov_prev - 1) + 1 if ov_prev else 0,
        "overlap_next_lines": text.count("\n", end - ov_next, end - 1) + 1 if ov_next else 0,
    }


@settings(max_examples=60, deadline=None)
@given(data=st.data(), text=TEXT)
def test_fields_match_a_direct_computation(data, text):
    n = len(text)
    bounds = st.tuples(st.integers(0, n), st.integers(0, n)).map(sorted)
    raw = data.draw(st.lists(bounds, max_size=12))  # any order, empty and nested spans included
    spans = [Span(s, e, "size", f"span {k}", metadata={"k": k} if k % 2 else {}) for k, (s, e) in enumerate(raw)]
    doc = Document.from_text(text)
    cs = build_chunkset(doc, spans, strategy="test", params={}, tokenizer="chars")
    kept = sorted((s, e) for s, e in raw if e > s)
    assert [(c.start, c.end) for c in cs.chunks] == kept
    for i, c in enumerate(cs.chunks):
        for name, value in expected_chunk(text, i, kept).items():
            assert getattr(c, name) == value, (name, c)
    covered = set().union(*(range(s, e) for s, e in kept))
    assert [p for g in cs.gaps for p in range(g.start, g.end)] == [p for p in range(n) if p not in covered]
    # the same spans as columns (what strategies with many chunks propose) make the same chunks
    table = SpanTable(
        [s.start for s in spans],
        [s.end for s in spans],
        [s.boundary_type for s in spans],
        [s.boundary_label for s in spans],
        [s.metadata for s in spans],
    )
    assert list(table) == spans
    again = build_chunkset(doc, table, strategy="test", params={}, tokenizer="chars")
    assert (again.chunks, again.gaps) == (cs.chunks, cs.gaps)


def test_derived_fields_survive_their_chunkset_and_copies():
    doc = Document.from_text("héllo\nwörld\n" * 20)
    spans = [Span(s, s + 30) for s in range(0, 200, 20)]
    cs = build_chunkset(doc, spans, strategy="test", params={}, tokenizer="chars")
    chunks = cs.chunks
    first = chunks[0]
    assert copy.copy(first) == first
    del cs
    gc.collect()  # the shared batch is gone: each chunk now derives its own fields
    kept = [(c.start, c.end) for c in chunks]
    for i, c in enumerate(chunks):
        made = Chunk(
            **{
                **expected_chunk(doc.text, i, kept),
                "boundary_type": c.boundary_type,
                "boundary_label": c.boundary_label,
            }
        )
        assert c == made


def test_a_chunk_moved_into_another_chunkset_keeps_its_own_fields():
    """Callers may mix chunks of two builds in one list: each derives its fields from its own document."""
    one, two = Document.from_text("first text\n" * 30), Document.from_text("ünïcode\n\nsecond\n" * 20)
    cs1 = build_chunkset(one, [Span(s, s + 25) for s in range(0, 300, 25)], strategy="t", params={}, tokenizer="chars")
    cs2 = build_chunkset(
        two, [Span(s, s + 40, metadata={"k": s}) for s in range(0, 280, 30)], strategy="t", params={}, tokenizer="chars"
    )
    foreign = cs2.chunks[3]
    cs1.chunks.append(foreign)
    assert [c.end_line for c in cs1.chunks] == [one.text.count("\n", 0, c.end - 1) + 1 for c in cs1.chunks[:-1]] + [
        two.text.count("\n", 0, foreign.end - 1) + 1
    ]
    assert foreign.start_byte == len(two.text[: foreign.start].encode("utf-8"))
    assert foreign.overlap_prev_chars == 10 and foreign.metadata == {"k": 90} and cs1.chunks[0].metadata == {}


def test_a_chunk_dropped_from_its_chunkset_still_derives_its_fields():
    """A caller may filter a ChunkSet's list in place; chunks it dropped keep working."""
    doc = Document.from_text("héllo\nwörld\n" * 20)
    cs = build_chunkset(doc, [Span(s, s + 30) for s in range(0, 200, 20)], strategy="t", params={}, tokenizer="chars")
    dropped = cs.chunks[2]
    cs.chunks[:] = []
    assert dropped.start_byte == len(doc.text[: dropped.start].encode("utf-8"))
    assert dropped.sha256 == hashlib.sha256(dropped.text.encode("utf-8")).hexdigest()
    assert dropped.start_line == doc.text.count("\n", 0, dropped.start) + 1


def test_chunks_of_two_builds_of_the_same_spans_are_equal():
    """A re-run gives equal chunks (what a caller comparing two chunkings relies on), and only those."""
    doc = Document.from_text("héllo\nwörld\n" * 20)
    spans = [Span(s, s + 30, metadata={"n": s}) for s in range(0, 200, 20)]
    one, two = (build_chunkset(doc, spans, strategy="t", params={}, tokenizer="chars") for _ in range(2))
    assert one.chunks == two.chunks
    assert one.chunks[1] != two.chunks[2] and one.chunks[1] != "not a chunk"


def test_built_chunks_behave_as_the_chunk_dataclass():
    """A run's chunks (made in bulk, their lines, bytes and hashes derived when first read) are
    Chunks like one made with every field: frozen, replaceable, copyable (deeply too), picklable,
    compared and shown alike, and no sequence."""
    import dataclasses

    import pytest

    doc = Document.from_text("héllo\nwörld\n" * 20)
    cs = build_chunkset(
        doc,
        [Span(s, s + 30, "size", "s", metadata={"n": s} if s else {}) for s in range(0, 200, 20)],
        strategy="t",
        params={},
        tokenizer="chars",
    )
    chunk = cs.chunks[3]
    whole = Chunk(**{f.name: getattr(chunk, f.name) for f in dataclasses.fields(Chunk)})
    assert isinstance(chunk, Chunk) and chunk == whole
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.start = 0
    with pytest.raises(TypeError):
        chunk.metadata["n"] = 1
    assert dataclasses.replace(chunk, boundary_label="moved") == dataclasses.replace(whole, boundary_label="moved")
    assert copy.copy(chunk) == chunk
    for chunk_ in (chunk, whole, cs.chunks[0]):  # with and without metadata
        for twin in (copy.deepcopy(chunk_), pickle.loads(pickle.dumps(chunk_))):
            assert twin == chunk_ and type(twin) is Chunk
    assert repr(chunk) == repr(whole) and bool(chunk)
    assert "%s" % chunk == repr(chunk) and weakref.ref(chunk)() is chunk  # noqa: UP031 (%-formatting is the case tested: no tuple behind it)
    assert dataclasses.asdict(chunk) == chunk.to_dict() == dataclasses.asdict(whole)
    for use in (len, list, lambda c: c[0], lambda c: c < c, lambda c: c + (), lambda c: 3 in c):
        for one in (chunk, whole):  # what a Chunk refuses, a built one refuses too (no tuple behind it shows)
            with pytest.raises(TypeError):
                use(one)


def test_passes_made_in_slices_give_what_one_pass_gives():
    """slices.py cuts a pass over a whole chunking into C calls of `step` items (the GIL is free
    between them); the result is the one-call result at any length, the ends of slices included."""
    import random
    from operator import add

    from chunktui.engine.core import slices

    rng = random.Random(7)
    text = "".join(rng.choice("ab\nc ") for _ in range(500))
    for n in (0, 1, 6, 7, 50):
        starts = sorted(rng.randrange(len(text)) for _ in range(n))
        ends = [s + rng.randrange(20) for s in starts]
        values = [rng.randrange(-5, 100) for _ in range(n)]
        assert slices.texts(text, starts, ends, step=3) == [text[s:e] for s, e in zip(starts, ends)]
        assert slices.texts(text.encode(), starts, ends, step=3) == [text.encode()[s:e] for s, e in zip(starts, ends)]
        assert slices.mapped(add, starts, ends, step=3) == list(map(add, starts, ends))
        assert slices.sorted_in_slices(values, step=3) == sorted(values)
