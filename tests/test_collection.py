"""ChunkCollection: chunks of many files, duplicates removed and counted, neighbours and context exact."""

import shutil
from pathlib import Path

import pytest

from chunktui.engine import Document, chunk_document, load_document
from chunktui.engine.analysis.collection import ChunkCollection

SAMPLES = Path(__file__).parent.parent / "sample_docs"


def chunked(path, strategy="semantic", params=None):
    return chunk_document(load_document(path), strategy, params or {})


def test_duplicates_across_files_are_removed_and_counted(tmp_path):
    copy = tmp_path / "notes-copy.md"
    shutil.copy(SAMPLES / "notes.md", copy)
    original = chunked(SAMPLES / "notes.md", "lines", {"size": 5, "overlap": 0})
    duplicate = chunked(copy, "lines", {"size": 5, "overlap": 0})
    guide = chunked(SAMPLES / "guide.md", "lines", {"size": 5, "overlap": 0})
    coll = ChunkCollection([original, guide, duplicate])
    assert coll.duplicates_removed == len(duplicate.chunks)
    assert coll.get_file_chunks(copy) == []
    assert [c.chunk for c in coll.get_file_chunks(SAMPLES / "notes.md")] == original.chunks
    assert len(coll) == len(original.chunks) + len(guide.chunks) - sum(
        1 for c in guide.chunks if c.sha256 in {o.sha256 for o in original.chunks})
    assert len({c.sha256 for c in coll}) == len(coll)
    assert all(kept.sha256 == removed.sha256 and kept.source != str(copy) for removed, kept in coll.duplicates)
    assert coll.summary() == f"3 file(s), {len(coll)} chunk(s), {coll.duplicates_removed} duplicate chunk(s) removed (same sha256)"
    assert coll.files == [str(SAMPLES / "notes.md"), str(SAMPLES / "guide.md"), str(copy)]


def test_duplicates_inside_one_file_keep_the_first():
    doc = Document.from_text("same\nother\nsame\nsame\n", path="rep.txt")
    coll = ChunkCollection([chunk_document(doc, "lines", {"size": 1, "overlap": 0})])
    assert [c.text for c in coll] == ["same\n", "other\n"]
    assert [c.chunk.start for c in coll] == [0, 5]
    assert coll.duplicates_removed == 2


def test_neighbours_and_context_come_from_the_document():
    cs = chunked(SAMPLES / "guide.md", "lines", {"size": 20, "overlap": 0})
    coll = ChunkCollection([cs])
    middle = coll[3]
    assert [c.chunk for c in coll.get_neighboring_chunks(middle)] == [cs.chunks[2], cs.chunks[4]]
    assert [c.chunk for c in coll.get_neighboring_chunks(middle, n=2)] == cs.chunks[1:3] + cs.chunks[4:6]
    assert [c.chunk for c in coll.get_neighboring_chunks(coll[0])] == [cs.chunks[1]]
    ctx = coll.get_chunk_with_context(middle, n=1)
    assert ctx.text == cs.document.text[cs.chunks[2].start:cs.chunks[4].end]
    assert middle.text in ctx.text and ctx.chunk.chunk is cs.chunks[3]
    last = coll.get_chunk_with_context(cs.chunks[-1], n=3)  # a bare Chunk is found too
    assert last.after == [] and last.end == cs.chunks[-1].end


def test_context_of_a_sampled_chunk_includes_the_text_between():
    cs = chunked(SAMPLES / "service.log", "log")
    ctx = ChunkCollection([cs]).get_chunk_with_context(cs.chunks[1], n=1)
    assert ctx.text == cs.document.text[cs.chunks[0].start:cs.chunks[2].end]
    assert cs.document.text[cs.gaps[0].start:cs.gaps[0].end] in ctx.text


def test_unknown_chunk_or_file_is_a_key_error():
    cs = chunked(SAMPLES / "notes.md", "lines", {"size": 5, "overlap": 0})
    other = chunked(SAMPLES / "notes.md", "lines", {"size": 5, "overlap": 0})
    coll = ChunkCollection([cs])
    with pytest.raises(KeyError):
        coll.get_neighboring_chunks(other.chunks[0])  # equal text, but not this collection's chunk object
    with pytest.raises(KeyError):
        coll.get_file_chunks("missing.md")
