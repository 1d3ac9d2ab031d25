"""Every registered strategy keeps the promises users rely on, on any text and any params.

Parametrized over `all_strategies()`, so a strategy added later is held to the
same invariants without touching this file: exact offsets, order, no silent
gaps, sizes within the declared limit (or flagged oversized), byte offsets into the
file as it is on disk (its BOM and encoding counted), and exact token counts. Strategies whose overlap has a
precise meaning also get their overlap contract checked.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, all_strategies, chunk_document, load_document
from chunktui.engine.core.errors import ChunkingError, DocumentError, ParamError
from support.invariants import FRAGMENTS, check_invariants, long_run_texts

SAMPLES = sorted(p for p in (Path(__file__).resolve().parent.parent / "sample_docs").iterdir() if p.is_file())
STRATEGIES = all_strategies()
SMALL = 48  # sizes stay small so every example yields many chunks and many boundaries

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

texts = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=400),
    st.lists(st.sampled_from(FRAGMENTS), max_size=120).map("".join),
    st.builds(
        lambda word, n: word * n, st.sampled_from(["x", "lorem ipsum ", "é🎉", "\t"]), st.integers(200, 1500)
    ),  # one huge line
    long_run_texts,
    st.just(""),
)
STR_CHOICES = ["", "\\n", ". ", "\\n.?", " ", "\\t,", ";"]


def param_values(strategy, least_size=0):
    """A draw for every Param, kept small; invalid combinations are skipped by the caller."""
    fields = {}
    for p in strategy.params:
        if p.type == "int":
            lo = int(p.min) if p.min is not None else 0
            if p.name == strategy.size_param:
                lo = max(lo, least_size)
            hi = lo + SMALL if p.max is None else min(int(p.max), lo + SMALL)
            fields[p.name] = st.integers(lo, hi)
        elif p.type == "float":
            lo = p.min if p.min is not None else 0.0
            hi = lo + 4.0 if p.max is None else min(p.max, lo + 4.0)
            fields[p.name] = st.floats(lo, hi, allow_nan=False)
        elif p.type == "bool":
            fields[p.name] = st.booleans()
        elif p.type == "choice":
            fields[p.name] = st.sampled_from(p.choices)
        else:
            fields[p.name] = st.sampled_from([p.default] + STR_CHOICES)
    return st.fixed_dictionaries(fields)


REFUSED = "refused"  # a format strategy turned down text not of its kind, as it may


def run(doc, strategy, raw, *, generated):
    """Chunk; None when the params are invalid, REFUSED when the strategy may refuse this text."""
    try:
        strategy.validate(raw)
    except ParamError:
        return None
    try:
        return chunk_document(doc, strategy.name, raw, tokenizer="cl100k_base")
    except ChunkingError:
        if strategy.kinds and (generated or doc.kind not in strategy.kinds):
            return REFUSED
        raise


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@SETTINGS
@given(data=st.data(), text=texts)
def test_invariants_on_generated_text(strategy, data, text):
    raw = data.draw(param_values(strategy))
    cs = run(Document.from_text(text), strategy, raw, generated=True)
    assume(cs is not None)
    if cs is not REFUSED:
        check_invariants(cs)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
@settings(SETTINGS, max_examples=3)
@given(data=st.data())
def test_invariants_on_sample_docs(strategy, path, data):
    raw = data.draw(param_values(strategy, least_size=16))
    cs = run(load_document(path), strategy, raw, generated=False)
    assume(cs is not None)
    if cs is not REFUSED:
        check_invariants(cs)


FILE_ENCODINGS = [
    ("utf-8", b""),
    ("utf-8", codecs.BOM_UTF8),
    ("utf-16-le", codecs.BOM_UTF16_LE),
    ("utf-16-be", codecs.BOM_UTF16_BE),
    ("utf-32-be", codecs.BOM_UTF32_BE),
    ("latin-1", b""),
]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@settings(SETTINGS, max_examples=15)
@given(data=st.data(), text=texts, layout=st.sampled_from(FILE_ENCODINGS))
def test_byte_offsets_index_files_in_any_encoding(strategy, data, text, layout, tmp_path_factory):
    """Generated text written as a file (BOM or not, UTF-8/16/32, Latin-1 where it fits), read
    back: every chunk's start_byte/end_byte index the file's own bytes."""
    codec, bom = layout
    try:
        body = text.encode(codec)
    except UnicodeEncodeError:
        body = text.encode("utf-8")  # beyond Latin-1: the file is UTF-8
    path = tmp_path_factory.mktemp("enc") / "doc.txt"
    path.write_bytes(bom + body)
    try:
        doc = load_document(path)
    except DocumentError:
        assume(False)  # NUL bytes without a BOM read as binary, as they should
    raw = data.draw(param_values(strategy))
    cs = run(doc, strategy, raw, generated=True)
    assume(cs is not None)
    if cs is not REFUSED:
        check_invariants(cs)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_defaults_on_sample_docs(strategy, path):
    """Out of the box every strategy chunks every sample of its kind without a gap it hides."""
    doc = load_document(path)
    cs = run(doc, strategy, {}, generated=False)
    assert cs is not None, "the defaults must be valid"
    if cs is REFUSED:
        return
    check_invariants(cs)
    assert cs.chunks or not doc.text
