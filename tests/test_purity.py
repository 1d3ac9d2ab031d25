"""The engine and formats must stay importable without the UI stack (headless servers, workers)."""

import subprocess
import sys


def test_engine_and_formats_do_not_import_textual_or_rich():
    code = (
        "import sys, chunktui.engine, chunktui.formats\n"
        "from chunktui.engine import all_strategies\n"
        "all_strategies()\n"
        "bad = [m for m in ('textual', 'rich') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
