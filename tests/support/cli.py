"""Running the command line in-process and checking its one-line errors (`chunktui: error: ...`,
exit 2, no traceback)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from chunktui.cli.commands import cli

SENTINEL = "pwned-sentinel"  # a file the !!python/object payload would create if YAML were loaded unsafely


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def assert_one_line_error(code, err, *needles):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def assert_clean_error(code, out, err, path):
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: "), err
    assert str(path) in lines[0] or path.name in lines[0], lines[0]
    assert "Traceback" not in out + err


def interrupt_folder_run(corpus: Path, out_dir: Path, copies: int, *flags: str) -> tuple[str, int]:
    """Chunk `corpus` (grown by `copies` copies of the standard library's email package, so the
    run is still going) in a child process, send SIGINT to its whole process group once a first
    export is written, as a terminal's Ctrl-C does, and check that it stopped cleanly: exit 130,
    no traceback, a last line saying how to finish. Returns stderr and the count of files the
    run says it did not chunk."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    for n in range(copies):
        shutil.copytree(
            Path(shutil.__file__).parent / "email",
            corpus / f"email{n}",
            ignore=shutil.ignore_patterns("__pycache__", "architecture.rst"),
        )
    command = [
        sys.executable,
        "-c",
        # Python leaves Ctrl-C ignored when it starts so (a shell's background job, as a CI runner
        # may start the suite): give the run the handler a terminal's shell would
        "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from chunktui.cli import main; main()",
        "chunk",
        str(corpus),
        "-o",
        str(out_dir),
        *flags,
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent.parent)}
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not any(out_dir.rglob("manifest.json")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.splitlines()[-1].endswith("not chunked; run again with --resume to finish")
    return err, int(err.splitlines()[-1].split("interrupted: ")[1].split()[0])
