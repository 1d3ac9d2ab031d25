"""The chunk and source rows the table formats (SQLite, Parquet) store, so both hold the same columns."""

from __future__ import annotations

import json

from .records import display_path, to_plain

# column, SQL type; the order both formats store them in
CHUNK_COLUMNS = (
    ("id", "TEXT"),
    ("source", "TEXT"),
    ("chunk_index", "INTEGER"),
    ("start_char", "INTEGER"),
    ("end_char", "INTEGER"),
    ("start_byte", "INTEGER"),
    ("end_byte", "INTEGER"),
    ("start_line", "INTEGER"),
    ("end_line", "INTEGER"),
    ("page_start", "INTEGER"),
    ("page_end", "INTEGER"),
    ("tokens", "INTEGER"),
    ("embed_tokens", "INTEGER"),
    ("sha256", "TEXT"),
    ("boundary_type", "TEXT"),
    ("text", "TEXT"),
    ("embed_text", "TEXT"),
    ("metadata", "TEXT"),
)
SOURCE_COLUMNS = (
    ("source", "TEXT"),
    ("source_sha256", "TEXT"),
    ("strategy", "TEXT"),
    ("params", "TEXT"),
    ("tokenizer", "TEXT"),
    ("chunks", "INTEGER"),
    ("chars", "INTEGER"),
    ("gaps", "INTEGER"),
)


def source_name(cs) -> str | None:
    return display_path(cs.document.path) if cs.document.path else None


def chunk_rows(cs) -> list[tuple]:
    """One tuple per chunk in CHUNK_COLUMNS order. `embed_text` is what an embedding model
    receives (the chunk's text, or its context text where the strategy gives one, after the
    run's context header) and `embed_tokens` its exact count."""
    source = source_name(cs)
    rows = []
    for c in cs.chunks:
        pages = [c.metadata.get(key) for key in ("page_start", "page_end")]  # a PDF's chunks have them
        rows.append(
            (
                c.id,
                source,
                c.index,
                c.start,
                c.end,
                c.start_byte,
                c.end_byte,
                c.start_line,
                c.end_line,
                *(p if isinstance(p, int) else None for p in pages),
                c.tokens,
                c.embed_tokens,
                c.sha256,
                c.boundary_type,
                c.text,
                c.embed_text,
                json.dumps(to_plain(c.metadata), ensure_ascii=False, sort_keys=True),
            )
        )
    return rows


def source_row(cs) -> tuple:
    """The source's row in SOURCE_COLUMNS order: what it is and how it was chunked."""
    return (
        source_name(cs),
        cs.document.sha256,
        cs.strategy,
        json.dumps(to_plain(cs.params), sort_keys=True),
        cs.tokenizer,
        len(cs.chunks),
        len(cs.document.text),
        len(cs.gaps),
    )
