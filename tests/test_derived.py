"""Re-chunking one Document with new parameters reuses its scans and gives what a fresh document gives."""

from pathlib import Path

import pytest

from chunktui.engine import Document, chunk_document, load_document

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"

SWEEP = {
    "markdown": [
        dict(min_char=1024, max_char=2048, chunk_overlap=128),
        dict(min_char=64, max_char=300, chunk_overlap=16),
    ],
    "semantic": [dict(size=40, overlap=4), dict(size=8, overlap=1)],
    "adaptive": [dict(size=40, overlap=4), dict(size=8, overlap=0)],
}


def shape(cs):
    return [(c.start, c.end, c.boundary_type, c.boundary_label, dict(c.metadata)) for c in cs.chunks]


@pytest.mark.parametrize("strategy", sorted(SWEEP))
@pytest.mark.parametrize("name", ["guide.md", "notes.md"])
def test_rechunk_with_new_params_matches_a_fresh_document(strategy, name):
    doc = load_document(SAMPLES / name)
    for other in SWEEP:  # every strategy first, so scans shared between them are cached too
        chunk_document(doc, other, SWEEP[other][0])
    for params in SWEEP[strategy]:
        fresh = load_document(SAMPLES / name)
        assert shape(chunk_document(doc, strategy, params)) == shape(chunk_document(fresh, strategy, params))


def _rechunked_after(doc: Document, text: str, kind: str, language: str | None):
    chunk_document(doc, "semantic", dict(size=1, overlap=0))
    doc.text, doc.kind, doc.language = text, kind, language
    doc.__post_init__()  # line index for the new text
    fresh = Document(text=text, kind=kind, language=language)
    return (
        shape(chunk_document(doc, "semantic", dict(size=1, overlap=0))),
        shape(chunk_document(fresh, "semantic", dict(size=1, overlap=0))),
    )


def test_replaced_text_is_scanned_again():
    doc = Document(text="# One\n\nalpha\n", kind="markdown")
    again, fresh = _rechunked_after(doc, "intro\n\n# Two\n\nbeta\n\n## Three\n", "markdown", None)
    assert again == fresh


def test_changed_kind_is_classified_again():
    text = "# heading or comment\nx = 1\n\ndef f():\n    pass\n"
    again, fresh = _rechunked_after(Document(text=text, kind="markdown"), text, "code", "python")
    assert again == fresh
