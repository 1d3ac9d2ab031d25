"""The command line: the click group and its commands (commands.py), one module per larger command
(eval, serve, search, parallel `chunk --jobs`) and the modules only the command line uses (plan,
inspect, quality). `chunktui.cli:main` is the console script; `python -m chunktui` runs it too."""

from chunktui.cli.commands import main

__all__ = ["main"]
