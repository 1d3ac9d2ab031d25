"""Fuzzing: random bytes through every loader, random params and text through every strategy.

Every outcome is a result that keeps the offset invariant or a ChunktuiError, never
another exception. `make test` runs a small bounded profile; `make fuzz` sets
CHUNKTUI_FUZZ=1 for the long one (many more examples, fresh randomness each run).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, all_strategies, chunk_document, load_document
from chunktui.engine.core.errors import ChunktuiError
from support.invariants import FRAGMENTS, check_invariants, long_run_texts

_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile(
    "chunktui-test", max_examples=8, deadline=None, derandomize=True, suppress_health_check=_HEALTH
)
settings.register_profile("chunktui-fuzz", max_examples=400, deadline=None, suppress_health_check=_HEALTH)
SETTINGS = settings.get_profile("chunktui-fuzz" if os.environ.get("CHUNKTUI_FUZZ") else "chunktui-test")

EXTENSIONS = [".md", ".txt", ".py", ".ts", ".log", ".jsonl", ".csv", ".tsv", ".vtt", ".srt", ".mbox", ".eml", ".yaml"]
# Starts that get random bytes past each format's sniffing, so parsers see broken versions of their own input.
HEADS = [
    b"",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"WEBVTT\n\n",
    b"1\n00:00:01,000 --> 00:00:0",
    b"From a@b Mon Jan 1\n",
    b"Subject: =?utf-8?B?",
    b"Content-Type: text/plain; charset=bogus\n\n",
    b'{"ts": ',
    b'a,b\n1,"2\n',
    b"# T\n## U\n",
    b"def f(:\n",
    b"schema: 1\nchunks:\n  - !!python/object:os.system\n",
    b"\x89PNG\r\n\x1a\n",
]
raw_bytes = st.one_of(
    st.builds(lambda head, tail: head + tail, st.sampled_from(HEADS), st.binary(max_size=600)),
    st.text(max_size=300).map(lambda t: t.encode("utf-16")),
    st.lists(st.sampled_from(FRAGMENTS), max_size=60).map(lambda xs: "".join(xs).encode("utf-8")),
)
texts = st.one_of(
    st.text(max_size=400),  # surrogates included: a Document from text may hold anything a str can
    st.lists(st.sampled_from(FRAGMENTS), max_size=120).map("".join),
    long_run_texts,
)


def param_draw(p):
    """Any value the spec allows (small, anywhere in range, at the limits) and, now and then, one it refuses."""
    if p.type == "int":
        lo = int(p.min) if p.min is not None else -5
        hi = int(p.max) if p.max is not None else lo + 10**6
        return st.one_of(
            st.integers(lo, min(hi, lo + 64)),
            st.integers(lo, hi),
            st.sampled_from([lo, hi]),
            st.sampled_from([lo - 1, hi + 1, None]),
        )
    if p.type == "float":
        lo = p.min if p.min is not None else -5.0
        hi = p.max if p.max is not None else lo + 1e6
        return st.one_of(st.floats(lo, hi, allow_nan=False), st.sampled_from([lo - 0.5, hi + 0.5, float("nan")]))
    if p.type == "bool":
        return st.booleans()
    if p.type == "choice":
        return st.one_of(st.sampled_from(p.choices), st.just("no-such-choice"))
    return st.one_of(
        st.just(p.default), st.sampled_from(["", "\\n", ". ", "\\", "\\x", "\\u12", "(", ";;"]), st.text(max_size=6)
    )


def params_for(strategy):
    return st.fixed_dictionaries({}, optional={p.name: param_draw(p) for p in strategy.params})


def chunk_or_refuse(doc, name, params):
    """The chunk set, or None when the engine refused with a ChunktuiError (any other exception fails)."""
    try:
        return chunk_document(doc, name, params)
    except ChunktuiError as exc:
        assert str(exc).strip(), "an error a user reads must say something"
        return None


@pytest.mark.parametrize("ext", EXTENSIONS)
@SETTINGS
@given(data=raw_bytes)
def test_loaders_take_any_bytes(ext, data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzzed{ext}"
        path.write_bytes(data)
        try:
            doc = load_document(path)
        except ChunktuiError as exc:
            assert str(path) in str(exc) or path.name in str(exc)
            return
        assert isinstance(doc.text, str)
        cs = chunk_or_refuse(doc, "auto", {})
        if cs is not None:
            assert all(doc.text[c.start : c.end] == c.text for c in cs.chunks)


@pytest.mark.parametrize("strategy", all_strategies(), ids=lambda s: s.name)
@SETTINGS
@given(data=st.data(), text=texts)
def test_strategies_take_any_params_and_text(strategy, data, text):
    params = data.draw(params_for(strategy))
    cs = chunk_or_refuse(Document.from_text(text), strategy.name, params)
    if cs is not None:
        check_invariants(cs)


# Cases the long fuzz run found, kept so `make test` holds them fixed.
FOUND = [
    ("data-rows", "\n", {}),  # blank lines only: no rows, and the gap left undeclared
]


@pytest.mark.parametrize("name,text,params", FOUND, ids=[f"{n}-{t!r}" for n, t, _ in FOUND])
def test_cases_fuzzing_found(name, text, params):
    cs = chunk_or_refuse(Document.from_text(text), name, params)
    if cs is not None:
        check_invariants(cs)
