"""A command whose output cannot be written: a full disk (`> /dev/full`) is one line
`chunktui: error: stdout: <problem>` and exit 2, and a reader that went away (`| head -1`) is quiet.
The commands run in child processes: the failure is the real file descriptor's, as a shell gives it,
with Python's stdout buffered (a file) and unbuffered (PYTHONUNBUFFERED, as CI runners set)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
GUIDE = ROOT / "sample_docs" / "guide.md"


def chunktui(args, stdout, unbuffered: bool, cwd: Path) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "chunktui", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )
    return done.returncode, done.stderr


COMMANDS = {
    "version": ["--version"],
    "strategies": ["strategies"],
    "sweep": ["sweep", GUIDE, "-s", "lines"],
    "chunk": ["chunk", GUIDE, "-s", "lines", "-o", "out"],
    "eval": ["eval", GUIDE, "-s", "lines", "--auto-queries", "3"],
}


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_full_stdout_is_one_line_and_exit_2(tmp_path, command, unbuffered):
    with open("/dev/full", "w") as full:
        code, err = chunktui(COMMANDS[command], full, unbuffered, tmp_path)
    assert code == 2, err
    assert err.strip().splitlines()[-1] == "chunktui: error: stdout: No space left on device", err
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("command", ["version", "strategies", "sweep"])
def test_a_closed_pipe_stays_quiet(tmp_path, command, unbuffered):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write, as `| head -1` is after its line
    try:
        code, err = chunktui(COMMANDS[command], write_end, unbuffered, tmp_path)
    finally:
        os.close(write_end)
    assert [line for line in err.splitlines() if "warning" not in line] == [], err
    assert code in (0, 1), err  # click's code for a closed pipe, or done before it noticed
