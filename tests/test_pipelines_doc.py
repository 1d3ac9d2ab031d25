"""docs/pipelines.md's examples run as written, from a folder holding the sample documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli

ROOT = Path(__file__).parent.parent
PAGE = (ROOT / "docs" / "pipelines.md").read_text(encoding="utf-8")
PYTHON = re.findall(r"```python\n(.*?)```", PAGE, re.S)
SHELL = re.findall(r"```\n(chunktui .*?)```", PAGE, re.S)


@pytest.fixture
def work(tmp_path, monkeypatch):
    (tmp_path / "sample_docs").symlink_to(ROOT / "sample_docs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("block", PYTHON, ids=["langchain", "llamaindex", "dask"])
def test_python_examples_run(work, block, capsys):
    exec(compile(block, "docs/pipelines.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 and all(line.split()[0].isdigit() for line in printed)


def test_command_examples_run(work):
    (block,) = SHELL
    for line in block.strip().splitlines():
        args = re.findall(r'"[^"]*"|\S+', line)[1:]
        result = CliRunner().invoke(cli, [a.strip('"') for a in args])
        assert result.exit_code == 0, (line, result.stderr)
    assert (work / "guide-db" / "chunks.db").is_file() and (work / "guide-parquet" / "chunks.parquet").is_file()
