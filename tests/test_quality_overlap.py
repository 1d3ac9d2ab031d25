"""The score judges real cuts only: where a chunk's new text starts (past the overlap it repeats)
and where it ends. An overlap a strategy made as asked never flags, so a run with overlap and
the same run without it get the same structural flags wherever their core cuts are the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunktui.engine import all_strategies, chunk_document, load_document
from chunktui.engine.readers.documents import Document
from chunktui.engine.core.model import Span, build_chunkset
from chunktui.engine.analysis.quality import assess, find_flags

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
CUT_FLAGS = ("mid_word", "mid_sentence", "in_code_block", "in_table", "in_list_item", "split_entity")


def cores(cs) -> set[int]:
    """Real cuts strictly inside the document: each chunk's end, and where its new text starts."""
    n = len(cs.document.text)
    return {p for c in cs.chunks for p in (c.start + c.overlap_prev_chars, c.end) if 0 < p < n}


def cut_flags(cs) -> set[tuple[str, int]]:
    """(flag, position) of every flag that judges a cut; an orphan heading by its chunk's end."""
    out = set()
    for f in find_flags(cs, min_tokens=0):
        if f.name in CUT_FLAGS and f.start == f.end:
            out.add((f.name, f.start))
        elif f.name == "orphan_heading":
            out.add((f.name, cs.chunks[f.chunk_index].end))
    return out


# every strategy with an overlap, on documents of its kind, with an overlap and the same run without
OVERLAP_RUNS = [
    ("recursive", "guide.md", {"size": 300}, "overlap", 60),
    ("recursive", "essay.txt", {"size": 400}, "overlap", 100),
    ("recursive", "essay.txt", {"size": 120, "unit": "tokens"}, "overlap", 30),
    ("fixed", "essay.txt", {"size": 400}, "overlap", 80),
    ("fixed", "guide.md", {"size": 100, "unit": "tokens"}, "overlap", 20),
    ("lines", "service.log", {"size": 12}, "overlap", 3),
    ("lines", "guide.md", {"size": 10}, "overlap", 2),
    ("adaptive", "essay.txt", {"size": 8}, "overlap", 2),
    ("semantic", "guide.md", {"size": 10}, "overlap", 2),
    ("semantic", "inventory.py", {"size": 12}, "overlap", 3),
    ("markdown", "guide.md", {"max_char": 400, "min_char": 100}, "chunk_overlap", 100),
    ("markdown", "notes.md", {"max_char": 300, "min_char": 50}, "chunk_overlap", 64),
    ("code", "inventory.py", {"max_chunk_size": 600}, "overlap_lines", 4),
    ("code", "auth_middleware.ts", {"max_chunk_size": 500}, "overlap_lines", 3),
    ("email", "threads.mbox", {"max_chars": 3000}, "overlap_emails", 1),
]


def test_every_strategy_with_an_overlap_is_held_to_it():
    overlapping = {s.name for s in all_strategies() if s.overlap_param}
    assert overlapping == {name for name, *_ in OVERLAP_RUNS}


@pytest.mark.parametrize(
    "strategy, sample, params, knob, amount", OVERLAP_RUNS, ids=[f"{r[0]}-{r[1]}-{r[4]}" for r in OVERLAP_RUNS]
)
def test_overlap_changes_no_flag_at_the_same_core_cut(strategy, sample, params, knob, amount):
    doc = load_document(SAMPLES / sample)
    with_overlap = chunk_document(doc, strategy, {**params, knob: amount})
    without = chunk_document(doc, strategy, {**params, knob: 0})
    assert any(c.overlap_prev_chars for c in with_overlap.chunks), "the run repeats text"
    flagged, plain = cut_flags(with_overlap), cut_flags(without)
    # a flag judges a real cut, never the start of an overlap
    assert {p for _, p in flagged} <= cores(with_overlap)
    same = cores(with_overlap) & cores(without)
    assert same, "the two runs share cuts to compare"
    assert {f for f in flagged if f[1] in same} == {f for f in plain if f[1] in same}


@pytest.mark.parametrize(
    "strategy, sample, params, knob, amount", OVERLAP_RUNS, ids=[f"{r[0]}-{r[1]}-{r[4]}" for r in OVERLAP_RUNS]
)
def test_an_overlap_made_as_asked_never_flags(strategy, sample, params, knob, amount):
    cs = chunk_document(load_document(SAMPLES / sample), strategy, {**params, knob: amount})
    assert [f.reason for f in assess(cs).flags if f.name == "overlap" and f.severity == "warning"] == []


def api_reference(sections: int = 40) -> str:
    """Markdown shaped like Node's fs.md: per call a heading, a YAML history comment, a list of
    parameters, a paragraph or two of long sentences and a code example."""
    parts = [
        "# File system\n\n<!--introduced_in=v0.10.0-->\n\nThe `node:fs` module enables interacting "
        "with the file system in a way modeled on standard POSIX functions.\n\n"
    ]
    for i in range(sections):
        name = f"fs.call{i}(path[, options], callback)"
        parts.append(
            f"### `{name}`\n\n<!-- YAML\nadded: v0.{i}.0\n-->\n\n"
            f"* `path` {{string|Buffer|URL}}\n* `options` {{Object}}\n  * `flag` {{string}} "
            f"See [support of file system `flags`][]. **Default:** `'r'`.\n* `callback` {{Function}}\n\n"
            f"Asynchronously performs call number {i} on the file at `path`, and invokes the callback "
            "with an error as its first argument once the operation completes or fails. The callback "
            "gets no other arguments unless the operation returns data, in which case the data is "
            "passed as the second argument. Using this call to check for the existence of a file "
            "before opening it is not recommended, because doing so introduces a race condition: "
            "other processes may change the file's state between the two calls. Instead, user code "
            "should open the file directly and handle the error raised if the file is not there.\n\n"
            "The call is asynchronous and returns at once; the work is done on the thread pool. "
            "On Linux, positional writes do not work when the file is opened in append mode: the "
            "kernel ignores the position argument and always appends the data to the end of the file. "
            "It is unsafe to call it more than once on the same file without waiting for the "
            "callback, and the behaviour of concurrent calls on one file descriptor is undefined.\n\n"
            "```mjs\nimport { call } from 'node:fs';\n\n"
            f"call{i}('/tmp/hello', (err) => {{\n  if (err) throw err;\n  console.log('done');\n}});\n```\n\n"
        )
    return "".join(parts)


def test_an_api_reference_scores_the_same_with_overlap_0_and_100():
    """Node's fs.md with markdown at max 1000 scored 95.7 with overlap 0 and 73.8 with overlap 100
    (142 mid_sentence flags, all at overlap starts); an overlap that repeats text costs nothing."""
    doc = Document.from_text(api_reference(), path="fs.md")
    runs = [chunk_document(doc, "markdown", {"max_char": 1000, "min_char": 200, "chunk_overlap": k}) for k in (0, 100)]
    assert sum(c.overlap_prev_chars > 0 for c in runs[1].chunks) > 10
    none, some = (assess(cs) for cs in runs)
    assert some.score.counts["mid_sentence"] == none.score.counts["mid_sentence"]
    assert some.score.counts["overlap"] == 0
    assert some.score.score == none.score.score


def test_recursive_overlap_as_asked_is_not_off():
    """recursive 500/100 flagged 438 of 729 chunks on fs.md for an overlap under the 100 asked:
    it repeats whole pieces up to that, as documented, so less or none is as asked."""
    doc = Document.from_text(api_reference(), path="fs.md")
    cs = chunk_document(doc, "recursive", {"size": 500, "overlap": 100})
    assert any(c.overlap_prev_chars < 50 for c in cs.chunks[1:])  # less than half asked, at some boundaries
    assert "overlap" not in {f.name for f in assess(cs).flags}
    # more than the most it repeats is still off
    spans = [Span(c.start, c.end) for c in cs.chunks[:3]]
    spans[1] = Span(spans[0].end - 300, spans[1].end)
    widened = build_chunkset(doc, spans, strategy="recursive", params=cs.params, tokenizer="cl100k_base")
    assert [f.reason for f in assess(widened).flags if f.name == "overlap"] == [
        "300 chars of overlap, over twice the 100 requested (between chunk-0001 and chunk-0002)"
    ]


def test_with_queries_the_sweep_ranks_by_what_retrieves_and_says_so():
    from click.testing import CliRunner

    from chunktui.cli.commands import cli

    args = [
        "sweep",
        str(SAMPLES / "guide.md"),
        "-s",
        "recursive,markdown",
        "--size",
        "300,900,1500",
        "--overlap",
        "0",
        "--queries",
        str(SAMPLES / "queries" / "guide.jsonl"),
        "--retrieve-tokens",
        "300",
        "--workers",
        "1",
    ]
    grid = json.loads(CliRunner().invoke(cli, [*args, "--format", "json", "--rank-by", "score"]).stdout)["cells"]
    ranked = json.loads(CliRunner().invoke(cli, [*args, "--format", "json"]).stdout)["cells"]
    assert [c["recall"] for c in ranked] == sorted((c["recall"] for c in grid), reverse=True)
    assert [c["recall"] for c in ranked] != [c["recall"] for c in grid]  # the grid order is not recall's
    footer = CliRunner().invoke(cli, args).stdout.splitlines()[-1]
    assert footer.startswith("* best recall; ranked by recall: what retrieves leads, the score and its flags explain")
    plain = CliRunner().invoke(cli, [*args[:8], "--workers", "1"]).stdout.splitlines()[-1]
    assert plain.startswith("* best score; no queries, so the score of structural flags ranks")
