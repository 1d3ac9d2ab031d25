"""Export faults (issue 19): what --force may replace, kills and signals at each step of an export,
concurrent runs on one target, awkward output paths and source names that are not UTF-8.

The kill tests run the real CLI in a child process that the export's test hook
(CHUNKTUI_EXPORT_PAUSE="<point>:<folder>") stops at a named step; the test then
signals it there and checks the target and what is left beside it.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document
from chunktui.formats import export as export_mod
from chunktui.formats.export import PAUSE_ENV, export_chunkset, verify_export

ROOT = Path(__file__).resolve().parents[1]
TEXT = "# Guide\n\nalpha beta\r\ncafé 🚀\n\n## Two\ngamma\ndelta\n" * 4
# The child restores Python's own SIGINT handler: a shell may start background jobs with SIGINT ignored.
CHILD = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); {patch}"
    "from chunktui.cli import main; main()"
)
NO_EXCHANGE = "import chunktui.formats.export as e; e._exchange = lambda a, b: False; "


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


# --- what --force may replace ------------------------------------------------------------------


def test_force_refuses_a_folder_whose_manifest_is_not_chunktuis(work):
    app = Path("app")
    (app / "src").mkdir(parents=True)
    (app / "manifest.json").write_text('{"manifest_version": 3, "name": "tab tidy", "version": "1.2"}')
    (app / "src" / "background.js").write_text("chrome.tabs.query({}, tabs => tabs);\n")
    line = one_error_line(run("chunk", "guide.md", "-o", "app", "--force"))
    assert "app" in line and "chunktui_version" in line
    assert (app / "src" / "background.js").exists() and leftovers(work) == []


@pytest.mark.parametrize("extra", ["file", "folder", "symlink"])
def test_force_refuses_an_export_holding_anything_its_manifest_does_not_list(work, extra):
    earlier_export("text")
    if extra == "file":
        Path("out/todo.txt").write_text("mine\n")
    elif extra == "folder":
        Path("out/drafts").mkdir()
    else:
        Path("out/chunk-0001.txt").unlink()
        Path("out/chunk-0001.txt").symlink_to(Path("guide.md").absolute())
    before = snapshot(Path("out"))
    line = one_error_line(run("chunk", "guide.md", "-o", "out", "--force"))
    named = {"file": "todo.txt", "folder": "drafts", "symlink": "chunk-0001.txt"}[extra]
    assert named in line and "out" in line
    assert snapshot(Path("out")) == before


def test_force_never_replaces_the_folder_holding_the_source(work):
    earlier_export("text")
    Path("out/chunk-0002.txt").write_bytes(TEXT.encode())  # a file the manifest lists, now chunked itself
    result = run("chunk", "out/chunk-0002.txt", "-s", "lines", "-o", "out", "--force")
    line = one_error_line(result)
    assert "holds the source file chunk-0002.txt" in line
    assert Path("out/chunk-0002.txt").read_bytes() == TEXT.encode()


def test_force_never_replaces_the_working_folder(work):
    earlier_export("text")
    os.chdir("out")
    before = snapshot(Path("."))
    line = one_error_line(run("chunk", "../guide.md", "-o", ".", "--force"))
    assert "it is the working folder" in line
    assert snapshot(Path(".")) == before
    line = one_error_line(run("chunk", "../guide.md", "-o", "..", "--force"))
    assert "it holds the working folder" in line


def test_force_never_replaces_home_or_the_root_folder(work, monkeypatch):
    earlier_export("text")
    monkeypatch.setenv("HOME", str(work / "out"))  # an earlier export that is also the home folder
    before = snapshot(Path("out"))
    assert "it is the home folder" in one_error_line(run("chunk", "guide.md", "-o", "out", "--force"))
    assert snapshot(Path("out")) == before
    assert "it is the root folder" in one_error_line(run("chunk", "guide.md", "-o", "/", "--force"))


def test_force_replaces_an_export_without_chunks_in_each_format(work):
    Path("empty.md").write_text("")
    for fmt in ["json", "jsonl", "yaml", "text"]:
        result = run("chunk", "empty.md", "-s", "lines", "-f", fmt, "-o", "out", "--force")
        assert result.exit_code == 0, result.stderr
        assert json.loads(Path("out/manifest.json").read_text())["format"] == fmt
    assert leftovers(work) == []


# --- kills and signals at each step --------------------------------------------------------------


def start(work: Path, args, point=None, patch=""):
    """The CLI in a child process, stopped at `point` (it creates gate/paused and waits for gate/go)."""
    gate = work.parent / "gate"
    gate.mkdir(exist_ok=True)
    for name in ("paused", "go"):
        (gate / name).unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(PAUSE_ENV, None)
    if point:
        env[PAUSE_ENV] = f"{point}:{gate}"
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(patch=patch), *args],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if point:
        deadline = time.monotonic() + 60
        while not (gate / "paused").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
    return proc, gate


def finish(proc, timeout=60):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


NEW = ["chunk", "guide.md", "-s", "lines", "--size", "5", "--overlap", "1", "-f", "text", "-o", "out", "--force"]


@pytest.mark.parametrize("point", ["locked", "written"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_before_the_swap_keeps_the_earlier_export_and_leaves_nothing(work, point, sig):
    before = earlier_export()
    proc, _ = start(work, NEW, point)
    proc.send_signal(sig)
    code, _, err = finish(proc)
    assert code == 130 and err.strip().splitlines()[-1] == "chunktui: interrupted", err
    assert "Traceback" not in err
    assert snapshot(Path("out")) == before and leftovers(work) == []


@pytest.mark.parametrize("point, patch", [("swapped", ""), ("set-aside", NO_EXCHANGE), ("swapped", NO_EXCHANGE)])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_swap_waits_for_it_and_says_the_new_export_is_in_place(work, point, patch, sig):
    earlier_export()
    proc, gate = start(work, NEW, point, patch)
    proc.send_signal(sig)
    time.sleep(0.3)  # delivered while the swap is held at `point`
    (gate / "go").touch()
    code, _, err = finish(proc)
    assert code == 130 and "interrupted (out was written in full before it stopped)" in err, err
    assert is_export_of(Path("out"), "text") and leftovers(work) == []


@pytest.mark.parametrize(
    "point, patch, after",
    [
        ("locked", "", "earlier"),
        ("written", "", "earlier"),
        ("swapped", "", "new"),  # exchanged: the earlier export is the .tmp being deleted
        ("set-aside", NO_EXCHANGE, "missing"),  # fallback: the earlier export only in the .old
        ("swapped", NO_EXCHANGE, "new"),
    ],
)
def test_a_kill_at_each_step_is_recovered_by_the_next_run(work, point, patch, after):
    before = earlier_export()
    proc, _ = start(work, NEW, point, patch)
    proc.kill()
    finish(proc)
    assert leftovers(work), "a killed export leaves its lock and folders"
    if after == "earlier":
        assert snapshot(Path("out")) == before
    elif after == "new":
        assert is_export_of(Path("out"), "text")
    else:
        assert not Path("out").exists()
    result = run("chunk", "guide.md", "-s", "lines", "-f", "jsonl", "-o", "out")  # no --force: must not replace
    warnings = [line for line in result.stderr.splitlines() if "interrupted" in line]
    assert len(warnings) == 1 and warnings[0].startswith("chunktui: warning: out: "), result.stderr
    if after == "missing":
        assert "put back" in warnings[0]
        assert snapshot(Path("out")) == before
    else:
        assert "removed 1 leftover folder" in warnings[0]
    assert "not empty" in one_error_line(result)
    assert leftovers(work) == []


@pytest.mark.parametrize("err", [errno.EINVAL, errno.ENOSYS])
def test_a_file_system_that_cannot_exchange_falls_back_to_two_renames(work, monkeypatch, err):
    earlier_export()
    renames = []
    real_rename = export_mod.os.rename
    monkeypatch.setattr(export_mod, "_renameat2", lambda *args: -1)
    monkeypatch.setattr(ctypes, "get_errno", lambda: err)
    monkeypatch.setattr(export_mod.os, "rename", lambda a, b: renames.append(Path(b).suffix) or real_rename(a, b))
    result = run("chunk", "guide.md", "-s", "lines", "-f", "text", "-o", "out", "--force")
    assert result.exit_code == 0, result.stderr
    assert renames == [".old", "", ".tmp"]  # aside, in, and the set-aside folder to be deleted
    assert is_export_of(Path("out"), "text") and leftovers(work) == []


def test_an_exchange_that_fails_otherwise_keeps_the_earlier_export(work, monkeypatch):
    before = earlier_export()
    monkeypatch.setattr(export_mod, "_renameat2", lambda *args: -1)
    monkeypatch.setattr(ctypes, "get_errno", lambda: errno.EACCES)
    line = one_error_line(run("chunk", "guide.md", "-s", "lines", "-o", "out", "--force"))
    assert "Permission denied" in line and "earlier output kept" in line
    assert snapshot(Path("out")) == before and leftovers(work) == []


def test_concurrent_force_runs_take_turns_and_the_second_one_wins(work):
    earlier_export()
    first, gate = start(work, NEW, "written")
    second, _ = start(work, ["chunk", "guide.md", "-s", "lines", "-f", "json", "-o", "out", "--force"])
    time.sleep(1.5)
    assert second.poll() is None, "the second run waits for the first one's lock"
    (gate / "go").touch()
    assert finish(first)[0] == 0 and finish(second)[0] == 0
    assert is_export_of(Path("out"), "json") and leftovers(work) == []


def test_a_second_run_gives_up_after_the_lock_wait_with_one_line(work, monkeypatch):
    before = earlier_export()
    monkeypatch.setattr(export_mod, "LOCK_WAIT_SECONDS", 0.3)
    with export_mod._exclusive(Path("out")):
        line = one_error_line(run("chunk", "guide.md", "-o", "out", "--force"))
    assert "another export to this folder is still running" in line and "waited 0.3 s" in line
    assert snapshot(Path("out")) == before and leftovers(work) == []


# --- output paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize("output", ["$PWD", ".", ""])
def test_an_empty_working_folder_is_written_into(work, output):
    Path("here").mkdir()
    os.chdir("here")
    inode = os.stat(".").st_ino
    result = run("chunk", "../guide.md", "-s", "lines", "-o", os.getcwd() if output == "$PWD" else output)
    assert result.exit_code == 0, result.stderr
    assert os.getcwd() == str(work / "here") and os.stat(".").st_ino == inode
    assert is_export_of(Path("."), "text") and leftovers(Path(".")) == []


@pytest.mark.parametrize("output", ["d" * 300, "d" * 300 + "/sub"])
def test_a_folder_name_too_long_for_the_file_system_is_one_line(work, output):
    line = one_error_line(run("chunk", "guide.md", "-o", output))
    assert "File name too long" in line
    assert leftovers(work) == []


def test_a_long_folder_name_that_fits_is_written_and_replaced(work):
    name = "d" * 250  # its temporary folder's name (".<name>.XXXXXXXX.tmp") would not fit
    for _ in range(2):
        result = run("chunk", "guide.md", "-s", "lines", "-o", name, "--force")
        assert result.exit_code == 0, result.stderr
    assert is_export_of(Path(name), "text") and leftovers(work) == []


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
