"""Quality flags fire exactly where a chunking hurts retrieval, and the score follows them."""

from bisect import bisect_right
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, Span, build_chunkset, chunk_document
from chunktui.engine.analysis.quality import FLAG_NAMES, _cuts_inside, assess, find_flags, scan_structure


def chunked(text, cuts, kind="prose", strategy="lines", params=None, metadata=None, spans=None, gaps=()):
    """A contiguous chunk set of `text` cut at the given offsets (or at explicit spans)."""
    doc = Document.from_text(text, kind=kind, language="python" if kind == "code" else None)
    if spans is None:
        edges = [0, *cuts, len(text)]
        spans = [
            Span(a, b, "size", metadata=(metadata or {}).get(i, {})) for i, (a, b) in enumerate(zip(edges, edges[1:]))
        ]
    return build_chunkset(
        doc,
        spans,
        strategy=strategy,
        params=params if params is not None else {"chunk_lines": 10, "overlap_lines": 0},
        tokenizer="cl100k_base",
        declared_gaps=gaps,
    )


def names(cs, **kw):
    kw.setdefault("min_tokens", 0)
    return [f.name for f in find_flags(cs, **kw) if f.severity == "warning"]


def cut_at(text, marker, offset=0):
    return text.index(marker) + offset


def test_over_budget_and_tiny_follow_token_counts():
    text = "alpha beta gamma delta. " * 40 + "\nend."
    cs = chunked(text, [cut_at(text, "\nend")])
    big, small = cs.chunks
    flags = find_flags(cs, budget=big.tokens - 1, min_tokens=small.tokens + 1)
    assert [(f.name, f.chunk_index) for f in flags if f.name in ("over_budget", "tiny")] == [
        ("over_budget", 0),
        ("tiny", 1),
    ]
    assert str(big.tokens) in flags[0].reason
    at_limits = find_flags(cs, budget=big.tokens, min_tokens=small.tokens)
    assert not [f for f in at_limits if f.name in ("over_budget", "tiny")]


def test_mid_word_fires_inside_a_word_only():
    text = "The quick brown fox jumps over the lazy dog.\n"
    inside = chunked(text, [cut_at(text, "brown", 2)])
    flags = [f for f in find_flags(inside, min_tokens=0) if f.name == "mid_word"]
    assert len(flags) == 1 and "br|own" in flags[0].reason and flags[0].chunk_index == 0
    assert "mid_word" not in names(chunked(text, [cut_at(text, " brown")]))


@settings(max_examples=50, deadline=None)
@given(st.text(alphabet="ab .\n", min_size=2, max_size=60), st.data())
def test_mid_word_iff_word_characters_on_both_sides(text, data):
    pos = data.draw(st.integers(1, len(text) - 1))
    cs = chunked(text, [pos])
    expected = text[pos - 1].isalnum() and text[pos].isalnum()
    assert ("mid_word" in names(cs)) == expected


def test_mid_sentence_for_prose_but_not_at_sentence_or_line_ends():
    text = "First sentence here. Second one follows and goes on.\nA new line starts here.\n"
    assert "mid_sentence" in names(chunked(text, [cut_at(text, " follows")]))
    assert "mid_sentence" not in names(chunked(text, [cut_at(text, " Second")]))
    assert "mid_sentence" not in names(chunked(text, [cut_at(text, "A new")]))
    assert "mid_sentence" not in names(chunked(text, [cut_at(text, "\nA new")]))
    code = "x = compute(a, b)\nprint(x)\n"
    assert "mid_sentence" not in names(chunked(code, [cut_at(code, ", b")], kind="code"))


MARKDOWN = """# Guide

Intro paragraph for the guide.

```python
# not a heading
x = 1
y = 2
```

| name | value |
|------|-------|
| a    | 1     |
| b    | 2     |

- first item
  continues here
- second item

## Setup

Setup body with enough words to be a real section of the guide, so it is content.
More setup text follows on this line.
"""


def test_structure_scan_finds_fences_tables_items_and_headings():
    doc = Document.from_text(MARKDOWN, kind="markdown")
    s = scan_structure(doc)
    lines = lambda ranges: [(doc.line_of(a), doc.line_of(b - 1)) for a, b in ranges]
    assert lines(s.fences) == [(5, 9)]
    assert lines(s.tables) == [(11, 14)]
    assert lines(s.items) == [(16, 17), (18, 18)]
    assert [(h.line, h.level) for h in s.headings] == [(1, 1), (20, 2)]  # "# not a heading" is code
    assert scan_structure(Document.from_text(MARKDOWN, kind="code", language="python")).headings == []


def test_cut_inside_code_block_table_and_list_item_fires():
    md = MARKDOWN
    assert "in_code_block" in names(chunked(md, [cut_at(md, "y = 2")], kind="markdown"))
    assert "in_table" in names(chunked(md, [cut_at(md, "| b ")], kind="markdown"))
    assert "in_list_item" in names(chunked(md, [cut_at(md, "  continues")], kind="markdown"))


def test_cuts_around_blocks_do_not_fire():
    md = MARKDOWN
    cuts = [
        cut_at(md, "```python"),
        cut_at(md, "| name"),
        cut_at(md, "- first"),
        cut_at(md, "- second"),
        cut_at(md, "## Setup"),
    ]
    got = names(chunked(md, cuts, kind="markdown"))
    for name in ("in_code_block", "in_table", "in_list_item", "mid_word", "orphan_heading"):
        assert name not in got


def test_orphan_heading_fires_when_heading_is_cut_from_its_body():
    md = MARKDOWN
    cs = chunked(md, [cut_at(md, "Setup body")], kind="markdown")
    flags = [f for f in find_flags(cs, min_tokens=0) if f.name == "orphan_heading"]
    assert len(flags) == 1 and flags[0].line == 20 and "## Setup" in flags[0].reason
    # the same heading at the start of its chunk, with its body, is fine
    assert "orphan_heading" not in names(chunked(md, [cut_at(md, "## Setup")], kind="markdown"))
    # a heading whose whole (short) section fits in the chunk is not orphaned
    short = "# A\n\nShort.\n\n# B\n\nBody of B goes here and is long enough to matter a lot.\n"
    assert "orphan_heading" not in names(chunked(short, [cut_at(short, "# B")], kind="markdown"))


CODE = """class Store:
    def get(self, key):
        value = self.data[key]
        return value

    def put(self, key, value):
        self.data[key] = value


def helper():
    return 42
"""
ENTITIES = [
    {"name": "Store", "kind": "class", "start_line": 1, "end_line": 7},
    {"name": "get", "kind": "method", "start_line": 2, "end_line": 4},
    {"name": "put", "kind": "method", "start_line": 6, "end_line": 7},
    {"name": "helper", "kind": "function", "start_line": 10, "end_line": 11},
]


def test_split_entity_fires_for_cuts_inside_functions_not_between_them():
    meta = {0: {"entities": ENTITIES}}
    inside = chunked(CODE, [cut_at(CODE, "        return value")], kind="code", metadata=meta)
    flags = [f for f in find_flags(inside, min_tokens=0) if f.name == "split_entity"]
    assert len(flags) == 1 and "method get" in flags[0].reason
    between_methods = chunked(CODE, [cut_at(CODE, "    def put")], kind="code", metadata=meta)
    assert "split_entity" not in names(between_methods)  # a cut inside the class, between methods
    between_top = chunked(CODE, [cut_at(CODE, "def helper")], kind="code", metadata=meta)
    assert "split_entity" not in names(between_top)


def test_split_entity_from_strategy_metadata():
    cs = chunked(CODE, [cut_at(CODE, "def helper")], kind="code", metadata={1: {"split_entity": True}})
    assert [(f.name, f.chunk_index) for f in find_flags(cs, min_tokens=0) if f.name == "split_entity"] == [
        ("split_entity", 1)
    ]


def test_duplicate_names_the_first_copy():
    text = "same words here\n" * 3
    cs = chunked(text, [16, 32])
    dups = [f for f in find_flags(cs, min_tokens=0) if f.name == "duplicate"]
    assert [f.chunk_index for f in dups] == [1, 2]
    assert all("chunk-0001" in f.reason for f in dups)


def test_overlap_as_requested_is_not_flagged():
    text = "".join(f"line {i} of the file.\n" for i in range(60))
    doc = Document.from_text(text, kind="prose")
    cs = chunk_document(doc, "lines", {"size": 10, "overlap": 2})
    assert "overlap" not in names(cs)


def test_missing_overlap_is_flagged_at_each_boundary():
    text = "".join(f"line {i} of the file.\n" for i in range(30))
    doc = Document.from_text(text, kind="prose")
    cuts = [doc.line_start(11), doc.line_start(21)]
    cs = chunked(text, cuts, params={"chunk_lines": 10, "overlap_lines": 2})
    flags = [f for f in find_flags(cs, min_tokens=0) if f.name == "overlap"]
    assert [f.chunk_index for f in flags] == [1, 2]
    assert all("no overlap" in f.reason and "2 lines requested" in f.reason for f in flags)
    assert "overlap" not in names(chunked(text, cuts, params={"chunk_lines": 10, "overlap_lines": 0}))


def test_overlap_where_none_was_requested_and_structural_boundaries():
    text = "".join(f"line {i} of the file.\n" for i in range(30))
    doc = Document.from_text(text, kind="prose")
    spans = [Span(0, doc.line_end(12)), Span(doc.line_start(9), len(text))]
    cs = chunked(text, None, spans=spans, params={"chunk_lines": 10, "overlap_lines": 0})
    flags = [f for f in find_flags(cs, min_tokens=0) if f.name == "overlap"]
    assert len(flags) == 1 and "4 lines of overlap where none was requested" in flags[0].reason
    # a heading boundary without overlap is only information (markdown adds none there)
    heading_spans = [Span(0, doc.line_end(10)), Span(doc.line_end(10), len(text), "heading")]
    cs = chunked(text, None, spans=heading_spans, params={"chunk_lines": 10, "overlap_lines": 2})
    (flag,) = [f for f in find_flags(cs, min_tokens=0) if f.name == "overlap"]
    assert flag.severity == "info"


def test_gaps_warn_unless_declared_or_blank():
    text = "first part of text.\n\nsecond part that nobody covers.\nthird part.\n"
    a = text.index("second")
    b = text.index("third")
    cs = chunked(text, None, spans=[Span(0, a), Span(b, len(text))])
    (gap,) = [f for f in find_flags(cs, min_tokens=0) if f.name == "gap"]
    assert gap.severity == "warning" and gap.chunk_index is None and gap.line == 3
    declared = chunked(text, None, spans=[Span(0, a), Span(b, len(text))], gaps=[(a, b, "sampled out")])
    assert [f.severity for f in find_flags(declared, min_tokens=0) if f.name == "gap"] == ["info"]
    blank = chunked(text, None, spans=[Span(0, text.index("\n") + 1), Span(text.index("second"), len(text))])
    assert [f.severity for f in find_flags(blank, min_tokens=0) if f.name == "gap"] == ["info"]


def test_score_is_100_for_a_clean_even_chunking_and_drops_with_flags():
    text = "".join(f"Sentence number {i} is here.\n" for i in range(40))
    doc = Document.from_text(text, kind="prose")
    clean = chunk_document(doc, "lines", {"size": 10, "overlap": 0})
    q = assess(clean, min_tokens=0)
    assert q.flags == [] and q.score.score == 100.0 and q.score.flagged_share == 0
    bad = chunked(text, [c.start + 5 for c in clean.chunks[1:]], params={"chunk_lines": 10, "overlap_lines": 0})
    qb = assess(bad, min_tokens=0)
    assert qb.score.counts["mid_word"] == 3 and qb.score.counts["mid_sentence"] == 3
    assert qb.score.flagged_share > 0.5
    assert 0 <= qb.score.score < q.score.score
    worse = assess(bad, budget=1, min_tokens=0)
    assert worse.score.score < qb.score.score and worse.score.counts["over_budget"] == len(bad.chunks)


def test_info_flags_do_not_lower_the_score():
    text = "first part of text.\n\nsecond part.\n"
    a = text.index("second")
    gapped = chunked(text, None, spans=[Span(0, text.index("\n") + 1), Span(a, len(text))])
    q = assess(gapped, min_tokens=0)
    assert q.score.info_counts["gap"] == 1 and q.score.counts["gap"] == 0 and q.score.score == 100.0


def test_quality_of_a_sample_doc_names_every_flag_with_location():
    md = MARKDOWN
    cs = chunked(md, [cut_at(md, "y = 2"), cut_at(md, "Setup body"), cut_at(md, "| b ")], kind="markdown")
    q = assess(cs, min_tokens=0)
    assert set(q.score.counts) == set(FLAG_NAMES)
    for f in q.flags:
        assert f.reason and "\n" not in f.reason
        assert cs.document.line_of(f.start) == f.line
    assert q.flagged_indexes() == sorted({f.chunk_index for f in q.flags if f.chunk_index is not None})
    assert "score" in q.summary()


def test_split_entity_from_the_syntax_tree_for_any_strategy():
    doc = Document.from_text(CODE, path="store.py")
    cut = cut_at(CODE, "        return value")
    cs = build_chunkset(
        doc,
        [Span(0, cut), Span(cut, len(CODE))],
        strategy="lines",
        params={"chunk_lines": 3, "overlap_lines": 0},
        tokenizer="cl100k_base",
    )
    (flag,) = [f for f in find_flags(cs, min_tokens=0) if f.name == "split_entity"]
    assert "method get (lines 2-4)" in flag.reason and "chunk ends at line 3" in flag.reason
    ok = cut_at(CODE, "\n\ndef helper") + 1
    clean = build_chunkset(
        doc,
        [Span(0, ok), Span(ok, len(CODE))],
        strategy="lines",
        params={"chunk_lines": 3, "overlap_lines": 0},
        tokenizer="cl100k_base",
    )
    assert "split_entity" not in names(clean)


def test_split_entity_is_judged_at_the_core_not_the_overlap():
    doc = Document.from_text(CODE, path="store.py")
    # lines 1-9 and 3-11, cores 1-9 and 10-11: the second chunk starts inside get() only as overlap
    cs = build_chunkset(
        doc,
        [
            Span(0, doc.line_end(9), metadata={"core_start_line": 1, "core_end_line": 9}),
            Span(doc.line_start(3), len(CODE), metadata={"core_start_line": 10, "core_end_line": 11}),
        ],
        strategy="lines",
        params={"chunk_lines": 9, "overlap_lines": 0},
        tokenizer="cl100k_base",
    )
    assert "split_entity" not in names(cs)
    # without core lines in the metadata the core is measured: the second chunk's new text starts
    # where the first ends (line 10), so the same spans cut nothing; a real cut at line 3 does
    no_core = build_chunkset(
        doc,
        [Span(0, doc.line_end(9)), Span(doc.line_start(3), len(CODE))],
        strategy="lines",
        params={"chunk_lines": 9, "overlap_lines": 0},
        tokenizer="cl100k_base",
    )
    assert "split_entity" not in names(no_core)
    real_cut = build_chunkset(
        doc,
        [Span(0, doc.line_start(3)), Span(doc.line_start(3), len(CODE))],
        strategy="lines",
        params={"chunk_lines": 9, "overlap_lines": 0},
        tokenizer="cl100k_base",
    )
    assert "split_entity" in names(real_cut)


def test_overlap_counted_in_items_is_judged_by_presence_only():
    text = "".join(f"message {i} body text.\n" for i in range(12))
    doc = Document.from_text(text, kind="email")
    overlapping = [Span(0, doc.line_end(6)), Span(doc.line_start(2), len(text))]
    cs = build_chunkset(
        doc, overlapping, strategy="email", params={"max_chars": 4000, "overlap_emails": 1}, tokenizer="cl100k_base"
    )
    assert "overlap" not in names(cs)  # 5 lines shared where 1 email was asked: not comparable, not flagged
    apart = [Span(0, doc.line_end(6)), Span(doc.line_end(6), len(text))]
    cs = build_chunkset(
        doc, apart, strategy="email", params={"max_chars": 4000, "overlap_emails": 1}, tokenizer="cl100k_base"
    )
    (flag,) = [f for f in find_flags(cs, min_tokens=0) if f.name == "overlap"]
    assert "1 emails requested" in flag.reason


GUIDE_TEXT = (Path(__file__).resolve().parent.parent / "sample_docs" / "guide.md").read_text(encoding="utf-8")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(GUIDE_TEXT)), st.integers(1, 900)), min_size=1, max_size=12))
def test_any_chunking_gets_well_formed_flags_and_a_bounded_score(raw):
    """Overlaps, gaps, duplicates, cuts anywhere: every flag points into the document with a reason."""
    spans = [Span(s, min(len(GUIDE_TEXT), s + n)) for s, n in raw if s < len(GUIDE_TEXT)]
    if not spans:
        return
    cs = chunked(GUIDE_TEXT, None, kind="markdown", spans=spans)
    q = assess(cs, budget=200, min_tokens=8)
    n = len(GUIDE_TEXT)
    for f in q.flags:
        assert f.name in FLAG_NAMES and f.severity in ("warning", "info")
        assert 0 <= f.start <= f.end <= n and f.reason and "\n" not in f.reason
        assert f.chunk_index is None or 0 <= f.chunk_index < len(cs.chunks)
    assert 0 <= q.score.score <= 100
    assert q.score.counts["gap"] + q.score.info_counts["gap"] == len(cs.gaps)
    assert q.score.counts["over_budget"] == sum(c.tokens > 200 for c in cs.chunks)


def test_assessing_a_chunking_leaves_its_hashes_lines_and_byte_offsets_unmade():
    """A sweep assesses every cell: the flags need no chunk's hash (equal texts say duplicate)
    nor its lines (a heading's chunk end line is looked up alone), which cost 9 ms a cell at 1 MB."""
    doc = Document.from_text(GUIDE_TEXT * 3, path="guide.md")
    cs = chunk_document(doc, "recursive", {"size": 200, "overlap": 20})
    flags = find_flags(cs)
    for name in ("sha256", "start_byte", "end_line", "start_line"):
        unmade = [c for c in cs.chunks if not hasattr_unread(c, name)]
        assert len(unmade) == len(cs.chunks), name
    dupes = [f.chunk_index for f in flags if f.name == "duplicate"]
    assert dupes and all(cs.chunks[i].text in {c.text for c in cs.chunks[:i]} for i in dupes)
    assert {f.name for f in flags} >= {"orphan_heading", "duplicate"}
    cs.derive_all()
    assert find_flags(cs) == flags


def hasattr_unread(chunk, name):
    """False while a derived field is unmade (its slot unset: read through, it would be made)."""
    try:
        object.__getattribute__(chunk, name)
    except AttributeError:
        return False
    return True


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 60), st.integers(0, 30)), max_size=8),
    st.lists(st.integers(1, 90), max_size=20, unique=True),
)
def test_cuts_inside_ranges_judge_each_cut_by_the_last_range_starting_before_it(raw, cuts):
    ranges = sorted((a, a + length) for a, length in raw)
    cuts.sort()
    starts = [a for a, _ in ranges]
    expected = {}
    for pos in cuts:
        i = bisect_right(starts, pos) - 1
        if i >= 0 and ranges[i][0] < pos < ranges[i][1]:
            expected[pos] = ranges[i]
    assert _cuts_inside(ranges, cuts) == expected
