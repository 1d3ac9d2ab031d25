"""`--format parquet`: `chunks.parquet`, the chunks as one Parquet table for the columnar tools
(HF datasets, DuckDB, Spark, Ray, LanceDB read it directly).

The columns are chunks.db's (`chunk_rows.CHUNK_COLUMNS`, one row per chunk in order); the source
row (`SOURCE_COLUMNS`) is the file's key-value metadata under `chunktui.source`, as JSON. Written
with pyarrow into the export's working folder, read back and sha256-checked before the export
moves it into place. pyarrow is imported only when this format is used (pyarrow.parquet
takes about 0.5 s to import).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from chunktui.engine.core.errors import ChunktuiError

from .chunk_rows import CHUNK_COLUMNS, SOURCE_COLUMNS, chunk_rows, source_row
from .export import register_writer

PARQUET_NAME = "chunks.parquet"
SOURCE_KEY = b"chunktui.source"


@register_writer("parquet")
def write_parquet(cs, folder: Path) -> list[str]:
    """`chunks.parquet` holding every chunk's columns, its source in the file's metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"TEXT": pa.string(), "INTEGER": pa.int64()}
    source = dict(zip((name for name, _ in SOURCE_COLUMNS), source_row(cs)))
    source["params"] = json.loads(source["params"])
    schema = pa.schema([(name, types[kind]) for name, kind in CHUNK_COLUMNS],
                       metadata={SOURCE_KEY: json.dumps(source, ensure_ascii=False).encode()})
    columns = list(zip(*chunk_rows(cs))) or [()] * len(CHUNK_COLUMNS)
    table = pa.table([pa.array(values, type=field.type) for values, field in zip(columns, schema)], schema=schema)
    path = folder / PARQUET_NAME
    pq.write_table(table, path)
    problem = _read_back(path, cs.chunks)
    if problem:
        raise ChunktuiError(f"{PARQUET_NAME}: {problem}; nothing written")
    return [PARQUET_NAME] * len(cs.chunks)


def _read_back(path: Path, chunks) -> str | None:
    """The first way the file differs from `chunks` (count, a text and its sha256), or None."""
    import pyarrow.parquet as pq

    stored = pq.read_table(path, columns=["id", "text", "sha256"]).to_pydict()
    if len(stored["id"]) != len(chunks):
        return f"read back {len(stored['id'])} chunks of {len(chunks)}"
    for chunk_id, text, digest, c in zip(stored["id"], stored["text"], stored["sha256"], chunks):
        if digest != c.sha256 or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != digest:
            return f"{chunk_id} read back does not match its sha256"
    return None
