"""Writers, manifest, profiles and inspect: what a pipeline reading our output relies on.

Goldens live in tests/golden/; regenerate them with CHUNKTUI_UPDATE_GOLDENS=1 after a
deliberate schema change and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

import pytest
import yaml

from chunktui.engine import Span, build_chunkset, chunk_document, get_counter, load_document
from chunktui.engine.core.errors import ChunktuiError, DocumentError
from chunktui.formats import export as export_mod
from chunktui.formats.export import ExportError, default_output_dir, export_chunkset, register_writer, writer_names
from chunktui.cli.inspect import inspect_file, summary_lines
from chunktui.formats.manifest import build_manifest
from chunktui.formats.profiles import load_profile, save_profile
from chunktui.formats.store import load_chunkset

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("CHUNKTUI_UPDATE_GOLDENS") == "1"

# CRLF, a tab, non-ASCII and an emoji: offsets, bytes and YAML quoting all get exercised.
TEXT = (
    "# Notes\n\nIntro line with café and 🚀.\r\nsecond\tline\n\n## Part two\nalpha\nbeta  \ngamma\ntail without newline"
)


def fixed_chunkset(folder: Path):
    """A hand-made ChunkSet: overlap, a declared gap, tuple/proxy metadata and a context_text."""
    src = folder / "notes.md"
    src.write_bytes(TEXT.encode("utf-8"))
    doc = load_document("notes.md")
    ls = doc.line_start
    spans = [
        Span(
            0,
            ls(5),
            "heading",
            "# Notes",
            metadata=MappingProxyType({"header_path": ("Notes",), "extra": MappingProxyType({"k": (1, 2)})}),
        ),
        Span(ls(4), ls(6), "paragraph", "", metadata={"density": 0.5}),
        Span(
            ls(6),
            ls(9),
            "heading",
            "## Part two",
            metadata={"header_path": ["Notes", "Part two"]},
            context_text="Notes > Part two\nalpha",
        ),
    ]
    return build_chunkset(
        doc,
        spans,
        strategy="lines",
        params={"chunk_lines": 4, "overlap_lines": 1},
        tokenizer="cl100k_base",
        declared_gaps=[(ls(9), len(doc.text), "tail left out on purpose")],
        warnings=["a warning"],
        notes=["a note"],
    )


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check_golden(name: str, content: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(content, encoding="utf-8", newline="\n")
    assert path.exists(), f"missing golden {path}; run with CHUNKTUI_UPDATE_GOLDENS=1"
    assert content == path.read_text(encoding="utf-8"), f"{name} differs from its golden"


def test_manifest_matches_golden(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out/notes-md", "text")
    manifest = json.loads(result.manifest_path.read_text(encoding="utf-8"))
    created = manifest.pop("created_at")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", created)
    datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ")
    manifest["chunktui_version"] = "<version>"
    check_golden("manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def test_chunks_yaml_matches_golden(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out/notes-md", "yaml")
    text = (result.out_dir / "chunks.yaml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^chunktui_version: .*$", "chunktui_version: <version>", text)
    check_golden("chunks.yaml", text)


def test_manifest_fields_describe_every_chunk(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, None, "text")
    assert result.out_dir == Path("chunks/notes-md")
    m = json.loads(result.manifest_path.read_text(encoding="utf-8"))
    assert (m["source"], m["source_lines"], m["strategy"], m["chunk_size"], m["overlap"], m["format"]) == (
        "notes.md",
        cs.document.line_count,
        "lines",
        4,
        1,
        "text",
    )
    assert m["output_dir"] == "chunks/notes-md/"
    assert m["source_sha256"] == cs.document.sha256 and m["tokenizer"] == "cl100k_base"
    assert m["gaps"] == [
        {
            "start_char": g.start,
            "end_char": g.end,
            "start_line": g.start_line,
            "end_line": g.end_line,
            "reason": g.reason,
        }
        for g in cs.gaps
    ]
    assert m["gaps"][-1]["reason"] == "tail left out on purpose"
    enc = get_counter("cl100k_base")
    for c, entry in zip(cs.chunks, m["chunks"], strict=True):
        with open(entry["file"], encoding="utf-8", newline="") as fh:
            assert fh.read() == c.text == TEXT[entry["start_char"] : entry["end_char"]]
        assert (entry["start_line"], entry["end_line"]) == (c.start_line, c.end_line)
        assert (entry["overlap_start"], entry["overlap_end"]) == (c.overlap_prev_lines, c.overlap_next_lines)
        assert entry["tokens"] == enc.count(c.text)
        assert entry["chars"] == len(c.text)
        assert entry["end_byte"] - entry["start_byte"] == len(c.text.encode("utf-8"))
    assert m["chunks"][1]["overlap_start"] == 1 and m["chunks"][0]["overlap_end"] == 1
    assert m["chunks"][0]["metadata"] == {"header_path": ["Notes"], "extra": {"k": [1, 2]}}


def test_manifest_paths_outside_the_working_folder_are_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cs = fixed_chunkset(tmp_path)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    m = build_manifest(cs, tmp_path / "out", "text", ["a.txt"] * len(cs.chunks))
    assert m["output_dir"] == (tmp_path / "out").as_posix() + "/"
    assert m["chunks"][0]["file"] == (tmp_path / "out" / "a.txt").as_posix()


def test_text_writer_keeps_crlf_and_unicode_byte_for_byte(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out", "text")
    names = sorted(p.name for p in result.out_dir.iterdir())
    assert names == ["chunk-0001.txt", "chunk-0002.txt", "chunk-0003.txt", "manifest.json"]
    assert (result.out_dir / "chunk-0001.txt").read_bytes() == cs.chunks[0].text.encode("utf-8")
    assert b"\r\n" in (result.out_dir / "chunk-0001.txt").read_bytes()


def test_json_writer_embeds_content_and_every_field(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out", "json")
    data = json.loads((result.out_dir / "chunks.json").read_text(encoding="utf-8"))
    assert data["strategy"] == "lines" and data["params"] == {"chunk_lines": 4, "overlap_lines": 1}
    for c, entry in zip(cs.chunks, data["chunks"], strict=True):
        assert entry["content"] == c.text
        assert entry["context_text"] == c.context_text
        assert (entry["id"], entry["start_char"], entry["end_char"], entry["sha256"]) == (
            c.id,
            c.start,
            c.end,
            c.sha256,
        )
    assert data["chunks"][2]["context_text"] == "Notes > Part two\nalpha"
    manifest = json.loads(result.manifest_path.read_text(encoding="utf-8"))
    assert {e["file"] for e in manifest["chunks"]} == {"out/chunks.json"}


def test_jsonl_writer_one_vector_store_record_a_line(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out", "jsonl")
    lines = (result.out_dir / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(cs.chunks)
    records = [json.loads(line) for line in lines]
    for c, r in zip(cs.chunks, records):
        assert r["id"] == c.id and r["text"] == c.embed_text  # what to embed: the context text where there is one
        meta = r["metadata"]
        assert meta["embed_tokens"] == c.embed_tokens
        assert (meta["source"], meta["start_char"], meta["end_char"], meta["tokens"], meta["boundary"]) == (
            "notes.md",
            c.start,
            c.end,
            c.tokens,
            c.boundary_type,
        )
        assert meta["lines"] == f"{c.start_line}-{c.end_line}"
    assert "context_text" not in records[0] and records[2]["context_text"] == "Notes > Part two\nalpha"
    assert records[2]["metadata"]["header_path"] == ["Notes", "Part two"]
    assert records[2]["metadata"]["label"] == "Notes > Part two"


def test_yaml_writer_reloads_as_the_same_chunks(workdir):
    cs = fixed_chunkset(workdir)
    result = export_chunkset(cs, "out", "yaml")
    loaded = load_chunkset(result.out_dir / "chunks.yaml")
    assert loaded.source_found and loaded.source_matches
    assert [c.text for c in loaded.chunkset.chunks] == [c.text for c in cs.chunks]


def test_refuses_non_empty_folder_without_force_and_replaces_with_it(workdir):
    cs = fixed_chunkset(workdir)
    export_chunkset(cs, "out", "json")
    with pytest.raises(ExportError) as err:
        export_chunkset(cs, "out", "text")
    assert "out" in str(err.value) and "--force" in str(err.value)
    assert sorted(p.name for p in Path("out").iterdir()) == ["chunks.json", "manifest.json"]
    export_chunkset(cs, "out", "text", force=True)
    assert sorted(p.name for p in Path("out").iterdir()) == [
        "chunk-0001.txt",
        "chunk-0002.txt",
        "chunk-0003.txt",
        "manifest.json",
    ]
    assert sorted(p.name for p in workdir.iterdir()) == ["notes.md", "out"]  # no temp or backup folder left


def test_force_never_replaces_a_folder_that_is_not_an_export(workdir):
    cs = fixed_chunkset(workdir)
    Path("project").mkdir()
    Path("project/keep.txt").write_text("mine")
    with pytest.raises(ExportError, match="not an earlier export"):
        export_chunkset(cs, "project", "text", force=True)
    assert Path("project/keep.txt").read_text() == "mine"


def test_force_reads_the_earlier_manifest_once_and_again_when_it_changes(workdir, monkeypatch):
    """--force checks its target before writing, under the lock and before the swap: the earlier
    manifest is parsed once (a 3,900-chunk one is 2.7 MB), and again only if it was rewritten."""
    cs = fixed_chunkset(workdir)
    export_chunkset(cs, "out", "jsonl")
    parsed = []
    loads = export_mod.orjson.loads

    def counted(data):  # manifests only: the check of the new export parses its chunks.jsonl's rows
        if b'"chunktui_version"' in bytes(data):
            parsed.append(len(data))
        return loads(data)

    monkeypatch.setattr(export_mod.orjson, "loads", counted)
    export_mod.check_target("out", force=True)
    export_chunkset(cs, "out", "jsonl", force=True)
    assert len(parsed) == 1
    manifest = Path("out/manifest.json")
    listed = json.loads(manifest.read_text())
    Path("out/keep.txt").write_text("mine")
    assert (
        export_mod.not_an_export(Path("out"))
        == "it is not an earlier export (keep.txt is not listed in its manifest.json)"
    )
    listed["files"].append("keep.txt")  # same size as before? no matter: a rewrite is read again
    manifest.write_text(json.dumps(listed))
    assert export_mod.not_an_export(Path("out")) is None
    manifest.write_text(json.dumps({"chunks": []}))
    assert "no chunktui_version" in export_mod.not_an_export(Path("out"))


def test_output_inside_a_file_is_a_clear_error(workdir):
    cs = fixed_chunkset(workdir)
    Path("afile").write_text("x")
    with pytest.raises(ExportError, match="afile is a file"):
        export_chunkset(cs, "afile/out", "text")
    with pytest.raises(ExportError, match="not a folder"):
        export_chunkset(cs, "afile", "text")


def test_a_failing_writer_leaves_nothing_behind(workdir):
    cs = fixed_chunkset(workdir)

    @register_writer("explodes")
    def explodes(chunkset, folder):
        (folder / "half.txt").write_text("half")
        raise RuntimeError("disk on fire")

    try:
        with pytest.raises(RuntimeError):
            export_chunkset(cs, "out", "explodes")
    finally:
        del export_mod.WRITERS["explodes"]
    assert sorted(p.name for p in workdir.iterdir()) == ["notes.md"]


def test_registered_writer_is_a_format(workdir):
    cs = fixed_chunkset(workdir)

    @register_writer("ids")
    def ids(chunkset, folder):
        (folder / "ids.txt").write_text("\n".join(c.id for c in chunkset.chunks))
        return ["ids.txt"] * len(chunkset.chunks)

    try:
        assert "ids" in writer_names()
        result = export_chunkset(cs, "out", "ids")
    finally:
        del export_mod.WRITERS["ids"]
    assert (result.out_dir / "ids.txt").read_text() == "chunk-0001\nchunk-0002\nchunk-0003"
    assert json.loads(result.manifest_path.read_text())["format"] == "ids"
    assert sorted(p.name for p in result.files) == ["ids.txt", "manifest.json"]


def test_unknown_format_is_an_error():
    with pytest.raises(ExportError, match="unknown format 'xml'"):
        export_chunkset(None, "out", "xml")


def test_default_output_dir_dashes_the_file_name():
    assert default_output_dir("src/auth/middleware.ts") == Path("chunks/middleware-ts")
    assert default_output_dir("guide.md") == Path("chunks/guide-md")


def test_profile_round_trip_and_validation(tmp_path):
    path = save_profile(tmp_path / "p.yaml", "fixed-count", {"size": "50"}, "o200k_base")
    profile = load_profile(path)
    assert (profile.strategy, profile.params, profile.tokenizer) == (
        "lines",
        {"chunk_lines": 50, "overlap_lines": 20, "max_tokens": 512},
        "o200k_base",
    )
    bad = {
        "unknown param": "strategy: lines\nparams: {min_char: 5}\n",
        "out of range": "strategy: lines\nparams: {size: -1}\n",
        "overlap too big": "strategy: lines\nparams: {size: 5, overlap: 5}\n",
        "unknown strategy": "strategy: nosuch\n",
        "unknown tokenizer": "strategy: lines\ntokenizer: gpt2\n",
        "not a mapping": "- a\n- b\n",
        "bad yaml": "strategy: [\n",
    }
    for why, content in bad.items():
        f = tmp_path / "bad.yaml"
        f.write_text(content)
        with pytest.raises(DocumentError) as err:
            load_profile(f)
        assert str(f) in str(err.value), why


def test_inspect_reports_sizes_duplicates_and_a_sample(workdir):
    Path("dup.txt").write_text("same line\nsame line\nother\n")
    doc = load_document("dup.txt")
    cs = chunk_document(doc, "lines", {"size": 1, "overlap": 0})
    for fmt in ("yaml", "text", "json", "jsonl"):
        result = export_chunkset(cs, f"out-{fmt}", fmt)
        target = result.out_dir / "chunks.yaml" if fmt == "yaml" else result.manifest_path
        insp = inspect_file(target)
        assert [c.tokens for c in insp.chunks] == [c.tokens for c in cs.chunks]
        assert all(c.text is not None for c in insp.chunks), fmt
        report = "\n".join(summary_lines(insp))
        assert "chunks     3" in report
        assert "duplicates chunk-0001 = chunk-0002" in report
        assert re.search(r"sample     chunk-000\d", report)
    with pytest.raises(ChunktuiError):
        inspect_file("dup.txt")


def test_metadata_of_any_strategy_serialises(workdir):
    """Whatever a registered strategy puts in metadata must survive JSON and YAML."""
    from chunktui.engine import all_strategies

    Path("doc.md").write_text("# A\n\nsome text\n\n## B\n\nmore text here\n")
    doc = load_document("doc.md")
    for strat in all_strategies():
        try:
            cs = chunk_document(doc, strat.name)
        except ChunktuiError:
            continue  # a strategy for another kind of file may refuse markdown
        json.dumps(build_manifest(cs, "out", "text", ["x"] * len(cs.chunks)))
        result = export_chunkset(cs, f"out-{strat.name}", "yaml")
        assert yaml.safe_load((result.out_dir / "chunks.yaml").read_text(encoding="utf-8"))["strategy"] == cs.strategy
