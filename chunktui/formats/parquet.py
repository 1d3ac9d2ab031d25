"""`--format parquet`: `chunks.parquet`, the chunks as one Parquet table for the columnar tools
(HF datasets, DuckDB, Spark, Ray, LanceDB read it directly).

The columns are chunks.db's (`chunk_rows.CHUNK_COLUMNS`, one row per chunk in order); the source
row (`SOURCE_COLUMNS`) is the file's key-value metadata under `chunktui.source`, as JSON. Written
with pyarrow into the export's working folder; `verify_export` reads it back (`stored_texts`) and
checks each text's sha256 before the export moves it into place. pyarrow is imported only when
this format is used (pyarrow.parquet takes about 0.5 s to import), and installed by the `parquet`
extra: without it `--format parquet` is one error line (`require_pyarrow`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from chunktui.engine.core.errors import ChunktuiError

from .chunk_rows import CHUNK_COLUMNS, SOURCE_COLUMNS, chunk_rows, source_row
from .export import register_writer, signals_deferred, write_problem

PARQUET_NAME = "chunks.parquet"
SOURCE_KEY = b"chunktui.source"
CORPUS_NAME = "corpus.parquet"  # a folder run's dataset, beside index.json
SOURCES_KEY = b"chunktui.sources"


def require_pyarrow() -> None:
    """pyarrow importable, else the one line saying how to install it (checked before a run starts)."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ChunktuiError("--format: parquet needs pyarrow: pip install 'chunktui[parquet]'") from None


def stored_texts(path: Path) -> dict[str, str]:
    """{chunk id: text} of a chunks.parquet, for `verify_export` to hash."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        stored = pq.read_table(path, columns=["id", "text"]).to_pydict()
    except pa.ArrowException as exc:
        raise ChunktuiError(f"not a chunktui Parquet export ({exc})") from None
    return dict(zip(stored["id"], stored["text"]))


@register_writer("parquet", read_back=stored_texts)
def write_parquet(cs, folder: Path) -> list[str]:
    """`chunks.parquet` holding every chunk's columns, its source in the file's metadata."""
    require_pyarrow()  # the app's export dialog offers it too
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = dict(zip((name for name, _ in SOURCE_COLUMNS), source_row(cs)))
    source["params"] = json.loads(source["params"])
    schema = _schema(SOURCE_KEY, source)
    columns = list(zip(*chunk_rows(cs))) or [()] * len(CHUNK_COLUMNS)
    table = pa.table([pa.array(values, type=field.type) for values, field in zip(columns, schema)], schema=schema)
    path = folder / PARQUET_NAME
    pq.write_table(table, path)
    return [PARQUET_NAME] * len(cs.chunks)


def write_corpus(parts: list[Path], folder: Path) -> int:
    """`corpus.parquet` in `folder`: the rows of every file's `chunks.parquet` in `parts`, in
    order, one dataset for the corpus; the files' sources (their `chunktui.source`) listed in its
    metadata. Written aside, read back and sha256-checked, then moved into place with Ctrl-C and
    SIGTERM held back, so a reader sees the last whole dataset or none and nothing is left aside,
    whatever stops it. Returns the number of rows."""
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    tables, sources = [], []
    for part in parts:
        try:
            table = pq.read_table(part)
            sources.append(json.loads(table.schema.metadata[SOURCE_KEY]))
        except (OSError, ValueError, KeyError, TypeError, pa.ArrowException) as exc:
            raise ChunktuiError(f"{part}: cannot be read into {CORPUS_NAME} ({exc})") from None
        tables.append(table)
    schema = _schema(SOURCES_KEY, sources)
    corpus = pa.concat_tables([t.replace_schema_metadata(None) for t in tables] or [schema.empty_table()])
    corpus = corpus.replace_schema_metadata(schema.metadata)
    target, aside = folder / CORPUS_NAME, folder / f".{CORPUS_NAME}.tmp"
    try:
        pq.write_table(corpus, aside)
        problem = _read_back(aside, corpus.column("sha256").to_pylist())
        if not problem:
            with signals_deferred(target):
                os.replace(aside, target)
            return corpus.num_rows
    except OSError as exc:  # a full or read-only disk
        problem = f"cannot write ({write_problem(exc)})"
    except BaseException:  # Ctrl-C or SIGTERM while it is written: nothing is left aside either
        _remove(aside)
        raise
    _remove(aside)
    raise ChunktuiError(f"{target}: {problem}; nothing written")


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:  # a read-only folder: nothing was made there
        pass


def _schema(key: bytes, value):
    """The CHUNK_COLUMNS as Parquet columns, `value` as JSON under `key` in the metadata."""
    import pyarrow as pa

    types = {"TEXT": pa.string(), "INTEGER": pa.int64()}
    return pa.schema(
        [(name, types[kind]) for name, kind in CHUNK_COLUMNS],
        metadata={key: json.dumps(value, ensure_ascii=False).encode()},
    )


def _read_back(path: Path, digests: list[str]) -> str | None:
    """The first way the corpus dataset at `path` differs from rows with these sha256s (their
    count, a text and its sha256), or None. Not `verify_export`'s {id: text}: ids repeat in a corpus."""
    import pyarrow.parquet as pq

    stored = pq.read_table(path, columns=["id", "source", "text", "sha256"]).to_pydict()
    if len(stored["id"]) != len(digests):
        return f"read back {len(stored['id'])} chunks of {len(digests)}"
    for chunk_id, source, text, digest, expected in zip(
        stored["id"], stored["source"], stored["text"], stored["sha256"], digests
    ):
        if digest != expected or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != digest:
            return f"{chunk_id} of {source} read back does not match its sha256"
    return None
