"""A command imports only what it uses: every module a short run imports is start-up time
the user waits for (issue 20's targets: `--version` in 150 ms, a 1 KB file in 350 ms)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the libraries a recursive chunking of markdown to JSONL has no use for (rich: no progress bar is
# drawn without a terminal; the PDF, HTML and DOCX readers), and the app's
HEAVY = ("textual", "rich", "tree_sitter", "yaml", "webvtt", "email.policy", "email.utils", "model2vec",
         "pypdfium2", "trafilatura", "docx", "lxml")
# the engine proper: --version needs none of it (errors and the token constants are all cli/commands.py names)
ENGINE = ("chunktui.engine.readers.documents", "chunktui.engine.core.model", "chunktui.engine.run",
          "chunktui.engine.strategies", "chunktui.engine.core.token_index", "chunktui.engine.readers.mail",
          "chunktui.formats", "tiktoken", "rich")


def loaded_after(args: list[str], cwd: Path) -> tuple[str, set[str]]:
    """(stdout, the modules imported) of `chunktui ARGS` run in a fresh interpreter."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('MODULES:' + ' '.join(sorted(sys.modules))))\n"
            "from chunktui.cli import main\n"
            f"sys.exit(main({args!r}))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    out, _, modules = proc.stdout.rpartition("MODULES:")
    return out, set(modules.split())


def _hits(modules: set[str], names) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_chunking_markdown_with_recursive_imports_no_parser_it_does_not_use(tmp_path):
    (tmp_path / "x.md").write_text("# Notes\n\nA paragraph of text.\n\n## More\n\nAnother one.\n")
    out, modules = loaded_after(["chunk", "x.md", "-s", "recursive", "-f", "jsonl", "-o", "out"], tmp_path)
    assert "into 1 chunk" in out
    assert (tmp_path / "out" / "chunks.jsonl").is_file()
    assert _hits(modules, HEAVY) == []


def test_version_imports_neither_the_engine_nor_the_commands_libraries(tmp_path):
    out, modules = loaded_after(["--version"], tmp_path)
    assert out.startswith("chunktui, version ")
    assert _hits(modules, ENGINE + HEAVY) == []
