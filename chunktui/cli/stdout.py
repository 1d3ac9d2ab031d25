"""When a command's output cannot be written: a full disk or a failing device (`> /dev/full`) is
one line `chunktui: error: stdout: <problem>` and exit 2, like any bad input, and a reader that went
away (`| head -1`) stays quiet, with the exit code click gives it (1).

click.echo writes and flushes everything the commands print, so a failed write is told by where it
was raised (in click.echo, on file descriptor 1) rather than by replacing sys.stdout: click picks
its own wrapper of the stream, and the tests' runner replaces it too."""

from __future__ import annotations

import errno
import os
import sys

STDOUT_FD = 1
CLOSED_PIPE_EXIT = 1  # what click exits with when stdout's reader goes away mid-command
EXIT_BAD_OUTPUT = 2


def flush() -> None:
    """Write what print() left buffered now, where a failure is reported (at exit it would be a
    warning about an ignored exception and exit 120). A closed stdout (`>&-`) is None: Python
    drops what is printed to it, and so does click.echo."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _writes_stdout(stream) -> bool:
    try:
        return stream.fileno() == STDOUT_FD
    except (AttributeError, OSError, ValueError):  # an in-memory stream: not the process's stdout
        return False


def failed_on_stdout(exc: BaseException) -> bool:
    """Was `exc` raised writing or flushing the command's standard output?"""
    if not isinstance(exc, OSError) or exc.__traceback__ is None:
        return False
    import click.utils

    tb = exc.__traceback__
    while tb.tb_next is not None:  # the innermost Python frame: the write or flush is C code
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if code is flush.__code__:
        return True
    return code is click.utils.echo.__code__ and _writes_stdout(tb.tb_frame.f_locals.get("file"))


def report(exc: OSError) -> int:
    """Say why the output failed (nothing for a closed pipe) and give the exit code. Standard output
    then goes to the null device: what is still buffered for it has nowhere to fail at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, STDOUT_FD)
        os.close(devnull)
    except OSError:
        pass  # then the interpreter warns about the lost output at exit too
    if exc.errno == errno.EPIPE:
        return CLOSED_PIPE_EXIT
    say_error(f"stdout: {exc.strerror or exc}")
    return EXIT_BAD_OUTPUT


def say_error(problem: str) -> None:
    """Write `chunktui: error: <problem>` to stderr, if it can be: with stderr full or closed too
    (`> /dev/full 2>&1`) the line is lost, but the exit code still says what happened."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"chunktui: error: {problem}\n")
            sys.stderr.flush()
    except OSError:
        pass
