"""The Python API (`chunktui.code`) and the `brain` export format."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import chunktui
from chunktui.code import BatchResult, Chunker, ChunkingError, UnsupportedLanguageError, chunk, chunk_batch
from chunktui.engine import Document, chunk_document, load_document
from chunktui.engine.core.errors import ParamError
from chunktui.formats.brain import note_name
from chunktui.formats.export import export_chunkset
from support.cli import run

ROOT = Path(__file__).parent.parent
INVENTORY = (ROOT / "sample_docs/inventory.py").read_text()


def test_chunk_returns_chunks_with_offsets_and_context():
    chunks = chunk("src/inventory.py", INVENTORY, max_chunk_size=800, overlap_lines=0)
    assert len(chunks) > 3
    assert "".join(c.text for c in chunks) == INVENTORY
    assert all(INVENTORY[c.start : c.end] == c.text for c in chunks)
    assert all(c.context_text.startswith("# src/inventory.py\n") for c in chunks)


def test_errors_are_chunking_errors():
    assert issubclass(UnsupportedLanguageError, ChunkingError)
    with pytest.raises(UnsupportedLanguageError, match="'.txt'"):
        chunk("notes.txt", "hello")
    with pytest.raises(ParamError, match="max_chunk_size"):
        Chunker(max_chunk_size="big")
    with pytest.raises(ParamError, match="not a parameter"):
        Chunker(maxChunkSize=10)


@pytest.mark.parametrize("strategy", ["markdown", "recursive", "auto"])
def test_a_strategy_not_made_for_code_is_refused(strategy):
    # before: Chunker("markdown") cut textwrap.py at its '#' comment lines into header_path chunks
    with pytest.raises(ParamError, match="not a strategy for code alone"):
        Chunker(strategy)


def test_the_code_api_is_the_generic_api_on_a_code_document():
    path = Path(textwrap.__file__)
    source = path.read_text()
    ours = chunk(path, source, max_chunk_size=800)
    generic = chunktui.chunk(
        Document(text=source, path=str(path), kind="code", language="python"), "code", max_chunk_size=800
    ).chunks
    assert type(ours[0]) is chunktui.Chunk
    assert [c.to_dict() for c in ours] == [c.to_dict() for c in generic]


def test_reusable_chunker_and_toplevel_strategy():
    ck = Chunker(strategy="code-toplevel", context_mode="none")
    first = ck.chunk("a.py", INVENTORY)
    assert ck.chunk("b.py", INVENTORY)[0].text == first[0].text
    assert all(c.context_text is None for c in first)


def test_batch_keeps_going_past_failing_files(tmp_path):
    on_disk = tmp_path / "cart.js"
    on_disk.write_text((ROOT / "tests/code_samples/cart.js").read_text())
    seen = []
    results = chunk_batch(
        [str(on_disk), ("notes.md", "# hi"), {"filepath": "x.rs", "code": "fn main() {}\n"}, str(tmp_path / "gone.py")],
        concurrency=3,
        on_progress=lambda done, total, path, ok: seen.append((done, total, ok)),
        max_chunk_size=400,
    )
    assert [r.path for r in results] == [str(on_disk), "notes.md", "x.rs", str(tmp_path / "gone.py")]
    assert results[0].ok and len(results[0].chunks) > 1
    assert isinstance(results[1].error, UnsupportedLanguageError) and results[1].chunks == []
    assert results[2].ok and results[2].chunks[0].metadata["entities"][0]["name"] == "main"
    assert not results[3].ok and "gone.py" in str(results[3].error)
    assert sorted(d for d, _, _ in seen) == [1, 2, 3, 4] and all(t == 4 for _, t, _ in seen)
    assert all(isinstance(r, BatchResult) for r in results)


def test_brain_export_one_note_per_chunk(tmp_path):
    repo = tmp_path / "my-project"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    src = repo / "src" / "user.ts"
    src.write_text((ROOT / "sample_docs/auth_middleware.ts").read_text())
    cs = chunk_document(load_document(src), "code", {"max_chunk_size": 1200})
    result = export_chunkset(cs, tmp_path / "out", fmt="brain")
    notes = sorted(p.name for p in result.out_dir.glob("*.md"))
    assert notes == sorted(f"code-my-project-src-user-ts-chunk-{i}.md" for i in range(len(cs.chunks)))
    for c in cs.chunks:
        body = (result.out_dir / f"code-my-project-src-user-ts-chunk-{c.index}.md").read_text()
        assert "<!-- repo: my-project -->" in body and "<!-- path: src/user.ts -->" in body
        assert f"<!-- scope_chain: {__import__('json').dumps(list(c.metadata['scope_chain']))} -->" in body
        fences = re.findall(r"^(`{3,})typescript\n(.*?)^\1$", body, re.S | re.M)
        assert [f[1] for f in fences] == [c.context_text, c.text]
        comments = re.findall(r"<!--(.*?)-->", body, re.S)
        assert all("--" not in x for x in comments)
    assert (result.out_dir / "manifest.json").is_file()


def test_brain_repo_falls_back_to_folder_name(tmp_path):
    f = tmp_path / "tools" / "deploy.sh"
    f.parent.mkdir()
    f.write_text("echo hi\n")
    assert note_name(f, 2) == "code-tools-deploy-sh-chunk-2.md"


def test_cli_unsupported_language_exits_2(tmp_path):
    """The command in this process: its message is what is checked, not the installed script."""
    f = tmp_path / "a.md"
    f.write_text("# hi\n")
    code, _, err = run("chunk", f, "--strategy", "code", "--output", tmp_path / "o")
    assert code == 2 and "no code grammar" in err and "Traceback" not in err
    assert "--language (python, javascript," in err and ".hxx" not in err  # languages, not 25 extensions


_LINES = st.sampled_from(
    [
        "def f(a):\n",
        "    return a\n",
        "class K:\n",
        "    def m(self):\n",
        "        x = [1,\n",
        "             2]\n",
        "        if x:\n",
        "            pass\n",
        "\n",
        "# note\n",
        "import os\n",
        "  )(\n",
        "    '''doc\n",
        "'''\n",
        "    é = 'ü✓'\n",
        "x = 1; y = 2\n",
    ]
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINES, max_size=40),
    limit=st.integers(20, 400),
    overlap=st.integers(0, 4),
    unit=st.sampled_from(["bytes", "chars"]),
)
def test_any_python_ish_text_is_covered_exactly(lines, limit, overlap, unit):
    text = "".join(lines)
    doc = Document.from_text(text, path="gen.py")
    cs = chunk_document(doc, "code", {"max_chunk_size": limit, "overlap_lines": overlap, "unit": unit})
    pos = 0
    for c in cs.chunks:
        assert text[c.start : c.end] == c.text and c.start <= pos
        size = len(c.text.encode()) if unit == "bytes" else len(c.text)
        assert size <= limit or c.metadata.get("oversized")
        pos = max(pos, c.end)
    assert pos == len(text) and cs.gaps == []


def test_returned_chunks_do_not_keep_the_parse_alive():
    """A batch keeps every file's chunks: each must cost about its own text and metadata, not the
    file's syntax tree and entity tables (the chunks refer to their Document for derived fields)."""
    import argparse
    import gc
    import tracemalloc

    source = Path(argparse.__file__).read_text(encoding="utf-8")
    chunk("warm.py", "import os\n\ndef f():\n    return os\n")  # grammar and tokenizer loaded outside the count
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        chunks = chunk("argparse.py", source)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert chunks and kept < 12 * len(source)
