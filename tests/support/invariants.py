"""The invariants every chunk set keeps (offsets, lines, bytes, tokens, gaps, sizes, overlap
contracts), checked by the property, fuzz and hostile-input tests; and the text fragments and
long runs their generated inputs are made of."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from hypothesis import strategies as st

from chunktui.engine import get_strategy
from chunktui.engine.strategies._delimiters import decode_delimiters
from chunktui.engine.core.tokens import get_counter, get_encoding

ENC = get_encoding("cl100k_base")
LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # what breaks a row of the app's table or gutter

FRAGMENTS = [
    "word",
    "the",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    ".",
    "?",
    "!",
    ",",
    "é",
    "e\u0301",
    "ñ",
    "🎉",
    "👩\u200d👩\u200d👧",
    "日本語",
    "。",
    "\u00a0",
    "# Title\n",
    "## Sub\n",
    "```\ncode\n```\n",
    "def f(x):\n    return x\n",
    "class A:\n    pass\n",
    "- item\n",
    "| a | b |\n",
    '{"k": 1}\n',
    "2024-01-01 12:00:00 ERROR boom\n",
    'a,b,"c\nd"\n',
    "00:00:01.000 --> 00:00:02.000\n",
]
# Long runs without spaces (one letter repeated, DNA, digits, CJK without punctuation, base64):
# no word, sentence or token-index anchor inside them, and tiktoken reads each as one piece
LONG_RUNS = st.one_of(
    st.builds(
        lambda unit, n: unit * n, st.sampled_from(["a", "ACGT", "7", "日本語", "QUJDRA+/"]), st.integers(40, 800)
    ),
    st.text(st.sampled_from("ACGTacgt0123456789XYZ+/="), min_size=100, max_size=1500),
    st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=100, max_size=1500),
)
long_run_texts = st.lists(st.one_of(LONG_RUNS, st.sampled_from(FRAGMENTS)), min_size=1, max_size=6).map("".join)


def measure(unit, text):
    if unit == "tokens":
        return len(ENC.encode_ordinary(text))
    return get_counter(unit).count(text)


def check_invariants(cs):
    text = cs.document.text
    chunks = cs.chunks
    strategy = get_strategy(cs.strategy)  # `auto` reports the strategy it delegated to
    values = cs.params
    assert [(c.start, c.end) for c in chunks] == sorted((c.start, c.end) for c in chunks)
    check_file_bytes(cs, file_bytes(cs.document))
    pos, lines = 0, 1  # walked forward with the chunk starts, so checks stay linear
    for i, c in enumerate(chunks):
        assert c.index == i and c.id == f"chunk-{i + 1:04d}"
        assert 0 <= c.start < c.end <= len(text)
        assert c.text == text[c.start : c.end]
        lines += text.count("\n", pos, c.start)
        pos = c.start
        assert c.start_line == lines
        assert c.end_line == lines + c.text.count("\n", 0, c.chars - 1)
        assert c.tokens == len(ENC.encode_ordinary(c.text))
        # what is embedded (run without a header): the context text where there is one, counted exactly
        assert c.embed_text == (c.context_text or c.text)
        assert c.embed_tokens == (c.tokens if c.embed_text == c.text else len(ENC.encode_ordinary(c.embed_text)))
        assert c.sha256 == hashlib.sha256(c.text.encode("utf-8")).hexdigest()
        assert not LINE_BREAKING.search(c.boundary_label), c.boundary_label  # a label is drawn on one row
        ov_prev = max(0, min(chunks[i - 1].end, c.end) - c.start) if i else 0
        ov_next = max(0, c.end - chunks[i + 1].start) if i + 1 < len(chunks) else 0
        assert (c.overlap_prev_chars, c.overlap_next_chars) == (ov_prev, ov_next)
        assert c.overlap_prev_lines == (text.count("\n", c.start, c.start + ov_prev - 1) + 1 if ov_prev else 0)
        assert c.overlap_next_lines == (text.count("\n", c.end - ov_next, c.end - 1) + 1 if ov_next else 0)

    # gaps are exactly the text no chunk covers, and a covering strategy declares each one
    uncovered, pos = [], 0
    for c in chunks:
        if c.start > pos:
            uncovered.append((pos, c.start))
        pos = max(pos, c.end)
    if pos < len(text):
        uncovered.append((pos, len(text)))
    merged = []
    for g in cs.gaps:
        if merged and merged[-1][1] == g.start:
            merged[-1] = (merged[-1][0], g.end)
        else:
            merged.append((g.start, g.end))
    assert merged == uncovered
    if strategy.covering:
        assert all(g.reason != "uncovered" for g in cs.gaps), cs.gaps

    if strategy.max_size is not None:
        unit, limit = strategy.max_size(values)
        for c in chunks:
            over = measure(unit, c.text) > limit
            assert bool(c.metadata.get("oversized")) == over, (c, unit, limit)

    name = strategy.overlap_param
    if name and values.get(name) == 0:
        flat = [c for c in chunks if "parent_chunk_id" not in c.metadata and "child_chunk_ids" not in c.metadata]
        assert all(b.start >= a.end for a, b in zip(flat, flat[1:]))

    # each chunk's metadata is its own: no list or dict in it is another chunk's too, so a caller
    # changing one chunk's metadata changes no other
    owner: dict[int, int] = {}
    for c in chunks:
        for value in held_containers(c.metadata):
            assert owner.setdefault(id(value), c.index) == c.index, (c.index, owner[id(value)], value)

    contract = CONTRACTS.get(strategy.name)
    if contract is not None:
        contract(cs, values)


def file_bytes(doc) -> bytes:
    """The bytes of the file `doc` was loaded from (its hash tells), else its text's UTF-8 (a
    text from no file, whose offsets are UTF-8's)."""
    if doc.path and Path(doc.path).is_file():
        data = Path(doc.path).read_bytes()
        if hashlib.sha256(data).hexdigest() == doc.sha256:
            return data
    return doc.text.encode("utf-8", "surrogatepass")


def check_file_bytes(cs, data: bytes):
    """Each chunk's bytes in the file, decoded with the encoding the manifest names, are its
    text, and so are the bytes from one chunk's start to the next's (linear: each byte once or
    twice); before the first chunk lies at most the file's BOM and the text before it."""
    text, chunks, encoding = cs.document.text, cs.chunks, cs.document.encoding
    for c in chunks:
        assert data[c.start_byte : c.end_byte].decode(encoding) == c.text
    if chunks:
        head = data[: chunks[0].start_byte].decode(encoding)
        if encoding not in ("utf-8", "latin-1"):  # a BOM the text does not hold
            head = head.removeprefix("\ufeff")
        assert head == text[: chunks[0].start]
    for a, b in zip(chunks, chunks[1:]):
        assert data[a.start_byte : b.start_byte].decode(encoding) == text[a.start : b.start]


def held_containers(value):
    """The lists and dicts inside a metadata value (the read-only mapping itself excluded)."""
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, list) else ()
    for item in items:
        if isinstance(item, (list, dict)):
            yield item
        yield from held_containers(item)


def fixed_contract(cs, p):
    """Windows fill up to `size` unless cut at the last delimiter; overlap is as close to
    `overlap` as character (or token) boundaries allow; an oversized chunk is one character."""
    text, chunks, unit, size = cs.document.text, cs.chunks, p["unit"], p["size"]
    delims = decode_delimiters("delimiters", p["delimiters"])
    for c in chunks:
        if c.metadata.get("oversized"):
            assert c.end - c.start == 1
    for k, (a, b) in enumerate(zip(chunks, chunks[1:])):
        assert b.start > a.start and b.end > a.end
        ov = measure(unit, text[b.start : a.end]) if b.start < a.end else 0
        assert ov <= p["overlap"]
        if unit != "tokens" and ov < p["overlap"] and not b.metadata.get("oversized"):
            # one more character of overlap would not fit the overlap, the chunk, or progress
            s = b.start - 1
            assert (
                s <= a.start or measure(unit, text[s : a.end]) > p["overlap"] or measure(unit, text[s : b.end]) > size
            )
        prev_end = chunks[k - 1].end if k else 0
        lo = max(a.start, prev_end)
        if b.boundary_type == "delimiter":
            assert (text[a.end] if p["prefix"] else text[a.end - 1]) in delims
        else:
            assert b.boundary_type == "size"
            shift = 0 if p["prefix"] else 1
            for q in range(lo + 1 - shift, a.end + 1 - shift):
                if text[q] in delims:  # an unused delimiter: only if cutting there is too big in tokens
                    assert unit == "tokens" and measure(unit, text[a.start : q + shift]) > size
            if unit != "tokens" and not a.metadata.get("oversized"):
                assert measure(unit, text[a.start : a.end + 1]) > size, "hard cut before the window was full"
    if unit == "tokens" and p["overlap"] and len(chunks) > 1:
        # token overlap: within one token of the request wherever the earlier chunk is long enough
        for a, b in zip(chunks, chunks[1:]):
            if measure("tokens", text[a.start : a.end]) > p["overlap"] + 2 and not b.metadata.get("oversized"):
                assert measure("tokens", text[b.start : a.end]) >= p["overlap"] - 1


def recursive_contract(cs, p):
    """Overlap never exceeds the request; only whitespace is ever left between neighbours."""
    text, chunks = cs.document.text, cs.chunks
    for a, b in zip(chunks, chunks[1:]):
        assert b.start > a.start and b.end > a.end
        if b.start < a.end:
            assert measure(p["unit"], text[b.start : a.end]) <= p["overlap"] + (1 if p["unit"] == "tokens" else 0)
    assert all(text[g.start : g.end].isspace() and g.reason == "whitespace only" for g in cs.gaps)
    assert all(not c.text.isspace() for c in chunks)


def split_contract(cs, p):
    """Chunks tile the text, each ends with a delimiter (but the last), and only the text
    as a whole may be shorter than `min_chars`."""
    text, chunks = cs.document.text, cs.chunks
    delims = decode_delimiters("delimiters", p["delimiters"])
    assert "".join(c.text for c in chunks) == text
    for c in chunks[:-1]:
        assert c.text[-1] in delims
    if len(chunks) > 1:
        assert all(c.chars >= p["min_chars"] for c in chunks)


def lines_contract(cs, p):
    """Cores of `chunk_lines` lines tile the file; each chunk starts `overlap_lines` lines before
    its core, so neighbours share exactly `overlap_lines` lines; under a `max_tokens` cap a core
    may be shorter and an overlap too, only in a chunk that holds at most the cap (or is one core
    line over it alone, flagged)."""
    total, size, overlap, cap = cs.document.line_count, p["chunk_lines"], p["overlap_lines"], p.get("max_tokens", 0)
    expected_core = 1
    for c in cs.chunks:
        core_a, core_b = c.metadata["core_start_line"], c.metadata["core_end_line"]
        full, start = min(total, core_a + size - 1), max(1, core_a - overlap)
        assert core_a == expected_core and core_a <= core_b <= full and start <= c.start_line <= core_a
        if cap:
            flagged = c.metadata.get("over_max_tokens", False)
            assert c.tokens <= cap or flagged and core_b == core_a == c.start_line
        else:
            assert core_b == full and c.start_line == start
        assert c.end_line == core_b
        expected_core = core_b + 1
    assert expected_core == total + 1


CONTRACTS = {"fixed": fixed_contract, "recursive": recursive_contract, "split": split_contract, "lines": lines_contract}
