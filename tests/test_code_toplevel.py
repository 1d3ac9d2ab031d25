"""`code-toplevel`: one chunk per top-level definition, preamble with the first (autowiki)."""

from pathlib import Path

import pytest

from chunktui.engine import chunk_document, load_document
from chunktui.engine.code.chunker import CodeChunker
from chunktui.engine.strategies import Context

ROOT = Path(__file__).parent.parent


def test_python_preamble_stays_with_first_definition():
    doc = load_document(ROOT / "sample_docs/inventory.py")
    cs = chunk_document(doc, "code-toplevel", {})
    first = cs.chunks[0].text
    assert first.startswith('"""Inventory management') and "from typing import" in first
    assert "SUPPORTED_WAREHOUSES = (" in first and "class InventoryError" in first
    tops = [e for e in CodeChunker(doc, {}, Context()).defs if e.parent is None]
    assert len(cs.chunks) == len(tops)
    for c, ent in zip(cs.chunks[1:], tops[1:]):
        assert c.start == doc.line_start(doc.line_of(ent.extent_start))  # decorators and comments included
        assert c.metadata["scope_chain"] == [ent.name]
    assert "".join(c.text for c in cs.chunks) == doc.text


@pytest.mark.parametrize(
    "path,expected",
    [
        ("tests/code_samples/cart.js", ["checkout", "emptyCart"]),  # the preamble joins Cart
        ("tests/code_samples/server.go", ["Server", "NewServer", "HandleGet", "Name"]),
        ("tests/code_samples/shapes.rs", ["Circle", "Shape for Circle", "Display for Circle", "Kind", "summarize"]),
    ],
)
def test_one_chunk_per_top_level_definition(path, expected):
    doc = load_document(ROOT / path)
    cs = chunk_document(doc, "code-toplevel", {"context_mode": "none"})
    assert "".join(c.text for c in cs.chunks) == doc.text
    starts = [c.metadata["entities"][0]["name"] for c in cs.chunks[1:]]
    assert starts == expected
    assert all(c.overlap_prev_chars == 0 for c in cs.chunks)
