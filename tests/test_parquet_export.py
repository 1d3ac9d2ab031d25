"""`--format parquet`: chunks.parquet holds chunks.db's columns, read back by pyarrow itself."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from click.testing import CliRunner

import chunktui
from chunktui.cli.commands import cli
from chunktui.engine.analysis.retrieval import embedded_text
from chunktui.formats.export import verify_export

CODE = "sample_docs/inventory.py"
FLAGS = ("-s", "code", "--max-chunk-size", "400")


def export(out: Path, fmt: str) -> Path:
    result = CliRunner().invoke(cli, ["chunk", CODE, "-f", fmt, "-o", str(out), *FLAGS])
    assert result.exit_code == 0, result.stderr
    return out


def test_rows_are_the_chunks_with_chunks_dbs_columns(tmp_path):
    table = pq.read_table(export(tmp_path / "pq", "parquet") / "chunks.parquet")
    db = sqlite3.connect(export(tmp_path / "db", "sqlite") / "chunks.db")
    db_columns = [row[1] for row in db.execute("PRAGMA table_info(chunks)")][2:]  # after rowid, source_id
    db_rows = db.execute(f"SELECT {', '.join(db_columns)} FROM chunks ORDER BY rowid").fetchall()
    db.close()
    assert table.column_names == db_columns
    assert [tuple(row.values()) for row in table.to_pylist()] == db_rows
    cs = chunktui.chunk(Path(CODE), "code", max_chunk_size=400)
    text = Path(CODE).read_text(encoding="utf-8")
    rows = table.to_pylist()
    assert len(rows) == len(cs.chunks) > 5
    for row, c in zip(rows, cs.chunks):
        assert row["text"] == text[row["start_char"] : row["end_char"]] == c.text
        assert row["sha256"] == hashlib.sha256(row["text"].encode()).hexdigest() == c.sha256
        assert (row["start_line"], row["end_line"], row["tokens"]) == (c.start_line, c.end_line, c.tokens)
        assert row["embed_text"] == embedded_text(c)
    source = json.loads(table.schema.metadata[b"chunktui.source"])
    assert (source["source"], source["strategy"], source["chunks"]) == (CODE, "code", len(rows))
    assert source["params"]["size"] == 400  # saved under the name, not the alias given


def test_read_back_finds_a_changed_text(tmp_path):
    path = export(tmp_path / "pq", "parquet") / "chunks.parquet"
    cs = chunktui.chunk(Path(CODE), "code", max_chunk_size=400)
    names = ["chunks.parquet"] * len(cs.chunks)
    assert verify_export(path.parent, "parquet", names) is None
    table = pq.read_table(path)
    texts = table.column("text").to_pylist()
    texts[2] += " "
    pq.write_table(table.set_column(table.column_names.index("text"), "text", pa.array(texts)), path)
    assert verify_export(path.parent, "parquet", names) == "chunk-0003 in chunks.parquet does not match its sha256"


def test_without_pyarrow_parquet_is_one_line(tmp_path, monkeypatch):
    """pyarrow is the `parquet` extra: a missing one is said before anything is written."""
    import sys

    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # what `import pyarrow` finds when it is not installed
    result = CliRunner().invoke(cli, ["chunk", "sample_docs", "-f", "parquet", "-o", str(tmp_path / "out"), "-j", "2"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "chunktui: error: --format: parquet needs pyarrow: pip install 'chunktui[parquet]'\n"
    assert not (tmp_path / "out").exists()
