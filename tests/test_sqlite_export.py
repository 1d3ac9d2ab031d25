"""`--format sqlite` (chunks.db: chunks, sources, an FTS5 index over the embedded texts) and
`chunktui search` over it, on the sample documents."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from itertools import islice
from pathlib import Path

from click.testing import CliRunner

import chunktui
from chunktui.cli.commands import cli
from chunktui.engine.analysis.retrieval import BM25Index, embedded_text
from chunktui.formats.export import verify_export

GUIDE, CODE = "sample_docs/guide.md", "sample_docs/inventory.py"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def rows(db: Path, sql: str) -> list[sqlite3.Row]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def export(tmp_path: Path, source: str, *flags) -> Path:
    code, _, err = run("chunk", source, "-f", "sqlite", "-o", tmp_path / "out", *flags)
    assert code == 0, err
    return tmp_path / "out" / "chunks.db"


def test_every_chunk_is_a_row_with_its_exact_place(tmp_path):
    db = export(tmp_path, CODE, "-s", "code", "--max-chunk-size", "400")
    cs = chunktui.chunk(Path(CODE), "code", max_chunk_size=400)
    text = Path(CODE).read_text(encoding="utf-8")
    data = Path(CODE).read_bytes()
    stored = rows(db, "SELECT * FROM chunks ORDER BY rowid")
    assert len(stored) == len(cs.chunks) > 5
    for row, c in zip(stored, cs.chunks):
        assert row["text"] == text[row["start_char"] : row["end_char"]] == c.text
        assert data[row["start_byte"] : row["end_byte"]].decode("utf-8") == c.text
        assert (row["id"], row["source"], row["start_line"], row["end_line"], row["tokens"]) == (
            c.id,
            CODE,
            c.start_line,
            c.end_line,
            c.tokens,
        )
        assert row["sha256"] == hashlib.sha256(row["text"].encode()).hexdigest()
        assert row["embed_text"] == embedded_text(c) and json.loads(row["metadata"]) == json.loads(
            json.dumps(dict(c.metadata))
        )
    with_context = [r for r in stored if r["embed_text"] != r["text"]]
    assert with_context and all(r["embed_tokens"] > 0 for r in with_context)
    assert all(r["embed_tokens"] == r["tokens"] for r in stored if r["embed_text"] == r["text"])
    (source,) = rows(db, "SELECT * FROM sources")
    assert (source["source"], source["strategy"], source["chunks"], source["chars"]) == (
        CODE,
        "code",
        len(stored),
        len(text),
    )
    assert source["source_sha256"] == hashlib.sha256(Path(CODE).read_bytes()).hexdigest()
    assert json.loads(source["params"])["size"] == 400  # saved under the name, not the alias given


def test_search_ranks_as_the_retrieval_evaluations_bm25(tmp_path):
    db = export(tmp_path, GUIDE, "-s", "recursive", "--size", "400", "--overlap", "0")
    cs = chunktui.chunk(Path(GUIDE), "recursive", size=400, overlap=0)
    query = "how do I roll back a failed deploy"
    expected = [cs.chunks[p] for p, _ in islice(BM25Index(cs.chunks).search(query), 4)]
    code, out, err = run("search", db, query, "-k", "4")
    assert code == 0 and err == ""
    heads = out.splitlines()[::2]
    assert len(heads) == 4
    for rank, (head, c) in enumerate(zip(heads, expected), 1):
        assert head.split()[:3] == [f"{rank}.", f"{GUIDE}:{c.start_line}-{c.end_line}", c.id]
    code, folder_out, _ = run("search", db.parent, query, "-k", "4")
    assert code == 0 and folder_out == out


def test_search_bad_input_is_one_line(tmp_path):
    db = export(tmp_path, GUIDE)
    not_db = tmp_path / "notes.db"
    shutil.copy(GUIDE, not_db)
    for args, problem in [
        ((tmp_path / "missing.db", "deploy"), "missing.db: no such file"),
        ((not_db, "deploy"), "notes.db: not a chunktui SQLite export"),
        ((db, "?! --"), "QUERY: no words to search for"),
    ]:
        code, out, err = run("search", *args)
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith("chunktui: error: ") and problem in err
    code, out, _ = run("search", db, "xylophone")
    assert code == 0 and out == "no chunk holds a word of 'xylophone'\n"


def check(db: Path) -> str | None:
    """What the export's verification says of the export folder holding `db`."""
    count = len(json.loads((db.parent / "manifest.json").read_text())["chunks"])
    return verify_export(db.parent, "sqlite", ["chunks.db"] * count)


def test_read_back_finds_a_changed_text(tmp_path):
    db = export(tmp_path, GUIDE, "-s", "recursive", "--size", "400", "--overlap", "0")
    assert check(db) is None
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE chunks SET text = text || ' ' WHERE rowid = 3")
    con.close()
    assert check(db) == "chunk-0003 in chunks.db does not match its sha256"


def test_read_back_refuses_a_full_text_index_out_of_step(tmp_path):
    """An embedded text changed without its index entry (as a writer that skips the FTS
    'rebuild' leaves it): a search would find the old words. SQLite's own integrity_check and a
    row count of the FTS table (which reads the chunks table) both pass it; FTS5's check does not."""
    db = export(tmp_path, GUIDE, "-s", "recursive", "--size", "400", "--overlap", "0")
    con = sqlite3.connect(db)
    with con:
        con.execute("UPDATE chunks SET embed_text = 'rollback canary deploy' WHERE rowid = 2")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == len(rows(db, "SELECT id FROM chunks"))
    con.close()
    assert check(db).startswith("chunks.db cannot be read back (the full-text index does not match the chunks (")


def test_read_back_refuses_a_damaged_full_text_index(tmp_path):
    db = export(tmp_path, GUIDE, "-s", "recursive", "--size", "400", "--overlap", "0")
    con = sqlite3.connect(db)
    with con:
        con.execute("DELETE FROM chunks_fts_data WHERE id > 10")  # the index's segments, its averages kept
    con.close()
    assert check(db).startswith("chunks.db cannot be read back (the full-text index does not match the chunks (")
