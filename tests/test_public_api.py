"""The public API (`import chunktui`): chunk, Chunker, load, strategies; chunks as plain values;
no change to the host's garbage collector."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import chunktui
from chunktui.engine import Document
from chunktui.formats.export import export_chunkset
from chunktui.formats.store import save_chunkset

ROOT = Path(__file__).parent.parent
GUIDE = ROOT / "sample_docs" / "guide.md"
INVENTORY = ROOT / "sample_docs" / "inventory.py"


def _sources(path: Path) -> list:
    """The same text as a path, a str and a Document."""
    text = path.read_text(encoding="utf-8")
    return [path, text, Document.from_text(text, path=str(path))]


@pytest.mark.parametrize("kind", ["path", "str", "Document"])
def test_chunk_takes_a_path_a_str_or_a_document(kind):
    source = _sources(GUIDE)[["path", "str", "Document"].index(kind)]
    cs = chunktui.chunk(source, "markdown", max_char=600, tokenizer="chars")
    text = GUIDE.read_text(encoding="utf-8")
    assert cs.strategy == "markdown" and cs.tokenizer == "chars" and len(cs.chunks) > 3
    assert cs.document.text == text
    assert all(text[c.start : c.end] == c.text and c.tokens == len(c.text) for c in cs.chunks)
    assert cs.chunks[-1].end_line == text.count("\n", 0, cs.chunks[-1].end - 1) + 1


def test_chunk_picks_a_strategy_by_default():
    cs = chunktui.chunk(INVENTORY)
    assert cs.strategy == "code" and any("auto: picked code" in n for n in cs.notes)
    with pytest.raises(TypeError, match="a path, a str or a Document"):
        chunktui.chunk(INVENTORY.read_bytes())
    with pytest.raises(chunktui.DocumentError, match="no such file"):
        chunktui.chunk(ROOT / "sample_docs" / "missing.md")


def test_a_chunker_checks_its_options_once_when_made():
    with pytest.raises(chunktui.UnknownStrategyError):
        chunktui.Chunker("no-such-strategy")
    with pytest.raises(chunktui.ParamError, match="size"):
        chunktui.Chunker("recursive", size=-3)
    with pytest.raises(chunktui.ParamError, match="not a parameter"):
        chunktui.Chunker("recursive", max_char=100)
    with pytest.raises(chunktui.ParamError, match="any strategy"):
        chunktui.Chunker("auto", sise=100)
    with pytest.raises(chunktui.ChunktuiError):
        chunktui.Chunker("recursive", tokenizer="no-such-encoding")
    chunker = chunktui.Chunker("recursive", size=300, unit="chars", tokenizer="chars")
    recursive = next(s for s in chunktui.strategies() if s.name == "recursive")
    assert chunker.params == {**recursive.defaults(), "size": 300, "unit": "chars"}  # completed with the defaults


def test_option_errors_name_keywords_and_defaults_not_command_line_flags():
    """A Python caller passed `size=100`, not `--overlap`: the error names the keyword, and says the
    overlap it complains about is the default the caller never set."""
    with pytest.raises(chunktui.ParamError) as caught:
        chunktui.Chunker("recursive", size=100)
    assert str(caught.value) == "overlap: must be smaller than size (100), got 200 (its default; pass overlap= too)"
    assert caught.value.name == "overlap"
    with pytest.raises(chunktui.ParamError, match=r"^size: ") as caught:
        chunktui.chunk("some text", "recursive", size=-3)
    assert "--" not in str(caught.value)


def test_a_chunker_is_reused_for_many_sources_of_every_kind():
    chunker = chunktui.Chunker("recursive", size=300, unit="chars", tokenizer="chars")
    seen = []
    sets = chunker.chunk_many(_sources(GUIDE), progress=lambda done, total, source: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    first = [(c.start, c.end) for c in sets[0].chunks]
    assert all([(c.start, c.end) for c in cs.chunks] == first for cs in sets)
    assert max(c.chars for c in sets[0].chunks) <= 300
    assert chunker.chunk(GUIDE).chunks == sets[0].chunks


def test_chunk_many_stops_at_the_first_bad_source_naming_it(tmp_path):
    chunker = chunktui.Chunker("lines", size=50)
    missing = tmp_path / "gone.md"
    with pytest.raises(chunktui.DocumentError, match="gone.md"):
        chunker.chunk_many([GUIDE, missing])


def test_strategies_lists_every_strategy_with_its_parameters():
    found = {s.name: s for s in chunktui.strategies()}
    assert {"auto", "recursive", "markdown", "code", "lines"} <= set(found)
    assert "max_chars" in {p.name for p in found["markdown"].params}


@pytest.mark.parametrize("fmt", ["yaml", "json", "jsonl", "text"])
def test_load_gives_back_the_saved_chunks(tmp_path, fmt):
    cs = chunktui.chunk(INVENTORY, "code", max_chunk_size=600)
    result = export_chunkset(cs, tmp_path / "out", fmt=fmt)
    for saved in (result.out_dir, result.manifest_path, *sorted(Path(result.out_dir).glob("chunks.*"))):
        if saved.suffix == ".jsonl":  # vector-store lines: loaded through the manifest beside them
            with pytest.raises(chunktui.DocumentError, match="not a saved chunks file"):
                chunktui.load(saved)
            continue
        back = chunktui.load(saved)
        expected = cs.chunks
        if saved.name == "manifest.json" or saved.is_dir() and fmt in ("jsonl", "text"):  # no context texts
            # so what they embed is their span
            expected = [
                dataclasses.replace(c, context_text=None, embed_text=c.text, embed_tokens=c.tokens) for c in cs.chunks
            ]
        assert back.chunks == expected, saved
        assert (back.strategy, back.params, back.tokenizer, back.gaps) == (
            cs.strategy,
            cs.params,
            cs.tokenizer,
            cs.gaps,
        )


def test_load_a_store_whose_source_is_gone_and_refuse_a_manifest_without_it(tmp_path):
    source = tmp_path / "guide.md"
    source.write_text(GUIDE.read_text(encoding="utf-8"), encoding="utf-8")
    cs = chunktui.chunk(source, "markdown", max_char=600)
    store = save_chunkset(cs, tmp_path / "guide.chunks.yaml")
    manifest = export_chunkset(cs, tmp_path / "out", fmt="text").manifest_path
    source.unlink()
    back = chunktui.load(store)
    assert [(c.start, c.text, c.sha256) for c in back.chunks] == [(c.start, c.text, c.sha256) for c in cs.chunks]
    assert any("missing or changed" in w for w in back.document.warnings)
    with pytest.raises(chunktui.DocumentError, match="missing or changed"):
        chunktui.load(manifest)
    with pytest.raises(chunktui.DocumentError, match="no saved chunks"):
        chunktui.load(tmp_path)


def test_chunks_are_plain_values():
    """A run's chunks (their lines, bytes and hash derived when first read): weakly referenced,
    %-formatted, converted, pickled and copied like any frozen dataclass."""
    cs = chunktui.chunk(GUIDE, "markdown", max_char=600)
    chunk = next(c for c in cs.chunks if c.metadata)
    ref = weakref.ref(chunk)
    assert ref() is chunk
    assert "%s" % chunk == str(chunk) == repr(chunk)  # noqa: UP031 - %-formatting is what is tested
    assert "%r|%d" % (chunk, chunk.index) == f"{chunk!r}|{chunk.index}"  # noqa: UP031
    as_dict = dataclasses.asdict(chunk)
    assert as_dict == chunk.to_dict() and isinstance(as_dict["metadata"], dict)
    assert type(chunk.to_dict()["metadata"]) is dict and chunk.to_dict()["metadata"] is not chunk.metadata
    assert as_dict["end_line"] == chunk.end_line and as_dict["sha256"] == chunk.sha256
    assert json.loads(json.dumps(chunk, default=chunktui.Chunk.to_dict)) == json.loads(json.dumps(as_dict))
    with pytest.raises(TypeError):
        json.dumps(chunk)  # a chunk, not a list: the encoder asks for a default
    for twin in (copy.copy(chunk), copy.deepcopy(chunk), pickle.loads(pickle.dumps(chunk))):
        assert twin == chunk and type(twin) is chunktui.Chunk and hash(twin) == hash(chunk)
    assert len(set(cs.chunks) | set(copy.deepcopy(cs.chunks))) == len(cs.chunks)  # hashable, as frozen values are
    with pytest.raises(TypeError):
        chunk.metadata["header_path"] = []
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.end_line = 3
    assert not hasattr(chunk, "__dict__") and type(chunk).__slots__ == ()  # every field is a slot of its base


def test_a_chunk_of_a_str_source_does_not_keep_the_parse_alive():
    """A document made for one run is not chunked again: what it caches for re-chunks goes."""
    code = INVENTORY.read_text(encoding="utf-8")
    mine = Document(text=code, path="inventory.py", kind="code", language="python")
    chunktui.chunk(mine, "code")
    assert mine.__dict__.get("_derived")  # a caller's document keeps it for the next run
    cs = chunktui.chunk(code, "code", language="python")
    assert not cs.document.__dict__.get("_derived")


_GC_PROBE = """
import gc, sys
from pathlib import Path
sys.path.insert(0, {root!r})
import chunktui

sources = (Path({guide!r}), Path({inventory!r}), "plain words. " * 2000)
def calls():
    for source in sources:
        chunktui.chunk(source)
        chunktui.Chunker("markdown", max_char=300).chunk_many([source])
calls()  # imports and per-process caches first
state = lambda: (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
scenario = {scenario!r}
if scenario == "disabled and frozen":
    gc.disable()
    gc.set_threshold(123, 4, 5)
    gc.freeze()
elif scenario == "enabled, rarely collecting":  # no collection during the calls: the host's young objects stay young
    gc.collect()
    gc.set_threshold(10_000_000, 7, 9)
elif scenario == "enabled, often collecting":  # collections go on during the calls
    gc.set_threshold(60, 3, 3)
    passes = []
    gc.callbacks.append(lambda phase, info: passes.append(info["generation"]) if phase == "start" else None)
before = state()
host_object = [object()]
young = any(o is host_object for o in gc.get_objects(generation=0))
calls()
assert state() == before, (before, state())
if scenario == "enabled, rarely collecting":
    assert young and any(o is host_object for o in gc.get_objects(generation=0)), "moved out of the young generation"
if scenario == "enabled, often collecting":
    assert len(passes) > 10, passes
"""


@pytest.mark.parametrize("scenario", ["disabled and frozen", "enabled, rarely collecting", "enabled, often collecting"])
def test_a_library_call_leaves_the_host_collector_as_it_was(scenario):
    """The collector's state, the generation of the host's objects and its passes during a call are
    the host's: a library call neither switches it off nor freezes and unfreezes the heap."""
    code = _GC_PROBE.format(root=str(ROOT), scenario=scenario, guide=str(GUIDE), inventory=str(INVENTORY))
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_importing_chunktui_loads_no_engine_and_chunking_no_ui():
    """`import chunktui` is cheap (a CLI's --version, a pipeline's import): the engine loads on first
    use, and a library call loads neither textual nor rich."""
    code = (
        "import sys, chunktui\n"
        "print(sorted(m for m in sys.modules if m.startswith('chunktui.')))\n"
        "chunktui.chunk('# Title\\n\\nsome words\\n'), chunktui.strategies(), chunktui.Chunk\n"
        "print(sorted(m for m in ('textual', 'rich') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.stdout.splitlines() == ["[]", "[]"]
