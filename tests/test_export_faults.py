"""Export faults (issue 19): source names that are not UTF-8."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli import cli
from chunktui.engine import chunk_document, load_document
from chunktui.formats.export import export_chunkset, verify_export

TEXT = "# Guide\n\nalpha beta\r\ncafé 🚀\n\n## Two\ngamma\ndelta\n" * 4


@pytest.fixture
def work(tmp_path, monkeypatch):
    folder = tmp_path / "w"
    folder.mkdir()
    monkeypatch.chdir(folder)
    Path("guide.md").write_text(TEXT, encoding="utf-8", newline="")
    return folder


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    """Lock files and temporary or set-aside folders an export left beside its targets."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def earlier_export(fmt="json") -> dict:
    export_chunkset(chunk_document(load_document("guide.md"), "lines", {"size": 3, "overlap": 1}), "out", fmt)
    return snapshot(Path("out"))


def run(*args):
    return CliRunner().invoke(cli, list(args))


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and "Traceback" not in result.stderr, result.stderr
    errors = [line for line in lines if not line.startswith("chunktui: warning:")]
    assert len(errors) == 1 and errors[0].startswith("chunktui: error: "), result.stderr
    return errors[0]


def is_export_of(folder: Path, fmt: str) -> bool:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    files = [Path(c["file"]).name for c in manifest["chunks"]]
    return manifest["format"] == fmt and verify_export(folder, fmt, files) is None


# --- source names that are not UTF-8 ----------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "yaml"])
def test_a_source_name_that_is_not_utf8_is_chunked_and_escaped(work, fmt):
    name = os.fsdecode(b"caf\xe9 notes.md")
    Path(name).write_text(TEXT, encoding="utf-8")
    result = run("chunk", name, "-s", "lines", "-f", fmt)
    assert result.exit_code == 0, result.stderr
    out = Path("chunks/caf%E9 notes-md")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"] == "caf\\xe9 notes.md" and manifest["source_name_bytes"] == "caf\\xe9 notes.md"
    assert manifest["output_dir"] == "chunks/caf%E9 notes-md/"
    assert is_export_of(out, fmt)


def test_source_name_bytes_tells_an_escape_from_a_literal_backslash(work):
    raw = b"x\\xe9-\xe9.md"  # a literal backslash-x-e-9, then the byte 0xE9
    Path(os.fsdecode(raw)).write_text(TEXT, encoding="utf-8")
    assert run("chunk", os.fsdecode(raw), "-s", "lines", "-o", "out").exit_code == 0
    manifest = json.loads(Path("out/manifest.json").read_text(encoding="utf-8"))
    assert manifest["source"] == "x\\xe9-\\xe9.md"  # both shown alike
    escaped = manifest["source_name_bytes"].encode("ascii")
    assert re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m[1], 16)]), escaped) == raw
    plain = export_chunkset(chunk_document(load_document("guide.md"), "lines", {}), "plain", "text")
    assert "source_name_bytes" not in json.loads(plain.manifest_path.read_text())
