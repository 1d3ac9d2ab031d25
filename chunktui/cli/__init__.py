"""The command line: the click group and its commands (commands.py), one module per larger command
(eval, serve, search, parallel `chunk --jobs`) and the modules only the command line uses (plan,
inspect, and reports: what sweep, compare and the quality and facts lines print).
`chunktui.cli:main` is the console script; `python -m chunktui` runs it too."""

import sys

__all__ = ["main"]


def main(argv=None):
    """The console script. `chunktui --version` is answered here, as click's version option words it,
    before click and the command tree are imported: they are two thirds of its start-up."""
    if (sys.argv[1:] if argv is None else list(argv)) == ["--version"]:
        from chunktui import __version__

        from chunktui.cli import stdout

        try:
            print(f"chunktui, version {__version__}")
            stdout.flush()
        except OSError as exc:
            return stdout.report(exc)
        return 0
    from chunktui.cli.commands import main as run_commands

    return run_commands(argv)
