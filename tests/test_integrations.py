"""The LangChain splitter and the LlamaIndex node parser, against the real packages (the
`langchain` and `llamaindex` extras, installed by the dev extra): every offset they give is
the chunk's span, also where paragraphs repeat and chunks overlap."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_text_splitters import TextSplitter
from llama_index.core import Document as LIDocument
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship

import chunktui
from chunktui.formats.profiles import save_profile
from chunktui.integrations.langchain import ChunktuiSplitter
from chunktui.integrations.llamaindex import ChunktuiNodeParser

# a release-notes page as projects write them: the same boilerplate paragraphs under every
# release, so a chunk's text is found at several places and str.find picks the wrong one
RELEASE = """## {version}

### Fixed

- Upgrading from the previous release no longer drops the cache.
- The `--quiet` flag silences the progress bar.

Thanks to everyone who reported these. See the upgrade guide before you upgrade.

"""
NOTES = "# Release notes\n\n" + "".join(RELEASE.format(version=f"1.{n}.0") for n in range(6, 0, -1))

# an IVR transcript: one prompt line repeated, chunked two lines at a time, so each chunk's text
# is also found one line before it (where LlamaIndex's own search, from the previous node's
# start + 1, finds it)
TRANSCRIPT = "Welcome to the help line.\n" + "Press 1 for billing, 2 for support, or hold for an operator.\n" * 8

CONFIGS = [
    ("recursive", {"size": 120, "overlap": 60}),
    ("fixed", {"size": 40, "overlap": 20, "unit": "tokens"}),
    ("markdown", {"max_char": 200}),
]


def spans(strategy, params):
    return [(c.start, c.end) for c in chunktui.chunk(NOTES, strategy, **params).chunks]


def test_the_document_repeats_chunk_texts():
    """The checks below mean something: with each configuration, some chunk's text is also
    found earlier in the document than where the chunk starts."""
    for strategy, params in CONFIGS:
        assert any(NOTES.find(NOTES[a:b]) < a for a, b in spans(strategy, params)), strategy


@pytest.mark.parametrize(("strategy", "params"), CONFIGS)
def test_langchain_offsets_are_the_chunk_spans(strategy, params):
    splitter = ChunktuiSplitter(strategy, **params)
    assert isinstance(splitter, TextSplitter)
    docs = splitter.create_documents([NOTES, NOTES[:300]], [{"source": "CHANGES.md"}, {"source": "short.md"}])
    long_docs = [d for d in docs if d.metadata["source"] == "CHANGES.md"]
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in long_docs] == spans(strategy, params)
    for d in long_docs:
        assert NOTES[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content
    assert [d.page_content for d in long_docs] == splitter.split_text(NOTES)
    assert [d.metadata["chunk_index"] for d in long_docs] == list(range(len(long_docs)))


def test_langchain_split_documents_keeps_metadata_and_adds_the_chunks():
    splitter = ChunktuiSplitter("markdown", max_char=200)
    docs = splitter.split_documents([LCDocument(page_content=NOTES, metadata={"source": "CHANGES.md", "lang": "en"})])
    chunks = chunktui.chunk(NOTES, "markdown", max_char=200).chunks
    assert len(docs) == len(chunks)
    for d, c in zip(docs, chunks):
        assert d.metadata["lang"] == "en"
        assert (d.metadata["start_index"], d.metadata["end_index"]) == (c.start, c.end)
        assert (d.metadata["start_line"], d.metadata["end_line"], d.metadata["tokens"]) == (
            c.start_line,
            c.end_line,
            c.tokens,
        )
        assert d.metadata["header_path"] == list(c.metadata["header_path"])
    assert docs[-1].metadata["header_path"] == ["Release notes", "1.1.0"]


def test_langchain_from_profile(tmp_path: Path):
    path = save_profile(tmp_path / "notes.yaml", "recursive", {"size": 120, "overlap": 60}, tokenizer="o200k_base")
    splitter = ChunktuiSplitter.from_profile(path)
    docs = splitter.create_documents([NOTES])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == spans(
        "recursive", {"size": 120, "overlap": 60}
    )
    assert {d.metadata["tokenizer"] for d in docs} == {"o200k_base"}


def test_langchain_context_text_is_the_embed_text():
    """Code chunks carry their scope chain, and the text to embed where the strategy adds context."""
    source = Path(__file__).parent.parent / "sample_docs" / "inventory.py"
    text = source.read_text(encoding="utf-8")
    docs = ChunktuiSplitter("code", max_chunk_size=400).create_documents([text], [{"source": str(source)}])
    assert any(d.metadata.get("scope_chain") for d in docs)
    for d in docs:
        assert text[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content
        if "embed_text" in d.metadata:
            assert d.metadata["embed_text"] != d.page_content and d.metadata["embed_tokens"] > 0


@pytest.mark.parametrize(("strategy", "params"), CONFIGS)
def test_llamaindex_offsets_are_the_chunk_spans(strategy, params):
    parser = ChunktuiNodeParser(strategy, **params)
    assert isinstance(parser, NodeParser)
    docs = [LIDocument(text=NOTES, metadata={"file_name": "CHANGES.md"}), LIDocument(text=NOTES[:300])]
    nodes = parser.get_nodes_from_documents(docs)
    mine = [n for n in nodes if n.ref_doc_id == docs[0].doc_id]
    assert [(n.start_char_idx, n.end_char_idx) for n in mine] == spans(strategy, params)
    for n in mine:
        assert NOTES[n.start_char_idx : n.end_char_idx] == n.get_content(metadata_mode=MetadataMode.NONE)
        assert n.metadata["file_name"] == "CHANGES.md"
        assert (n.metadata["start_index"], n.metadata["end_index"]) == (n.start_char_idx, n.end_char_idx)


def test_llamaindex_previous_and_next_link_one_documents_nodes():
    parser = ChunktuiNodeParser("recursive", size=120, overlap=60)
    docs = [LIDocument(text=NOTES), LIDocument(text=NOTES[:300])]
    nodes = parser.get_nodes_from_documents(docs)
    for doc in docs:
        mine = [n for n in nodes if n.ref_doc_id == doc.doc_id]
        assert len(mine) > 1
        for before, after in zip(mine, mine[1:]):
            assert before.relationships[NodeRelationship.NEXT].node_id == after.node_id
            assert after.relationships[NodeRelationship.PREVIOUS].node_id == before.node_id
        assert NodeRelationship.PREVIOUS not in mine[0].relationships
        assert NodeRelationship.NEXT not in mine[-1].relationships


def test_llamaindex_metadata_stays_out_of_the_embedded_text(tmp_path: Path):
    path = save_profile(tmp_path / "md.yaml", "markdown", {"max_char": 200})
    nodes = ChunktuiNodeParser.from_profile(path).get_nodes_from_documents([LIDocument(text=NOTES)])
    assert nodes[-1].metadata["header_path"] == ["Release notes", "1.1.0"]
    for n in nodes:
        assert n.get_content(metadata_mode=MetadataMode.EMBED) == n.text


def test_llamaindex_names_the_document_by_its_file_path():
    """A reader's `file_path` picks the grammar for `code`, as a file's name does for `chunktui chunk`."""
    source = Path(__file__).parent.parent / "sample_docs" / "inventory.py"
    doc = LIDocument(text=source.read_text(encoding="utf-8"), metadata={"file_path": str(source)})
    nodes = ChunktuiNodeParser("code", max_chunk_size=400).get_nodes_from_documents([doc])
    assert any(n.metadata.get("scope_chain") for n in nodes)
    assert all(doc.text[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)


def test_repeated_lines_two_at_a_time_get_their_own_offsets():
    expected = [(c.start, c.end) for c in chunktui.chunk(TRANSCRIPT, "lines", size=2, overlap=0).chunks]
    assert len(expected) == 5 and TRANSCRIPT.find(TRANSCRIPT[slice(*expected[2])], expected[1][0] + 1) < expected[2][0]
    docs = ChunktuiSplitter("lines", size=2, overlap=0).create_documents([TRANSCRIPT])
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in docs] == expected
    nodes = ChunktuiNodeParser("lines", size=2, overlap=0).get_nodes_from_documents([LIDocument(text=TRANSCRIPT)])
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == expected


def test_splitters_from_a_profile_keep_its_context_header(tmp_path):
    """A profile tuned with a context header gave splitters whose embedded text had none."""
    profile = save_profile(tmp_path / "p.yaml", "recursive", {"size": 200, "overlap": 0}, context_header="title")
    lc = ChunktuiSplitter.from_profile(profile).create_documents(
        ["Some words. " * 40], metadatas=[{"source": "notes.txt"}]
    )
    assert lc[0].metadata["embed_text"].startswith("notes.txt")
    nodes = ChunktuiNodeParser.from_profile(profile).get_nodes_from_documents(
        [LIDocument(text="Some words. " * 40, metadata={"file_path": "notes.txt"})]
    )
    assert nodes[0].metadata["embed_text"].startswith("notes.txt")
