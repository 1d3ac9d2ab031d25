"""`python -m chunktui` is the `chunktui` command (how `chunktui serve` starts the app for each browser tab)."""

from chunktui.cli import main

main()
