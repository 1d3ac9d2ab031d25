"""Long runs without spaces (one letter repeated, DNA, CJK without punctuation, digits, base64, one
huge random word) are chunked in time linear in their length, with exact token counts.

The token index's anchor search once read the rest of a letter run at every position of it, so a
run with no anchor in it cost its length squared per search: 30 KB of `a` took 29 s with the default
strategy, 50 KB over 300 s, 80 KB of DNA 87 s.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, chunk_document
from chunktui.engine.core import token_index
from chunktui.engine.core.token_index import TokenIndex
from chunktui.engine.core.tokens import get_encoding
from support.long_runs import KINDS, RecordingEncoding, long_run

ROOT = Path(__file__).resolve().parent.parent
ENCODINGS = ("cl100k_base", "o200k_base")


def test_150_kb_runs_are_chunked_well_inside_a_generous_bound():
    """Not a timing test: a bound far from both codes. The child chunks 150 KB of each kind of run
    with the default strategy and token-sized `fixed` and `recursive`: 4.3 s of CPU here (6.2 s at
    200 KB). The quadratic anchor search of 844e063 read 2.5 ns x the searched length squared
    (measured from 4 to 24 KB of `a`) and took 67 s of CPU for 66 KB of `a` alone; the searches
    this child makes add up to 1,150 s at that rate (230 s for `a` with the default strategy, as
    much for DNA, a huge word, CJK and digits each), 47 s predicted at 66 KB against the 67 s
    measured. So 300 s is reached only by a machine many times busier than this one for the linear
    code, and by the quadratic one during its second input."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from support.long_runs import KINDS, long_run
        from chunktui.engine import Document, chunk_document
        for kind in KINDS:
            doc = Document.from_text(long_run(kind, 150_000), path="run.txt")
            for strategy, params in (("auto", None), ("fixed", {{"unit": "tokens", "size": 512}}),
                                     ("recursive", {{"unit": "tokens", "size": 512, "overlap": 50}})):
                chunk_document(doc, strategy, params)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_every_chunk_of_a_long_run_has_its_exact_token_count(kind):
    """The default strategy cuts a 70 KB run (past the size where counts go through the token
    index) into chunks whose counts are direct encodings of their text."""
    doc = Document.from_text(long_run(kind, 70_000), path="run.txt")
    cs = chunk_document(doc, "auto", None)
    encode = get_encoding("cl100k_base").encode_ordinary
    assert "".join(c.text for c in cs.chunks) == doc.text
    assert [c.tokens for c in cs.chunks] == [len(encode(c.text)) for c in cs.chunks]


@pytest.mark.parametrize("name", ENCODINGS)
def test_token_windows_over_cjk_take_a_few_exact_counts_each(monkeypatch, name):
    """`fixed` in tokens looks for each window's end (and its overlap's start) from where the whole
    text's tokens reach the size. It started `size` cuts away, which over CJK (two or three tokens
    end in most characters, so a cut is 2.4 tokens) is more than twice the window, and walked back
    one exact count a cut: about 300 counts a chunk at 512 tokens, 35 s for 200 KB. Now about 5;
    counted, not timed. Over ASCII runs it was and is about 3."""
    calls = []
    count = TokenIndex.count
    monkeypatch.setattr(TokenIndex, "count", lambda index, s, e: calls.append(s) or count(index, s, e))
    token_index.clear_cache()
    doc = Document.from_text(long_run("cjk", 70_000), path="run.txt")
    cs = chunk_document(doc, "fixed", {"unit": "tokens", "size": 512, "overlap": 50}, tokenizer=name)
    assert len(calls) < 10 * len(cs.chunks)
    assert [c.tokens for c in cs.chunks] == [len(get_encoding(name).encode_ordinary(c.text)) for c in cs.chunks]


run_texts = st.lists(
    st.one_of(
        st.builds(long_run, st.sampled_from(KINDS), st.integers(1, 3000)),
        st.sampled_from([" ", "\n", ".", ", ", "\n\n", "'s", "é", "日本", "。", "  x"]),
    ),
    min_size=1,
    max_size=6,
).map("".join)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=run_texts, data=st.data())
def test_spans_in_and_across_long_runs_match_direct_encoding(name, text, data):
    """Spans that start, end or lie inside a run with no anchor in it count as tiktoken does."""
    encoding = get_encoding(name)
    index = TokenIndex(text, name, encoding)
    points = st.integers(min_value=0, max_value=len(text))
    spans = [tuple(sorted((data.draw(points), data.draw(points)))) for _ in range(12)]
    want = [len(encoding.encode_ordinary(text[a:b])) for a, b in spans]
    assert index.count_spans(spans) == want
    assert [index.count(a, b) for a, b in spans] == want


# Runs of one punctuation character, of whitespace and of line feeds: tiktoken reads each as one
# piece however long (digits are pieces of three, which it encodes in linear time)
ONE_PIECE_RUNS = {
    "=": "=",
    "-": "-",
    ".": ".",
    "*": "*",
    "#": "#",
    "spaces and line feeds": " \n",
    "line feeds": "\n",
    "spaces": " ",
}
# every strategy that takes plain text, in tokens where it counts in a unit, and the file name that
# gives each what it reads. `auto` runs the strategy it picks with its defaults, and the ChunkSet
# names it: its runs of prose on run.txt and run.md and of log on run.log are those strategies'
# runs on those files (the test checks that it picked them), not repeated by name (prose on
# run.txt again was a third of each run's CPU)
AUTO_PICKS = {"run.txt": "prose", "run.md": "prose", "run.log": "log"}
PLAIN_TEXT = (
    ("auto", "run.txt", None),
    ("auto", "run.md", None),
    ("auto", "run.log", None),
    ("adaptive", "run.txt", None),
    ("data", "run.txt", None),
    ("data-rows", "run.txt", None),
    ("fixed", "run.txt", {"unit": "tokens", "size": 512, "overlap": 50}),
    ("lines", "run.txt", None),
    ("log-records", "run.log", {"unit": "tokens"}),
    ("markdown", "run.md", None),
    ("recursive", "run.txt", {"unit": "tokens", "size": 512, "overlap": 50}),
    ("semantic", "run.txt", None),
    # at its default (min_chars 0) `split` makes a run of delimiters one chunk per character, 139,264
    # chunks of one token (2 s to build, for nothing a longer chunk does not test): segments of 1,000
    ("split", "run.txt", {"min_chars": 1000}),
)


@pytest.mark.parametrize("run", ONE_PIECE_RUNS)
def test_no_strategy_hands_tiktoken_a_huge_piece_whole(monkeypatch, run):
    """Not timed: the work is read from what tiktoken is asked. tiktoken's BPE of one piece grows
    faster than the piece (1 MB of DNA: 460 ns a byte, 130 at 16 KB), so no strategy may hand it a
    long run in one call. Before, the token index encoded the whole text at once; now
    a piece of LONG_PIECE bytes or more is encoded in windows (long_pieces.py). The runs are 8 KB
    past that size; the index is built once per run and kept, as a re-chunk would."""
    from chunktui.engine.core import long_pieces, tokens

    fake = RecordingEncoding(get_encoding("cl100k_base"))
    monkeypatch.setattr(tokens, "get_encoding", lambda _name: fake)
    monkeypatch.setattr(long_pieces, "_encoders", {})
    text = ONE_PIECE_RUNS[run] * ((long_pieces.LONG_PIECE + 8192) // len(ONE_PIECE_RUNS[run]))
    token_index.clear_cache()
    for strategy, path, params in PLAIN_TEXT:
        cs = chunk_document(Document.from_text(text, path=path), strategy, params)
        assert fake._core_bpe.longest < long_pieces.LONG_PIECE, (strategy, path)
        assert strategy != "auto" or cs.strategy == AUTO_PICKS[path], (path, cs.strategy)
    token_index.clear_cache()
