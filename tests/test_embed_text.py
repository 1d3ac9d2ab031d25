"""Every chunk's embed_text is what an embedding model receives (the strategy's context text
where it makes one, else its text, after the run's context header) and embed_tokens its exact
count; budgets, stats and exports go by them."""

from __future__ import annotations

import collections
import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.cli.commands import cli
from chunktui.engine import Document, all_strategies, chunk_document, load_document
from chunktui.engine.core.errors import ParamError
from chunktui.engine.analysis.quality import assess
from chunktui.engine.core.token_index import first_line_anchor
from chunktui.engine.core.tokens import TiktokenCounter, get_counter, get_encoding
from chunktui.formats.export import export_chunkset
from chunktui.formats.profiles import load_profile, save_profile
from chunktui.formats.store import load_chunkset, save_chunkset
from chunktui.formats.yamlio import read_yaml

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
ENC = get_encoding("cl100k_base")
HEADERS = ("none", "title", "path")


def count(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def sample_for(strategy) -> Path:
    """A sample document of a kind the strategy takes (any text for those that take every kind)."""
    for name in ("guide.md", "inventory.py", "talk.vtt", "orders.csv", "threads.mbox", "service.log", "essay.txt"):
        path = SAMPLES / name
        if not strategy.kinds or load_document(path).kind in strategy.kinds:
            return path
    raise AssertionError(strategy.name)


def expected_header(cs, chunk, header: str) -> str:
    """The header as the docs describe it: the chunk's metadata's place, else (in a markdown
    document) the headings above its core's first non-blank character, then its pages."""
    if header == "none":
        return ""
    parts = [cs.document.name]
    if header == "path":
        for key in ("header_path", "scope_chain", "section", "subject"):
            value = chunk.metadata.get(key)
            if value:
                parts += [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
                break
        else:
            if cs.document.kind == "markdown":
                core = chunk.start + chunk.overlap_prev_chars
                blank = len(chunk.text[core - chunk.start :]) - len(chunk.text[core - chunk.start :].lstrip())
                parts += headings_above(cs.document.text, core + blank if core + blank < chunk.end else core)
        first, last = chunk.metadata.get("page_start"), chunk.metadata.get("page_end")
        if first is not None:
            parts.append(f"p. {first}" if first == last else f"pp. {first}-{last}")
    return " > ".join(parts) + "\n\n"


def headings_above(text: str, at: int) -> list[str]:
    """The H1-H3 titles in force at offset `at`, by a plain walk over the lines (ATX headings
    outside fenced blocks: the sample documents have no other kind)."""
    path: list[tuple[int, str]] = []
    fenced, offset = False, 0
    for line in text.splitlines(keepends=True):
        if offset > at:
            break
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := re.match(r"(#{1,3}) +(.*?)\s*$", line)):
            path = [p for p in path if p[0] < len(m[1])] + [(len(m[1]), m[2])]
        offset += len(line)
    return [title for _, title in path]


@pytest.mark.parametrize("header", HEADERS)
@pytest.mark.parametrize("strategy", all_strategies(), ids=lambda s: s.name)
def test_every_strategy_embeds_and_counts_exactly(strategy, header):
    cs = chunk_document(load_document(sample_for(strategy)), strategy.name, {}, context_header=header)
    assert cs.chunks and cs.context_header == header
    for c in cs.chunks:
        assert c.embed_text == expected_header(cs, c, header) + (c.context_text or c.text)
        assert c.embed_tokens == count(c.embed_text)
        if header == "none" and not c.context_text:
            assert c.embed_text is c.text and c.embed_tokens == c.tokens  # one string, counted once
    stats = cs.stats(budget=100)
    assert stats.total_tokens == sum(count(c.embed_text) for c in cs.chunks)
    assert stats.over_budget == sum(count(c.embed_text) > 100 for c in cs.chunks)


def test_webvtt_counts_the_cue_text_not_the_timestamps():
    """webvtt-py's sample.vtt showed 351 tokens for a chunk that embeds 79; talk.vtt's cue chunks
    hold 431 tokens of span (timings, settings) but embed 223 of cue text."""
    cs = chunk_document(load_document(SAMPLES / "talk.vtt"), "cues", {})
    first = cs.chunks[0]
    assert "-->" in first.text and "-->" not in first.embed_text
    assert first.embed_text == first.context_text
    assert (first.tokens, first.embed_tokens) == (count(first.text), count(first.context_text))
    assert first.embed_tokens < first.tokens / 1.5
    # a budget between the two counts: the cue text fits, so nothing is over it
    budget = max(c.embed_tokens for c in cs.chunks)
    assert any(c.tokens > budget for c in cs.chunks)
    assert cs.stats(budget).over_budget == 0
    assert "over_budget" not in {f.name for f in assess(cs, budget=budget).flags}
    assert cs.stats().tokens_max == budget


def test_the_context_header_of_code_is_counted():
    """A header nobody counts makes contextualized chunks exceed max_tokens: here it counts."""
    doc = load_document(SAMPLES / "inventory.py")
    plain = chunk_document(doc, "code", {})
    headed = chunk_document(doc, "code", {}, context_header="path")
    scoped = [c for c in headed.chunks if c.metadata.get("scope_chain")]
    assert scoped
    c = scoped[0]
    chain = " > ".join(c.metadata["scope_chain"])
    assert c.embed_text.startswith(f"inventory.py > {chain}\n\n")
    assert c.embed_tokens == count(c.embed_text) > count(c.context_text or c.text)
    assert headed.stats().total_tokens > plain.stats().total_tokens
    tight = max(p.embed_tokens for p in plain.chunks)  # every plain chunk fits; some headed ones do not
    assert plain.stats(tight).over_budget == 0 < headed.stats(tight).over_budget


def test_headers_of_each_kind():
    guide = chunk_document(load_document(SAMPLES / "guide.md"), "markdown", {}, context_header="path")
    assert guide.chunks[1].embed_text.startswith("guide.md > Harbor User Guide > Install > Prerequisites\n\n")
    titled = chunk_document(load_document(SAMPLES / "guide.md"), "markdown", {}, context_header="title")
    assert all(c.embed_text == "guide.md\n\n" + c.text for c in titled.chunks)
    mail = chunk_document(load_document(SAMPLES / "threads.mbox"), "email", {}, context_header="path")
    first = mail.chunks[0]
    assert first.embed_text == f"threads.mbox > {first.metadata['subject']}\n\n{first.context_text}"
    # a chunk that says nothing of where it lives gets the file name alone
    lines = chunk_document(load_document(SAMPLES / "essay.txt"), "lines", {}, context_header="path")
    assert all(c.embed_text == "essay.txt\n\n" + c.text for c in lines.chunks)


def test_path_headers_take_the_documents_headings_where_the_strategy_names_none(monkeypatch):
    """recursive, fixed, lines... name no header path: on guide.md each of their chunks embedded
    `guide.md` alone. The path is the document's at the chunk's core, past the overlap it repeats."""
    guide = load_document(SAMPLES / "guide.md")
    fixed = chunk_document(guide, "fixed", {"size": 300, "overlap": 120, "unit": "chars"}, context_header="path")
    # its overlap opens under the title, its new text under Contents
    c = next(c for c in fixed.chunks if "\n## Contents\n" in c.text[: c.overlap_prev_chars])
    assert c.embed_text == "guide.md > Harbor User Guide > Contents\n\n" + c.text
    recursive = chunk_document(guide, "recursive", {}, context_header="path")
    quick = next(c for c in recursive.chunks if c.text.lstrip().startswith("## Quick start"))
    assert quick.embed_text == "guide.md > Harbor User Guide > Quick start\n\n" + quick.text  # after its blank lines
    assert quick.embed_tokens == count(quick.embed_text)
    # a fenced "# comment" is no heading
    fenced = next(c for c in recursive.chunks if c.text.lstrip().startswith("# Make sure"))
    assert fenced.embed_text.startswith("guide.md > Harbor User Guide > Install > Installing the binary\n\n")


def test_document_header_paths_are_found_once_per_document(monkeypatch):
    """Re-chunks (the app's `[` `]`, a sweep) reuse the paths, as they reuse the markdown scan."""
    from chunktui.engine.strategies import markdown

    found = []
    real = markdown._heading_paths
    monkeypatch.setattr(markdown, "_heading_paths", lambda scan: found.append(scan) or real(scan))
    guide = load_document(SAMPLES / "guide.md")
    for size in (300, 500):
        chunk_document(guide, "recursive", {"size": size, "overlap": 0, "unit": "chars"}, context_header="path")
    assert len(found) == 1


def test_an_unknown_header_is_a_param_error():
    with pytest.raises(ParamError, match="--context-header: 'chapter' is not one of none, title, path"):
        chunk_document(load_document(SAMPLES / "essay.txt"), "lines", {}, context_header="chapter")


@pytest.fixture
def headed_guide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return chunk_document(load_document(SAMPLES / "guide.md"), "markdown", {}, context_header="path")


def test_jsonl_gives_the_embedded_text_with_the_span_offsets(headed_guide):
    cs = headed_guide
    result = export_chunkset(cs, "out", "jsonl")
    records = [json.loads(line) for line in (result.out_dir / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    text = cs.document.text
    for c, r in zip(cs.chunks, records, strict=True):
        meta = r["metadata"]
        assert r["text"] == c.embed_text and r["text"].startswith("guide.md > ")
        assert text[meta["start_char"] : meta["end_char"]] == c.text
        assert (meta["tokens"], meta["embed_tokens"], meta["context_header"]) == (c.tokens, c.embed_tokens, "path")
    manifest = json.loads(result.manifest_path.read_text(encoding="utf-8"))
    assert [e["embed_tokens"] for e in manifest["chunks"]] == [c.embed_tokens for c in cs.chunks]
    assert manifest["context_header"] == "path"


def test_chunks_json_and_yaml_carry_both_texts(headed_guide):
    cs = headed_guide
    data = json.loads((export_chunkset(cs, "j", "json").out_dir / "chunks.json").read_text(encoding="utf-8"))
    assert [(r["content"], r["embed_text"], r["embed_tokens"]) for r in data["chunks"]] == [
        (c.text, c.embed_text, c.embed_tokens) for c in cs.chunks
    ]
    stored = read_yaml(export_chunkset(cs, "y", "yaml").out_dir / "chunks.yaml")
    assert stored["context_header"] == "path"
    assert [(r["text"], r["embed_text"], r["embed_tokens"]) for r in stored["chunks"]] == [
        (c.text, c.embed_text, c.embed_tokens) for c in cs.chunks
    ]


@pytest.mark.parametrize(
    "sample, strategy, header",
    [("guide.md", "markdown", "path"), ("talk.vtt", "cues", "none"), ("inventory.py", "code", "title")],
)
def test_chunks_yaml_round_trip_keeps_the_embedded_texts(tmp_path, sample, strategy, header):
    cs = chunk_document(load_document(SAMPLES / sample), strategy, {}, context_header=header)
    loaded = load_chunkset(save_chunkset(cs, tmp_path / "chunks.yaml")).chunkset
    assert loaded.context_header == header
    assert [(c.embed_text, c.embed_tokens) for c in loaded.chunks] == [
        (c.embed_text, c.embed_tokens) for c in cs.chunks
    ]
    assert loaded.chunks == cs.chunks


def test_chunks_yaml_checks_the_new_fields(tmp_path):
    cs = chunk_document(load_document(SAMPLES / "talk.vtt"), "cues", {})
    path = save_chunkset(cs, tmp_path / "chunks.yaml")
    text = path.read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        text.replace(f"embed_tokens: {cs.chunks[0].embed_tokens}\n", "embed_tokens: many\n", 1), encoding="utf-8"
    )
    with pytest.raises(
        Exception, match=r"chunks\[0\] \(chunk-0001\)\.embed_tokens: expected a whole number, got 'many'"
    ):
        load_chunkset(bad)
    bad.write_text(text.replace("context_header: none", "context_header: chapter"), encoding="utf-8")
    with pytest.raises(Exception, match="context_header: expected one of none, title, path, got 'chapter'"):
        load_chunkset(bad)


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_cli_context_header_on_chunk_sweep_and_profiles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    guide = SAMPLES / "guide.md"
    code, _, err = run("chunk", guide, "-s", "markdown", "--context-header", "path", "-f", "jsonl", "-o", "out")
    assert code == 0, err
    first = json.loads((tmp_path / "out" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["text"].startswith("guide.md > Harbor User Guide\n\n")
    code, _, err = run("chunk", guide, "--context-header", "chapter", "-n")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--context-header" in err and "Traceback" not in err
    save_profile(tmp_path / "p.yaml", "markdown", {}, context_header="title")
    assert load_profile(tmp_path / "p.yaml").context_header == "title"
    code, _, err = run("chunk", guide, "--profile", tmp_path / "p.yaml", "-f", "json", "-o", "prof")
    assert code == 0, err
    data = json.loads((tmp_path / "prof" / "chunks.json").read_text(encoding="utf-8"))
    assert data["context_header"] == "title" and data["chunks"][0]["embed_text"].startswith("guide.md\n\n")
    cells = {}
    for header in ("none", "path"):
        code, out, err = run(
            "sweep",
            guide,
            "-s",
            "markdown",
            "--size",
            "512",
            "--overlap",
            "0",
            "--budget",
            "60",
            "--format",
            "json",
            "--workers",
            "1",
            "--context-header",
            header,
        )
        assert code == 0, err
        (cells[header],) = json.loads(out)["cells"]
    # the same cuts, each embedded text longer by its header: more of them over the budget
    assert cells["path"]["count"] == cells["none"]["count"]
    assert cells["path"]["median_tokens"] > cells["none"]["median_tokens"]
    assert cells["path"]["over_budget_pct"] > cells["none"]["over_budget_pct"]


def test_the_app_rechunks_with_the_context_header_and_shows_both_counts():
    """The controls pane's header select re-chunks like the engine; the token column shows the
    span's count and the embedded one where they differ."""
    import asyncio

    from textual.widgets import Select

    from support.ui import assert_screen_matches_engine, opened, settle

    async def scenario():
        async with opened(SAMPLES / "guide.md") as (app, pilot):
            assert app.chunkset.context_header == "none"
            assert app.table.get_cell_at((0, 3)) == f"{app.chunkset.chunks[0].tokens:,}"
            app.query_one("#context-header", Select).value = "path"
            await settle(pilot)
            assert app.chunkset.context_header == "path"
            assert_screen_matches_engine(app)
            first = app.chunkset.chunks[0]
            assert first.embed_text.startswith("guide.md > ")
            assert app.table.get_cell_at((0, 3)) == f"{first.tokens:,}→{first.embed_tokens:,}"

    asyncio.run(scenario())


# --- the header's tokens are counted once per distinct header (exact at the seam) ------------

STDLIB_TEXTWRAP = Path(textwrap.__file__)  # real Python: indents, blank lines, comments


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_header_counts_stay_exact_where_the_chunk_starts_with_whitespace(encoding):
    """Chunks cut anywhere (fixed 97-character windows over real Python) start with spaces,
    line feeds and punctuation as well as letters; each embedded count is the direct encoding's."""
    enc = get_encoding(encoding)
    cs = chunk_document(
        load_document(STDLIB_TEXTWRAP),
        "fixed",
        {"size": 97, "overlap": 20, "unit": "chars"},
        tokenizer=encoding,
        context_header="title",
    )
    leads = {c.text[:1] for c in cs.chunks}
    assert {" ", "\n"} <= leads and any(ch.isalpha() for ch in leads)
    assert [c.embed_tokens for c in cs.chunks] == [len(enc.encode_ordinary(c.embed_text)) for c in cs.chunks]


def test_header_and_text_counts_do_not_simply_add():
    """Why the seam is checked: after "notes.md\\n\\n" a text that opens with line feeds shares a
    token with the header (and, under o200k_base, one that opens with a space and a line feed)."""
    for encoding, text in [("cl100k_base", "\nInstall it."), ("cl100k_base", "\n  - item"), ("o200k_base", " \nfoo")]:
        enc = get_encoding(encoding)
        head = "notes.md\n\n"
        assert len(enc.encode_ordinary(head + text)) != len(enc.encode_ordinary(head)) + len(enc.encode_ordinary(text))
        doc = Document.from_text(text, path="notes.md")
        cs = chunk_document(
            doc, "recursive", {"size": 100, "overlap": 0, "unit": "chars"}, tokenizer=encoding, context_header="title"
        )
        assert [c.embed_tokens for c in cs.chunks] == [len(enc.encode_ordinary(c.embed_text)) for c in cs.chunks]


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None)
@given(
    head=st.sampled_from(["guide.md\n\n", "a > b c\n\n", "x.py > C++\n\n", "\n\n", "t \n\n"]),
    text=st.text(alphabet=" \t\n/'._-#aZ9é中", min_size=1, max_size=24),
)
def test_a_text_splits_cleanly_at_its_first_line_anchor(encoding, head, text):
    """The rule the count relies on: with a the first anchor of the text, head + text has the
    tokens of head + text[:a] and those of text, less those of text[:a]."""
    a = first_line_anchor(encoding, text)
    if a is not None:
        n = get_counter(encoding).count
        assert n(head + text) == n(head + text[:a]) + n(text) - n(text[:a])


def test_each_distinct_header_is_encoded_once(monkeypatch):
    """guide.md in 30 chunks under `path` (17 distinct headers): the embedded counts cost one
    encoding per distinct header, not one per chunk (10 MB of markdown: 5.9 s against 0.33 s
    without a header, now 0.75 s; python -m bench.context_header)."""
    encoded = []
    real = TiktokenCounter.count
    monkeypatch.setattr(TiktokenCounter, "count", lambda self, text: encoded.append(text) or real(self, text))
    guide, params = load_document(SAMPLES / "guide.md"), {"max_char": 400, "min_char": 200}
    chunk_document(guide, "markdown", params)
    without = collections.Counter(encoded)
    encoded.clear()
    cs = chunk_document(guide, "markdown", params, context_header="path")
    heads = {c.embed_text[: len(c.embed_text) - len(c.text)] for c in cs.chunks}
    assert len(cs.chunks) > len(heads) > 1
    # three chunks open with a line feed: the seam is no anchor, the one after that line feed is
    opening = [(c.embed_text[: len(c.embed_text) - len(c.text)], c.text[:1]) for c in cs.chunks if c.text[0] == "\n"]
    assert len(opening) == 3 and all(
        first_line_anchor("cl100k_base", c.text) == 1 for c in cs.chunks if c.text[0] == "\n"
    )
    added = [*heads, *(head + lf for head, lf in opening), *(lf for _, lf in opening)]
    assert sorted((collections.Counter(encoded) - without).elements()) == sorted(added)  # 23 encodings, not 30
    assert [c.embed_tokens for c in cs.chunks] == [count(c.embed_text) for c in cs.chunks]
