"""A command whose output cannot be written: a full disk (`> /dev/full`) is one line
`chunktui: error: stdout: <problem>` and exit 2, and a reader that went away (`| head -1`) is quiet.
The commands run in child processes: the failure is the real file descriptor's, as a shell gives it,
with Python's stdout buffered (a file) and unbuffered (PYTHONUNBUFFERED, as CI runners set)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
GUIDE = ROOT / "sample_docs" / "guide.md"


def child(argv: list[str], stdout, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """(exit code, stderr) of `argv` with its stdout on `stdout`, importing this checkout's chunktui."""
    done = subprocess.run(
        argv,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=cwd,
        timeout=120,
    )
    return done.returncode, done.stderr


def chunktui(args, stdout, unbuffered: bool, cwd: Path) -> tuple[int, str]:
    env = dict(os.environ)
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return child([sys.executable, "-m", "chunktui", *map(str, args)], stdout, cwd, env)


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


def shell(command: str, cwd: Path) -> tuple[int, str]:
    """`chunktui ARGS` run by sh with the redirections a user types (`>&-`, `2>&1`), which no
    subprocess argument gives as such; stderr is captured unless the command redirects it."""
    argv = ["sh", "-c", f"{shlex.quote(sys.executable)} -m chunktui {command}"]
    return child(argv, subprocess.DEVNULL, cwd, dict(os.environ))


@pytest.mark.parametrize("command", ["version", "strategies", "chunk"])
def test_a_closed_stdout_is_no_error(tmp_path, command):
    """`>&-` leaves Python no stdout (sys.stdout is None): what is printed is dropped, as print()
    does, and the command succeeds; flushing it was an internal error (AttributeError), exit 1."""
    code, err = shell(shlex.join(map(str, COMMANDS[command])) + " >&-", tmp_path)
    assert (code, err) == (0, "")
    if command == "chunk":
        assert (tmp_path / "out" / "manifest.json").is_file()


@pytest.mark.parametrize("command", ["version", "strategies", "sweep"])
def test_a_full_stdout_and_stderr_is_still_exit_2(tmp_path, command):
    """`> /dev/full 2>&1`: the error line cannot be written either; the exit code still says it
    (writing the line raised, and the command ended as an internal error, exit 1)."""
    code, err = shell(shlex.join(map(str, COMMANDS[command])) + " >/dev/full 2>&1", tmp_path)
    assert (code, err) == (2, "")


def test_bad_input_with_a_full_stderr_is_still_exit_2(tmp_path):
    code, err = shell("chunk missing.md 2>/dev/full", tmp_path)
    assert (code, err) == (2, "")
