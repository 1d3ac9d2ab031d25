"""Exports are verified and atomic: a failed or interrupted export leaves the earlier output as it was."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document
from chunktui.formats import export as export_mod
from chunktui.formats.export import ExportError, export_chunkset, verify_export

TEXT = "# Title\n\nalpha beta\r\ncafé 🚀\n\n## Two\ngamma\ndelta\n" * 3


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("doc.md").write_text(TEXT, encoding="utf-8", newline="")
    return tmp_path


def chunkset():
    return chunk_document(load_document("doc.md"), "lines", {"size": 3, "overlap": 1})


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    """Temporary or set-aside folders an export left beside its target."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def earlier_export(fmt="json"):
    export_chunkset(chunkset(), "out", fmt)
    return snapshot(Path("out"))


def patch_writer(monkeypatch, fmt, after):
    """Run the real `fmt` writer, then `after(folder)` (which may tamper or raise)."""
    real = export_mod.WRITERS[fmt]

    def writer(cs, folder):
        names = real(cs, folder)
        after(folder)
        return names

    monkeypatch.setitem(export_mod.WRITERS, fmt, writer)


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "yaml"])
def test_each_format_verifies_and_a_changed_chunk_is_caught(work, fmt):
    cs = chunkset()
    result = export_chunkset(cs, "out", fmt)
    files = [f["file"].rsplit("/", 1)[-1] for f in json.loads(result.manifest_path.read_text())["chunks"]]
    assert verify_export(result.out_dir, fmt, files) is None
    first = next(i for i, c in enumerate(cs.chunks) if "gamma" in c.text)
    target = result.out_dir / files[first]
    target.write_bytes(target.read_bytes().replace(b"gamma", b"GAMMA", 1))
    problem = verify_export(result.out_dir, fmt, files)
    changed = cs.chunks[first].id
    assert problem is not None and changed in problem and "sha256" in problem


def test_a_file_corrupted_while_writing_fails_and_keeps_the_earlier_output(work, monkeypatch):
    before = earlier_export()
    patch_writer(monkeypatch, "text", lambda folder: (folder / "chunk-0002.txt").write_text("garbage"))
    with pytest.raises(ExportError) as err:
        export_chunkset(chunkset(), "out", "text", force=True)
    assert "out" in str(err.value) and "chunk-0002" in str(err.value) and "verification failed" in str(err.value)
    assert snapshot(Path("out")) == before
    assert leftovers(work) == []


def test_a_missing_manifest_entry_fails_verification(work, monkeypatch):
    real = export_mod.build_manifest
    monkeypatch.setattr(export_mod, "build_manifest", lambda *a: {**real(*a), "chunks": real(*a)["chunks"][:-1]})
    with pytest.raises(ExportError, match="lists"):
        export_chunkset(chunkset(), "out", "text")
    assert not Path("out").exists() and leftovers(work) == []


def test_full_disk_is_one_clear_error_and_leaves_nothing_behind(work, monkeypatch):
    before = earlier_export()

    def full(folder):
        raise OSError(errno.ENOSPC, "No space left on device")

    patch_writer(monkeypatch, "text", full)
    with pytest.raises(ExportError) as err:
        export_chunkset(chunkset(), "out", "text", force=True)
    assert err.value.path == "out" and "disk full" in err.value.problem
    assert snapshot(Path("out")) == before
    assert leftovers(work) == []


def test_full_disk_in_the_cli_exits_2_with_one_line(work, monkeypatch):
    def full(folder):
        raise OSError(errno.ENOSPC, "No space left on device")

    patch_writer(monkeypatch, "text", full)
    result = CliRunner().invoke(cli, ["chunk", "doc.md", "-s", "lines", "-o", "out"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: ") and "disk full" in lines[0]
    assert "out" in lines[0] and "Traceback" not in result.stderr
    assert not Path("out").exists() and leftovers(work) == []


def test_interrupt_while_writing_keeps_the_earlier_output(work, monkeypatch):
    before = earlier_export()

    def interrupt(folder):
        raise KeyboardInterrupt

    patch_writer(monkeypatch, "text", interrupt)
    with pytest.raises(KeyboardInterrupt):
        export_chunkset(chunkset(), "out", "text", force=True)
    assert snapshot(Path("out")) == before
    assert leftovers(work) == []


@pytest.mark.parametrize("failure", [KeyboardInterrupt, PermissionError(errno.EACCES, "Permission denied")])
def test_failure_during_the_swap_puts_the_earlier_output_back(work, monkeypatch, failure):
    """The two-rename fallback (where renameat2 cannot exchange); the exchange itself is one step."""
    before = earlier_export()
    monkeypatch.setattr(export_mod, "_exchange", lambda a, b: False)
    real_rename = export_mod.os.rename

    def rename(src, dst):
        if str(src).endswith(".tmp"):  # the finished folder moving in, after the old one moved aside
            raise failure
        real_rename(src, dst)

    monkeypatch.setattr(export_mod.os, "rename", rename)
    with pytest.raises((KeyboardInterrupt, ExportError)):
        export_chunkset(chunkset(), "out", "text", force=True)
    assert snapshot(Path("out")) == before
    assert leftovers(work) == []


def test_force_replaces_and_removes_the_old_folder(work):
    earlier_export("json")
    result = export_chunkset(chunkset(), "out", "text", force=True)
    assert not (result.out_dir / "chunks.json").exists()
    assert json.loads(result.manifest_path.read_text())["format"] == "text"
    assert leftovers(work) == []


def test_unwritable_output_folder_is_one_clear_error(work, monkeypatch):
    """Simulated (tests may run as root, which ignores permission bits)."""

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(export_mod.tempfile, "mkdtemp", refuse)
    with pytest.raises(ExportError) as err:
        export_chunkset(chunkset(), "locked/out", "text")
    assert err.value.path == "locked/out" and "Permission denied" in err.value.problem
    result = CliRunner().invoke(cli, ["chunk", "doc.md", "-s", "lines", "-o", "locked/out"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "locked/out" in result.stderr and "Permission denied" in result.stderr
    assert not Path("locked/out").exists()


# --- the check from the bytes hashed while writing (issue 20) ----------------------------------


def change_a_chunk_on_disk(folder: Path) -> None:
    path = next(p for p in sorted(folder.iterdir()) if b"gamma" in p.read_bytes())
    path.write_bytes(path.read_bytes().replace(b"gamma", b"GAMMA", 1))


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_a_chunk_file_changed_on_disk_after_writing_fails_and_keeps_the_earlier_output(work, monkeypatch, fmt):
    before = earlier_export(fmt)
    patch_writer(monkeypatch, fmt, change_a_chunk_on_disk)
    with pytest.raises(ExportError) as err:
        export_chunkset(chunkset(), "out", fmt, force=True)
    name = {"json": "chunks.json", "jsonl": "chunks.jsonl"}.get(fmt, "chunk-0")
    assert "verification failed" in str(err.value) and name in str(err.value)
    assert snapshot(Path("out")) == before
    assert leftovers(work) == []


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_json_jsonl_and_text_exports_are_checked_from_the_bytes_read_back_once(work, monkeypatch, fmt):
    def parse_back(*args):
        raise AssertionError("the export was parsed again")

    with monkeypatch.context() as patched:
        patched.setattr(export_mod, "verify_export", parse_back)
        result = export_chunkset(chunkset(), "out", fmt)
    files = [f["file"].rsplit("/", 1)[-1] for f in json.loads(result.manifest_path.read_text())["chunks"]]
    assert verify_export(result.out_dir, fmt, files) is None  # what is on disk is what the manifest says


def test_a_chunk_file_written_wrong_is_caught_by_its_hash_against_the_manifest(work, monkeypatch):
    """A text export's file is its chunk's text: the bytes hashed while writing must be the manifest's
    sha256, so a writer that writes the wrong text (and hashes what it wrote) is caught."""

    def wrong_text(cs, folder):
        names = export_mod.Written()
        for c in cs.chunks:
            with export_mod.HashedFile(folder / f"{c.id}.txt", names.sha256) as fh:
                fh.write(c.text.replace("gamma", "GAMMA").encode("utf-8"))
            names.append(f"{c.id}.txt")
        return names

    monkeypatch.setitem(export_mod.WRITERS, "text", wrong_text)
    first = next(c for c in chunkset().chunks if "gamma" in c.text)
    with pytest.raises(ExportError, match=f"verification failed.*{first.id} in {first.id}.txt does not match"):
        export_chunkset(chunkset(), "out", "text")
    assert not Path("out").exists() and leftovers(work) == []


def cut_one_text(fmt: str, field: str):
    """A writer of `fmt` with a serialization slip: the first chunk holding "gamma" loses the last
    character of its `field`, and the file's sha256 is of the bytes as written (found by review:
    since the export stopped parsing chunks.json and chunks.jsonl back, such a slip was accepted)."""
    import orjson

    real = export_mod.WRITERS[fmt]

    def writer(cs, folder):
        written = real(cs, folder)
        path = folder / written[0]
        if fmt == "jsonl":
            rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        else:
            data = orjson.loads(path.read_bytes())
            rows = data["chunks"]
        row = next(r for r in rows if "gamma" in r[field])
        row[field] = row[field][:-1]
        if fmt == "jsonl":
            raw = b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows)
        else:
            raw = orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_INDENT_2)
        path.write_bytes(raw)
        written.sha256[path.name] = hashlib.sha256(raw).hexdigest()
        return written

    return writer


@pytest.mark.parametrize("fmt, field", [("jsonl", "text"), ("json", "content"), ("json", "embed_text")])
def test_a_text_serialized_wrong_is_caught_against_the_manifest(work, monkeypatch, fmt, field):
    monkeypatch.setitem(export_mod.WRITERS, fmt, cut_one_text(fmt, field))
    first = next(c for c in chunkset().chunks if "gamma" in c.text)
    with pytest.raises(ExportError, match=f"verification failed.*{first.id} in chunks.{fmt} does not match"):
        export_chunkset(chunkset(), "out", fmt)
    assert not Path("out").exists() and leftovers(work) == []


@pytest.mark.parametrize("fmt, field", [("jsonl", "text"), ("json", "embed_text")])
def test_a_raw_text_written_for_what_a_chunk_embeds_is_one_error_line(work, monkeypatch, fmt, field):
    """With a context header a chunk embeds more than its text: a writer that put the raw text where
    the embedded one belongs is caught from the bytes read back, and the command says so in one line."""
    import orjson

    def raw_for_embedded(folder):
        path = folder / f"chunks.{fmt}"
        if fmt == "jsonl":
            rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        else:
            data = orjson.loads(path.read_bytes())
            rows = data["chunks"]
        rows[1][field] = rows[1][field].split("\n\n", 1)[1]  # the header and its blank line dropped
        raw = (
            b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows)
            if fmt == "jsonl"
            else orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_INDENT_2)
        )
        path.write_bytes(raw)
        return raw

    real = export_mod.WRITERS[fmt]

    def writer(cs, folder):
        written = real(cs, folder)
        written.sha256[f"chunks.{fmt}"] = hashlib.sha256(raw_for_embedded(folder)).hexdigest()
        return written

    monkeypatch.setitem(export_mod.WRITERS, fmt, writer)
    args = ["chunk", "doc.md", "-s", "lines", "--size", "3", "--overlap", "1", "--context-header", "title"]
    result = CliRunner().invoke(cli, [*args, "--format", fmt, "-o", "out"])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"chunktui: error: out: verification failed, nothing written: chunk-0002 in chunks.{fmt} does not match its sha256"
    ]
    assert not Path("out").exists() and leftovers(work) == []


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_the_texts_read_back_are_compared_with_the_chunks_not_hashed_again(work, monkeypatch, fmt):
    """The manifest's digests are made from the chunks' texts, so a text read back is compared with
    its chunk's: the 6 MB corpus's JSONL check took 19 ms with a sha256 of each of its 3,877 texts,
    12 ms comparing them. Only whole files are hashed (each as written and as read back)."""
    cs = chunk_document(load_document("doc.md"), "lines", {"size": 1, "overlap": 0}, context_header="title")
    assert len(cs.chunks) > 20
    hashed: list[int] = []
    real = hashlib.sha256

    def counted(data=b""):
        hashed.append(len(data))
        return real(data)

    [(c.sha256, c.embed_text) for c in cs.chunks]  # the chunks' own digests, made before the export
    monkeypatch.setattr(export_mod, "hashlib", SimpleNamespace(sha256=counted))
    export_chunkset(cs, "out", fmt)
    assert len(hashed) <= 4  # chunks.FMT and manifest.json, as written and as read back


@pytest.mark.parametrize("fmt", ["jsonl", "yaml"])
def test_an_extracted_text_written_short_is_caught_against_the_manifest(work, monkeypatch, fmt):
    """source.md, the text a PDF's, HTML's or DOCX's offsets index, is checked against the
    manifest's text_sha256 (found by review: a truncated source.md was exported as it was)."""
    from chunktui.engine.readers import write_extracted_text

    def short(doc, folder):
        write_extracted_text(doc, folder)
        path = Path(folder) / "source.md"
        path.write_bytes(path.read_bytes()[:-100])

    doc = load_document(Path(__file__).parent / "fixtures" / "docs" / "libffi-the-basics.html")
    cs = chunk_document(doc, "recursive", {"size": 400, "overlap": 0})
    export_chunkset(cs, "good", fmt)  # as written, it is the manifest's text
    monkeypatch.setattr(export_mod, "write_extracted_text", short)
    with pytest.raises(ExportError, match="verification failed.*source.md on disk is not what was written"):
        export_chunkset(cs, "out", fmt)
    assert not Path("out").exists() and leftovers(work) == []


def test_a_manifest_changed_on_disk_after_writing_is_caught(work, monkeypatch):
    real = export_mod._disk_differs

    def change_the_manifest(folder, digests, *parsed):
        manifest = folder / "manifest.json"
        manifest.write_bytes(manifest.read_bytes().replace(b'"chunk-0002"', b'"chunk-0009"', 1))
        return real(folder, digests, *parsed)

    monkeypatch.setattr(export_mod, "_disk_differs", change_the_manifest)
    with pytest.raises(ExportError, match="verification failed.*manifest.json on disk is not what was written"):
        export_chunkset(chunkset(), "out", "jsonl")
    assert not Path("out").exists() and leftovers(work) == []


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_a_text_holding_a_lone_surrogate_is_one_clear_error(work, fmt):
    """A Document made from a str may hold one (an API caller decoding with surrogateescape); UTF-8
    cannot hold it, and orjson refuses it with a TypeError of its own: both are one error."""
    doc = load_document("doc.md")
    odd = type(doc).from_text(TEXT.replace("beta", "b\udce9ta"), path="doc.md")
    cs = chunk_document(odd, "lines", {"size": 3, "overlap": 1})
    with pytest.raises(ExportError, match="cannot write a chunk as UTF-8 .*surrogates not allowed"):
        export_chunkset(cs, "out", fmt)
    assert not Path("out").exists() and leftovers(work) == []


@pytest.mark.parametrize("absolute", [False, True])
def test_the_manifest_names_each_chunk_file_as_display_path_does(work, absolute):
    from chunktui.formats.records import display_path

    out = (work.parent / "elsewhere") if absolute else Path("out")  # outside the working folder: shown whole
    result = export_chunkset(chunkset(), out, "text")
    shown = [c["file"] for c in json.loads(result.manifest_path.read_text())["chunks"]]
    assert shown == [display_path(out / f"{c.id}.txt") for c in chunkset().chunks]
    assert shown[0] == (f"{out.as_posix()}/chunk-0001.txt" if absolute else "out/chunk-0001.txt")


def test_a_jsonl_export_is_hashed_and_written_in_batches_not_a_line_at_a_time(work, monkeypatch):
    """3,484 lines of the 6 MB bench corpus took 26-31 ms of CPU to hash and write one by one,
    15-16 ms in batches of a megabyte; what is on disk is still what was hashed (the check passes)."""
    import argparse

    Path("argparse.py").write_text(Path(argparse.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    cs = chunk_document(load_document("argparse.py"), "recursive", {"size": 300, "overlap": 30})
    writes: list[int] = []
    real_open = open

    class Counted:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            writes.append(len(data))
            return self.fh.write(data)

        def close(self):
            self.fh.close()

    def counted_open(path, mode="r", *args, **kwargs):
        fh = real_open(path, mode, *args, **kwargs)
        return Counted(fh) if mode == "wb" and Path(path).name == "chunks.jsonl" else fh

    monkeypatch.setattr(export_mod, "open", counted_open, raising=False)
    monkeypatch.setattr(export_mod.HashedFile, "BATCH", 16 * 1024, raising=False)
    export_chunkset(cs, "out", "jsonl")
    data = Path("out/chunks.jsonl").read_bytes()
    assert data.count(b"\n") == len(cs.chunks) > 300
    assert sum(writes) == len(data) and len(writes) <= len(data) // (16 * 1024) + 1
