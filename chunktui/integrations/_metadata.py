"""The metadata both framework bridges attach to a chunk, so a LangChain Document and a
LlamaIndex node of the same chunk say the same about it."""

from __future__ import annotations

from chunktui.formats.records import to_plain


def chunk_metadata(chunk, chunkset) -> dict:
    """Where `chunk` is in its source (character offsets, 1-based lines), its exact token
    count, its header path, scope chain and pages (a PDF's) when the strategy gives them, and the text
    an embedding model should receive when that is not the chunk's own text."""
    meta = chunk.metadata
    out = {
        "start_index": chunk.start,
        "end_index": chunk.end,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "chunk_index": chunk.index,
        "tokens": chunk.tokens,
        "tokenizer": chunkset.tokenizer,
        "strategy": chunkset.strategy,
        "sha256": chunk.sha256,
    }
    for key in ("header_path", "scope_chain", "page_start", "page_end"):
        if meta.get(key) is not None:
            out[key] = to_plain(meta[key])
    if chunk.embed_text != chunk.text:
        out["embed_text"] = chunk.embed_text
        out["embed_tokens"] = chunk.embed_tokens
    return out


def named_document(text: str, name):
    """The engine's Document for `text`, named after its file when the framework says which
    (LangChain's `source`, LlamaIndex's `file_path`): `auto` then picks the strategy by the
    file's kind (guide.md is markdown) and `code` its grammar, as they do for files."""
    from chunktui.engine.readers.documents import Document

    return Document.from_text(text, path=name if isinstance(name, str) else None)
