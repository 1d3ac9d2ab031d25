"""chunks.yaml round trip: what the app reloads must be exactly what was saved, and say if the source changed."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunktui.engine import Chunk, Span, build_chunkset, chunk_document, load_document
from chunktui.engine.core.errors import DocumentError, UnknownStrategyError
from chunktui.engine.strategies import get_strategy
from chunktui.formats.records import to_plain
from chunktui.formats.store import load_chunkset, save_chunkset

SAMPLES = Path(__file__).parent.parent / "sample_docs"
CHUNK_FIELDS = [f.name for f in dataclasses.fields(Chunk)]


def default_strategy() -> str:
    for name in ("auto", "semantic", "lines"):
        try:
            return get_strategy(name).name
        except UnknownStrategyError:
            continue
    raise AssertionError("no strategy registered")


def assert_same(saved, loaded) -> None:
    """Every field of the ChunkSet and of every chunk comes back as saved (metadata as plain data)."""
    assert (loaded.strategy, loaded.params, loaded.tokenizer) == (
        saved.strategy,
        to_plain(saved.params),
        saved.tokenizer,
    )
    assert (loaded.warnings, loaded.notes) == (saved.warnings, saved.notes)
    assert loaded.gaps == saved.gaps
    assert len(loaded.chunks) == len(saved.chunks)
    for a, b in zip(saved.chunks, loaded.chunks):
        for name in CHUNK_FIELDS:
            want, got = getattr(a, name), getattr(b, name)
            if name == "metadata":
                want, got = to_plain(want), dict(got)
            assert got == want, f"{a.id}.{name}"
        assert b.text == loaded.document.text[b.start : b.end]


@pytest.mark.parametrize("name", ["guide.md", "inventory.py", "talk.vtt", "service.log", "orders.csv", "threads.mbox"])
def test_round_trip_sample_docs(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / name, name)
    cs = chunk_document(load_document(name), default_strategy())
    save_chunkset(cs, "chunks.yaml")
    loaded = load_chunkset("chunks.yaml")
    assert loaded.source_found and loaded.source_matches
    assert loaded.source_path.resolve() == (tmp_path / name).resolve()
    assert loaded.chunkset.document.text == cs.document.text
    assert loaded.chunkset.document.sha256 == cs.document.sha256
    assert_same(cs, loaded.chunkset)


def _gappy(folder: Path):
    text = "keep one\nskip\nskip é\nkeep two\r\nkeep three\nlast skipped\n"
    (folder / "g.txt").write_text(text, encoding="utf-8", newline="")
    doc = load_document(folder / "g.txt")
    ls = doc.line_start
    spans = [Span(0, ls(2), "line", "one"), Span(ls(4), ls(6), "line", "two", metadata={"t": (1, "x")})]
    return build_chunkset(
        doc,
        spans,
        strategy="lines",
        params={"chunk_lines": 1, "overlap_lines": 0},
        tokenizer="cl100k_base",
        declared_gaps=[(ls(2), ls(4), "sampled out")],
    )


def test_changed_source_is_detected_and_saved_chunks_kept(tmp_path):
    cs = _gappy(tmp_path)
    save_chunkset(cs, tmp_path / "chunks.yaml")
    (tmp_path / "g.txt").write_text("something else entirely\n", encoding="utf-8")
    loaded = load_chunkset(tmp_path / "chunks.yaml")
    assert loaded.source_found and not loaded.source_matches
    assert_same(cs, loaded.chunkset)
    assert any("missing or changed" in w for w in loaded.chunkset.document.warnings)


def test_missing_source_rebuilds_a_document_with_the_same_lines(tmp_path):
    cs = _gappy(tmp_path)
    (tmp_path / "saved").mkdir()
    save_chunkset(cs, tmp_path / "saved" / "chunks.yaml")
    (tmp_path / "g.txt").unlink()
    loaded = load_chunkset(tmp_path / "saved" / "chunks.yaml")
    assert not loaded.source_found and not loaded.source_matches and loaded.source_path is None
    doc = loaded.chunkset.document
    assert len(doc.text) == len(cs.document.text) and doc.line_count == cs.document.line_count
    assert doc.sha256 == cs.document.sha256  # it stands for the original source
    for c in loaded.chunkset.chunks:
        assert doc.text[c.start : c.end] == c.text
        assert doc.line_range(c.start, c.end) == (c.start_line, c.end_line)
    assert_same(cs, loaded.chunkset)


def test_source_found_relative_to_the_yaml_after_moving_both(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "proj").mkdir()
    cs = _gappy(tmp_path / "proj")
    save_chunkset(cs, tmp_path / "proj" / "chunks.yaml")
    shutil.move(tmp_path / "proj", tmp_path / "moved")
    loaded = load_chunkset(tmp_path / "moved" / "chunks.yaml")
    assert loaded.source_found and loaded.source_matches


@pytest.mark.parametrize(
    "content, problem",
    [
        ("chunks: [\n", "not valid YAML"),
        ("- 1\n", "not a chunks.yaml"),
        (
            "source: {path: x, chars: 3}\nchunks:\n- {id: c, start_char: 0, end_char: 3, start_line: 1, end_line: 1, "
            "tokens: 1, sha256: x, text: ab}\n",
            "text has 2 chars",
        ),
        (
            "source: {path: x, chars: 3}\nchunks:\n- {id: c, start_char: 0, end_char: 3}\n",
            "chunks[0] (c).text: missing",
        ),
    ],
)
def test_broken_files_name_the_file_and_the_problem(tmp_path, content, problem):
    f = tmp_path / "chunks.yaml"
    f.write_text(content)
    with pytest.raises(DocumentError) as err:
        load_chunkset(f)
    assert str(f) in str(err.value) and problem in str(err.value)


TRICKY = st.lists(
    st.sampled_from(list("ab \t\n#:-'\"|é😀") + ["\r\n", "\x85", "\u2028", "\ufeff", "  \n"]), max_size=40
).map("".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TRICKY, cuts=st.lists(st.integers(0, 60), max_size=6), keep_source=st.booleans())
def test_round_trip_any_text(tmp_path, text, cuts, keep_source):
    (tmp_path / "t.txt").write_text(text, encoding="utf-8", newline="")
    doc = load_document(tmp_path / "t.txt")
    text = doc.text
    points = sorted({0, len(text), *(min(c, len(text)) for c in cuts)})
    # every other piece becomes a gap, so rebuilding has to place newlines in uncovered text too
    spans = [
        Span(a, b, "size", repr(text[a:b][:5]), metadata={"piece": i})
        for i, (a, b) in enumerate(zip(points, points[1:]))
        if i % 2 == 0
    ]
    cs = build_chunkset(doc, spans, strategy="lines", params={"chunk_lines": 1, "overlap_lines": 0}, tokenizer="chars")
    if not keep_source:
        (tmp_path / "t.txt").write_text("changed", encoding="utf-8")
    save_chunkset(cs, tmp_path / "chunks.yaml")
    loaded = load_chunkset(tmp_path / "chunks.yaml")
    assert loaded.source_matches == keep_source
    assert_same(cs, loaded.chunkset)
    assert loaded.chunkset.document.line_count == doc.line_count


def pure_python_yaml(data) -> str:
    """chunks.yaml's bytes as the pure-Python emitter writes the whole document (chunktui's format)."""
    import yaml

    from chunktui.formats.yamlio import _represent_str

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(str, _represent_str)
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


def test_chunks_yaml_is_the_pure_python_emitters_with_libyaml_writing_the_chunks_it_writes_alike(tmp_path, monkeypatch):
    """libyaml's emitter (several times faster) writes the runs of chunks whose strings it writes as the
    pure-Python one does; the rest (a tab, a CR, an emoji, a space before a line break, a text
    ending in a blank line: `|+`, which a stream alone ends with "...") go through the pure-Python
    one, and the file is byte for byte the pure-Python emitter's."""
    import yaml

    from chunktui.formats.store import store_data
    from chunktui.formats.yamlio import _emitted_alike, dump_yaml

    source = tmp_path / "mixed.txt"
    source.write_bytes(b"".join((SAMPLES / name).read_bytes() for name in ("guide.md", "orders.tsv", "service.log")))
    data = store_data(chunk_document(load_document(source), "lines", {"chunk_lines": 4, "overlap_lines": 1}), tmp_path)
    alike = [_emitted_alike(c) for c in data["chunks"]]
    ends_open = [c["text"].endswith("\n\n") for c in data["chunks"]]
    assert 0 < sum(alike) < len(alike) and any(o and a for o, a in zip(ends_open, alike[1:]))
    dumpers = []
    dump = yaml.dump

    def seen(value, *args, **kwargs):
        dumpers.append(kwargs["Dumper"].__mro__[1].__name__)
        return dump(value, *args, **kwargs)

    monkeypatch.setattr(yaml, "dump", seen)
    assert dump_yaml(data) == pure_python_yaml(data)
    assert {"CSafeDumper", "SafeDumper"} <= set(dumpers)


ALIKE_TEXTS = st.lists(
    st.sampled_from(
        list("ab :#-'\"|>\\{}[]&*!%@`\u00a0é中\ue000\ufffd\t\r\x85\u2028\ufeff\x00😀") + ["\n", "  ", "x" * 60]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=ALIKE_TEXTS)
def test_what_libyaml_is_given_it_writes_as_the_pure_python_emitter(text):
    """The test `dump_yaml` decides by: a string it calls alike is written the same by both
    emitters, as a chunk's text, in a list and as a short key, at the indents chunks.yaml has."""
    import yaml

    from chunktui.formats.yamlio import _emitted_alike, _represent_str

    data = [{"id": "chunk-0001", "text": text, "metadata": {"header_path": [text], (text[:40] or "k"): 1}}]
    if not _emitted_alike(data):
        return

    class Fast(yaml.CSafeDumper):
        pass

    Fast.add_representer(str, _represent_str)
    fast = yaml.dump(data, Dumper=Fast, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)
    assert fast == pure_python_yaml(data)
