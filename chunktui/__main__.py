"""`python -m chunktui` is the `chunktui` command (how `chunktui serve` starts the app for each browser tab)."""

import sys

from chunktui.cli import main

sys.exit(main())
