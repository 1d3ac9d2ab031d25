"""Folder scans stay inside the folder, cannot hang on symlink loops and skip huge files, saying so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine.core.errors import ChunktuiError, DocumentError
from chunktui.formats.discover import format_size, parse_size, plan_jobs, walk_folder


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("docs/sub").mkdir(parents=True)
    Path("docs/a.md").write_text("# a\n\ntext\n")
    Path("docs/sub/b.md").write_text("# b\n\nmore\n")
    Path("outside").mkdir()
    Path("outside/secret.md").write_text("# secret\n")
    return tmp_path


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def names(paths):
    return sorted(Path(p).relative_to("docs").as_posix() for p in paths)


def test_symlinks_out_of_the_folder_are_skipped_and_named(work):
    os.symlink(work / "outside/secret.md", "docs/leak.md")
    os.symlink(work / "outside", "docs/elsewhere")
    os.symlink("a.md", "docs/alias.md")  # inside the folder: kept
    skipped = []
    found = walk_folder(Path("docs"), skipped=skipped)
    assert names(found) == ["a.md", "alias.md", "sub/b.md"]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert "outside" in reasons["leak.md"] and "not followed" in reasons["elsewhere"]


def test_symlink_loops_do_not_hang(work):
    os.symlink("..", "docs/sub/up")  # a folder loop
    os.symlink(".", "docs/self")
    os.symlink("loop2.md", "docs/loop1.md")  # a file loop
    os.symlink("loop1.md", "docs/loop2.md")
    os.symlink("nowhere.md", "docs/dangling.md")
    skipped = []
    assert names(walk_folder(Path("docs"), skipped=skipped)) == ["a.md", "sub/b.md"]
    assert {Path(s.path).name for s in skipped} == {"up", "self", "loop1.md", "loop2.md", "dangling.md"}


def test_files_over_the_limit_are_skipped_in_a_scan_but_not_when_named(work):
    Path("docs/big.log").write_text("x" * 5000 + "\n")
    skipped = []
    jobs = plan_jobs(["docs"], max_file_size=4000, skipped=skipped)
    assert names(j.source for j in jobs) == ["a.md", "sub/b.md"]
    assert [Path(s.path).name for s in skipped] == ["big.log"]
    assert "over the 4 KB limit" in skipped[0].reason
    assert [j.source.name for j in plan_jobs(["docs/big.log"], max_file_size=4000)] == ["big.log"]
    assert len(plan_jobs(["docs"], max_file_size=0)) == 3  # 0: no limit


def test_a_folder_with_every_file_skipped_is_an_error_naming_one(work):
    Path("huge").mkdir()
    Path("huge/x.txt").write_text("y" * 100)
    with pytest.raises(DocumentError, match="every supported file was skipped.*x.txt"):
        plan_jobs(["huge"], max_file_size=10)


@pytest.mark.parametrize(
    "text,size",
    [("100MB", 10**8), ("20 mb", 2 * 10**7), ("1.5GB", 15 * 10**8), ("512KiB", 512 * 1024), ("123", 123), ("0", 0)],
)
def test_sizes_parse(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "MB", "12 parsecs", "-5", "1e9"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(ChunktuiError):
        parse_size(text)


def test_format_size():
    assert format_size(10**8) == "100 MB" and format_size(999) == "999 bytes"


def test_cli_warns_once_per_skipped_file_and_chunks_the_rest(work):
    Path("docs/big.txt").write_text("word " * 1000)
    os.symlink(work / "outside/secret.md", "docs/leak.md")
    code, out, err = run("chunk", "docs", "-s", "lines", "--max-file-size", "2KB", "-o", "out")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("chunktui: warning: skipped")]
    assert len(warnings) == 2
    assert any("big.txt" in w and "--max-file-size" in w for w in warnings)
    assert any("leak.md" in w and "outside" in w for w in warnings)
    assert "Split 2 files" in out
    assert not Path("out/secret-md").exists() and not Path("out/big-txt").exists()
    code, _, err = run("chunk", "docs/big.txt", "-s", "lines", "--max-file-size", "2KB", "-o", "one")
    assert code == 0 and Path("one/manifest.json").is_file()


def test_cli_refuses_a_bad_size(work):
    code, _, err = run("chunk", "docs", "--max-file-size", "lots")
    assert code == 2 and "--max-file-size" in err and "Traceback" not in err


def test_a_jobs_runs_output_folder_is_not_chunked_again(tmp_path):
    """`chunk --jobs` writes index.json above its exports; a later folder run chunked it as a
    document (out/out2/index-json) until the index named chunktui."""
    from click.testing import CliRunner

    from chunktui.cli.commands import cli

    (tmp_path / "notes.md").write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["chunk", str(tmp_path), "-o", str(tmp_path / "out"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in walk_folder(tmp_path)] == ["notes.md"]
