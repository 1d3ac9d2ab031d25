"""The code strategy's metadata is kept compact and made into dicts and lists when first read
(engine.code.chunker.CodeMetadata): what the collector has to walk stays small, and what a
caller reads is what an eager build gives."""

from __future__ import annotations

import argparse
import gc
import inspect

from tree_sitter import Node

from chunktui.engine import Document, chunk_document
from chunktui.engine.code.entities import Entity
from chunktui.engine.core.model import build_chunkset
from chunktui.engine.strategies import Context, get_strategy

PARAMS = {"size": 512, "unit": "chars", "overlap_lines": 0}


def real_code() -> Document:
    """Two modules of the standard library (220 KB, 555 chunks at 512 characters)."""
    text = "".join(open(inspect.getsourcefile(m), encoding="utf-8").read() for m in (argparse, inspect))  # type: ignore[arg-type]
    return Document(text=text, path="argparse_inspect.py", kind="code", language="python")


def tracked_reach(obj, skip) -> int:
    """Containers the collector tracks that `obj` holds, directly or not (classes and `skip` aside)."""
    seen: set[int] = set()
    stack = [obj]
    while stack:
        for r in gc.get_referents(stack.pop()):
            if gc.is_tracked(r) and r is not skip and not isinstance(r, type) and id(r) not in seen:
                seen.add(id(r))
                stack.append(r)
    return len(seen)


def test_code_chunks_leave_the_collector_few_containers():
    """Before: a chunk held a metadata dict and four lists (scope chain, entities, siblings,
    imports) from the start, and the run left 7.8 tracked containers a chunk for every later
    collection to walk (at 10 MB, 0.8 s of passes in a 5 s run). Now a chunk holds none until its
    metadata is read. The parse kept with the Document held one root node, and with it the
    children list of every node a walk had opened: 2.8 containers a chunk were left (at 10 MB, 190,000
    nodes in 35,000 lists for each later collection). Now the walks' nodes go with the walks, and the
    run leaves 1.8 a chunk (the chunk and the definitions kept with the parse)."""
    warm = Document(text="def f():\n    pass\n", path="w.py", kind="code", language="python")
    chunk_document(warm, "code", PARAMS, tokenizer="chars")  # the strategy's modules loaded, not counted
    doc = real_code()
    gc.collect()
    before = len(gc.get_objects())
    cs = chunk_document(doc, "code", PARAMS, tokenizer="chars")
    gc.collect()
    grown = len(gc.get_objects()) - before
    assert len(cs.chunks) > 500
    assert grown < 2.2 * len(cs.chunks), grown / len(cs.chunks)
    assert not [o for o in gc.get_objects() if type(o) is list and o and isinstance(o[0], Node)]
    source = cs.chunks[0]._source
    assert sum(tracked_reach(c, source) for c in cs.chunks) == 0
    cs.derive_all()  # the app's worker reads them here: a Metadata dict and its four lists each
    assert all(tracked_reach(c, source) == 5 for c in cs.chunks)


def test_metadata_read_lazily_is_what_an_eager_build_gives():
    """The same spans as Span objects (the metadata made for each at once) give equal chunks, and
    a chunk whose ChunkSet is gone makes its own."""
    doc = real_code()
    strategy = get_strategy("code")
    params = strategy.validate(PARAMS)
    lazy = chunk_document(doc, "code", PARAMS, tokenizer="chars")
    eager = build_chunkset(
        doc, list(strategy.run(doc, params, Context()).spans), strategy="code", params=params, tokenizer="chars"
    )
    assert [c.metadata for c in lazy.chunks] == [c.metadata for c in eager.chunks]
    assert lazy.chunks == eager.chunks
    k = next(k for k, c in enumerate(eager.chunks) if c.metadata["scope_chain"] and c.metadata["imports"])
    alone = chunk_document(doc, "code", PARAMS, tokenizer="chars").chunks
    gc.collect()  # its ChunkSet is gone: the chunk reads its own row
    assert alone[k].metadata == eager.chunks[k].metadata
    assert alone[k].metadata["imports"] is not alone[k + 1].metadata["imports"]


def test_a_document_let_go_frees_its_parse_at_once():
    """The parse cached on a Document is freed with it, with no collection needed. Before, the
    parse held the Document that caches it, and each definition its parent that listed it among its
    children: those cycles kept a big file's parse (and its tens of thousands of definitions) for
    every collection to walk until a pass of the oldest generation, the slowest, found them."""
    gc.collect()
    before = sum(type(o) is Entity for o in gc.get_objects())
    doc = real_code()
    cs = chunk_document(doc, "code", PARAMS, tokenizer="chars")
    assert any(c.metadata["entities"] for c in cs.chunks)  # rows read: their metadata made too
    gc.collect()
    assert sum(type(o) is Entity for o in gc.get_objects()) > before + 300
    gc.disable()  # this test's own process: no collection may free what refcounts do not
    try:
        del cs, doc
        left = sum(type(o) is Entity for o in gc.get_objects()) - before
    finally:
        gc.enable()
    assert left == 0


def test_embedded_texts_read_lazily_are_what_an_eager_build_gives():
    """Each chunk's context text names the imports its code uses, found by reading every
    identifier of the file: made when an embedded text is first read, for every chunk at once, and
    then exactly what an eager build gives, counted exactly (cl100k here), also for a chunk whose
    ChunkSet is gone and for a copy."""
    import copy

    from chunktui.engine.core.tokens import get_counter

    doc = real_code()
    strategy = get_strategy("code")
    params = strategy.validate(PARAMS)
    lazy = chunk_document(doc, "code", PARAMS)
    eager = build_chunkset(
        doc, list(strategy.run(doc, params, Context()).spans), strategy="code", params=params, tokenizer="cl100k_base"
    )
    assert [c.embed_text for c in lazy.chunks] == [c.embed_text for c in eager.chunks]
    assert [c.embed_tokens for c in lazy.chunks] == [c.embed_tokens for c in eager.chunks]
    count = get_counter("cl100k_base").count
    k = next(k for k, c in enumerate(eager.chunks) if c.metadata["imports"])
    assert eager.chunks[k].embed_tokens == count(eager.chunks[k].embed_text) > eager.chunks[k].tokens
    assert "Uses: " in eager.chunks[k].context_text
    alone = chunk_document(doc, "code", PARAMS).chunks
    gc.collect()  # its ChunkSet is gone: the chunk makes its own
    assert (alone[k].context_text, alone[k].embed_tokens) == (
        eager.chunks[k].context_text,
        eager.chunks[k].embed_tokens,
    )
    again = chunk_document(doc, "code", PARAMS)
    assert copy.deepcopy(again.chunks[k]) == eager.chunks[k]
    assert again.stats().total_tokens == eager.stats().total_tokens


def test_a_run_read_for_its_texts_makes_no_context_text(monkeypatch):
    """The context texts (and the identifier scan behind them) are a third of a 10 MB run that
    reads only the chunks' texts: they wait for the first read of one, then are made for all."""
    from chunktui.engine.code import chunker

    made = []
    real = chunker._Describer.context
    monkeypatch.setattr(chunker._Describer, "context", lambda self, i: made.append(i) or real(self, i))
    cs = chunk_document(real_code(), "code", PARAMS, tokenizer="chars")
    assert "".join(c.text for c in cs.chunks) and not made
    assert cs.chunks[3].embed_tokens == len(cs.chunks[3].embed_text)
    assert sorted(made) == list(range(len(cs.chunks)))
    assert cs.chunks[4].embed_text.endswith(cs.chunks[4].text)
    assert len(made) == len(cs.chunks)  # once
