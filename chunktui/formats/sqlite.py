"""`--format sqlite`: `chunks.db`, the chunks in one SQLite file with a full-text index.

Tables: `chunks` (chunk_rows.CHUNK_COLUMNS, one row per chunk, rowid in order), `sources`
(how each source was chunked) and `chunks_fts`, an FTS5 index over `embed_text` (Porter
stemming, Unicode words, as the retrieval evaluation's BM25) that `chunktui search` ranks with
`bm25()`. Written with the standard library's sqlite3 into the export's working folder; before
the export moves it into place, `verify_export` reads it back (`stored_texts`: SQLite's
integrity check, FTS5's check of the index against the chunks, then each text's sha256).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from chunktui.engine.core.errors import ChunktuiError

from .chunk_rows import CHUNK_COLUMNS, SOURCE_COLUMNS, chunk_rows, source_row
from .export import register_writer

DB_NAME = "chunks.db"
FTS_TABLE = "chunks_fts"


def stored_texts(path: Path) -> dict[str, str]:
    """{chunk id: text} of a chunks.db, once SQLite finds the file whole and FTS5 its index
    holding exactly the chunks' embedded texts (its 'integrity-check' with rank 1 compares the
    index with the `chunks` table it indexes; it writes nothing, but needs a writable connection)."""
    db = sqlite3.connect(path)
    try:
        if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise ChunktuiError("the file is corrupt")
        try:
            db.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError as exc:
            raise ChunktuiError(f"the full-text index does not match the chunks ({exc})") from None
        return dict(db.execute("SELECT id, text FROM chunks ORDER BY rowid").fetchall())
    except sqlite3.DatabaseError as exc:
        raise ChunktuiError(f"not a chunktui SQLite export ({exc})") from None
    finally:
        db.close()


@register_writer("sqlite", read_back=stored_texts)
def write_sqlite(cs, folder: Path) -> list[str]:
    """`chunks.db` holding every chunk, its source and the full-text index over the embedded texts."""
    path = folder / DB_NAME
    db = sqlite3.connect(path)
    try:
        with db:
            _create(db)
            db.execute(_insert("sources", SOURCE_COLUMNS), source_row(cs))
            db.executemany(_insert("chunks", CHUNK_COLUMNS), chunk_rows(cs))
            db.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
    finally:
        db.close()
    return [DB_NAME] * len(cs.chunks)


def _create(db: sqlite3.Connection) -> None:
    columns = ", ".join(f"{name} {kind}" for name, kind in SOURCE_COLUMNS)
    db.execute(f"CREATE TABLE sources (source_id INTEGER PRIMARY KEY, {columns})")
    columns = ", ".join(f"{name} {kind}" for name, kind in CHUNK_COLUMNS)
    db.execute(
        f"CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, source_id INTEGER DEFAULT 1 REFERENCES sources, {columns})"
    )
    db.execute(
        f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(embed_text, content='chunks', content_rowid='rowid', "
        "tokenize='porter unicode61')"
    )


def _insert(table: str, columns) -> str:
    names = [name for name, _ in columns]
    return f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"


def search_db(path, query: str, k: int) -> list[dict]:
    """The `k` chunks of a `chunks.db` (or the export folder holding one) best matching any
    word of `query`, best first: FTS5's bm25() over the embedded texts, score = -bm25()."""
    from chunktui.engine.core.errors import DocumentError
    from chunktui.engine.analysis.retrieval import fts5_query

    path = Path(path)
    if path.is_dir():
        path = path / DB_NAME
    if not path.is_file():
        raise DocumentError(path, "no such file")
    match = fts5_query(query)
    if not match:
        raise ChunktuiError(f"QUERY: no words to search for in {query!r}")
    try:
        db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DocumentError(path, f"cannot open ({exc})") from None
    try:
        rows = db.execute(
            f"SELECT c.id, c.source, c.start_line, c.end_line, c.start_char, c.end_char, c.tokens, c.text, "
            f"-bm25({FTS_TABLE}) AS score FROM {FTS_TABLE} JOIN chunks c ON c.rowid = {FTS_TABLE}.rowid "
            f"WHERE {FTS_TABLE} MATCH ? ORDER BY score DESC, c.rowid LIMIT ?",
            (match, k),
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise DocumentError(path, f"not a chunktui SQLite export ({exc})") from None
    finally:
        db.close()
    names = ("id", "source", "start_line", "end_line", "start_char", "end_char", "tokens", "text", "score")
    return [dict(zip(names, row)) for row in rows]
