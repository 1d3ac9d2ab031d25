"""A command imports only what it uses: every module a short run imports is start-up time
the user waits for (issue 20's targets: `--version` in 150 ms, a 1 KB file in 350 ms)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the libraries a recursive chunking of markdown to JSONL has no use for (rich: no progress bar is
# drawn without a terminal; the PDF, HTML and DOCX readers), and the app's
HEAVY = (
    "textual",
    "rich",
    "tree_sitter",
    "yaml",
    "webvtt",
    "email.policy",
    "email.utils",
    "model2vec",
    "pypdfium2",
    "trafilatura",
    "docx",
    "lxml",
    "pyarrow",
)
# what a run writing JSONL to a new folder does not use: the other formats' writers (sqlite3, YAML), the
# renameat2 swap (ctypes, which imports subprocess), `serve` (socket), the reader of mailbox folders;
# and for a short ASCII file, tiktoken (small_bpe counts its tokens) and the token index (for big texts)
UNUSED_BY_CHUNK = (
    "sqlite3",
    "chunktui.formats.sqlite",
    "chunktui.formats.parquet",
    "ctypes",
    "subprocess",
    "socket",
    "chunktui.engine.readers.mail",
    "tiktoken",
    "chunktui.engine.core.token_index",
    "chunktui.formats.store",
    "chunktui.formats.yamlio",
)
# the engine proper: --version needs none of it (errors and the token constants are all cli/commands.py names)
ENGINE = (
    "chunktui.engine.readers.documents",
    "chunktui.engine.core.model",
    "chunktui.engine.run",
    "chunktui.engine.strategies",
    "chunktui.engine.core.token_index",
    "chunktui.engine.readers.mail",
    "chunktui.formats",
    "tiktoken",
    "rich",
)


def python_child(code: str, cwd: Path | None = None) -> str:
    """The stdout of `python -c code` in a fresh interpreter that imports this checkout's chunktui;
    it must succeed."""
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def loaded_after(args: list[str], cwd: Path) -> tuple[str, set[str]]:
    """(stdout, the modules imported) of `chunktui ARGS` run in a fresh interpreter."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('MODULES:' + ' '.join(sorted(sys.modules))))\n"
        "from chunktui.cli import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    out, _, modules = python_child(code, cwd).rpartition("MODULES:")
    return out, set(modules.split())


def _hits(modules: set[str], names) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_chunking_markdown_with_recursive_imports_no_parser_it_does_not_use(tmp_path):
    (tmp_path / "x.md").write_text("# Notes\n\nA paragraph of text.\n\n## More\n\nAnother one.\n")
    out, modules = loaded_after(["chunk", "x.md", "-s", "recursive", "-f", "jsonl", "-o", "out"], tmp_path)
    assert "into 1 chunk" in out
    assert (tmp_path / "out" / "chunks.jsonl").is_file()
    assert _hits(modules, HEAVY + UNUSED_BY_CHUNK) == []


STRATEGIES = "chunktui.engine.strategies"


def strategy_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(STRATEGIES + "."))


def imported_by(*names: str) -> set[str]:
    """The modules importing `names` imports, in a fresh interpreter."""
    code = f"import sys\nimport {', '.join(names)}\nprint(' '.join(sys.modules))"
    return set(python_child(code).split())


def test_a_run_naming_its_strategy_imports_no_other_strategy(tmp_path):
    """Each strategy module compiles its patterns on import; `-s recursive` needs its own alone."""
    (tmp_path / "x.md").write_text("# Notes\n\nA paragraph of text.\n\n## More\n\nAnother one.\n")
    _, modules = loaded_after(
        ["chunk", "x.md", "-s", "recursive", "--size", "300", "-f", "jsonl", "-o", "out"], tmp_path
    )
    assert strategy_modules(modules) == strategy_modules(imported_by(f"{STRATEGIES}.recursive"))


def test_a_run_giving_an_alias_imports_no_other_strategy(tmp_path):
    """A strategy's flags include its aliases (`--max-char` is markdown's --max-chars), so a line
    spelling one parses with that strategy's flags alone, not again with every strategy's."""
    (tmp_path / "x.md").write_text("# Notes\n\nA paragraph of text.\n\n## More\n\nAnother one.\n")
    out, modules = loaded_after(
        ["chunk", "x.md", "-s", "markdown", "--max-char", "300", "--chunk-overlap", "20", "-f", "jsonl", "-o", "out"],
        tmp_path,
    )
    assert "using markdown" in out
    assert strategy_modules(modules) == strategy_modules(imported_by(f"{STRATEGIES}.markdown"))


def test_version_imports_neither_the_engine_nor_the_commands_libraries(tmp_path):
    out, modules = loaded_after(["--version"], tmp_path)
    assert out.startswith("chunktui, version ")
    assert _hits(modules, ENGINE + HEAVY + ("socket", "ctypes", "sqlite3", "traceback", "click")) == []


def test_version_without_click_says_what_clicks_version_option_says(tmp_path):
    from click.testing import CliRunner

    from chunktui.cli.commands import cli

    out, _ = loaded_after(["--version"], tmp_path)
    assert out == CliRunner().invoke(cli, ["--version"]).stdout


def test_auto_imports_the_strategy_it_picks_and_no_other(tmp_path):
    """Without -s and without strategy flags, the flags of no strategy are needed to parse the line;
    and the strategy picked (prose) sizes its spans in tokens, a short text's in Python, with no
    tiktoken, even with a character beyond ASCII."""
    (tmp_path / "x.md").write_text("# Notes\n\nA paragraph of text \u2014 a dash.\n\n## More\n\nAnother one.\n")
    out, modules = loaded_after(["chunk", "x.md", "-f", "jsonl", "-o", "out"], tmp_path)
    picked = re.search(r"using (\S+)\.", out).group(1).replace("-", "_")
    expected = strategy_modules(imported_by(f"{STRATEGIES}.auto", f"{STRATEGIES}.{picked}"))
    assert strategy_modules(modules) == expected
    assert len(expected) < 8  # of the seventeen strategies' modules and their helpers
    assert _hits(modules, ("tiktoken", "chunktui.engine.core.token_index")) == []


def test_a_big_files_encode_starts_before_the_work_that_can_run_beside_it(tmp_path):
    """The encode of a big text lets go of the GIL, so what starts after it runs beside it: the
    vocabulary is built first (built beside the strategy, it shared the GIL with it and the encode
    started later), and the strategy's first count, the document's line index and the reports'
    modules come after the encode has started (issue 20: `--unit tokens` 1.53x
    load-and-encode-once, 1.5x the target)."""
    text = "".join(
        f"## Part {i}\n\nA paragraph about part {i}, long enough to be a paragraph.\n\n" for i in range(2000)
    )
    (tmp_path / "big.md").write_text(text)
    args = [
        "chunk",
        "big.md",
        "-s",
        "recursive",
        "--unit",
        "tokens",
        "--size",
        "200",
        "--overlap",
        "20",
        "-f",
        "jsonl",
        "-o",
        "out",
    ]
    code = (
        "import atexit, sys\n"
        "from chunktui.cli import main\n"
        "import chunktui.engine.core.token_index as ti, chunktui.engine.core.tokens as tk\n"
        "import chunktui.engine.readers.documents as docs\n"
        "events = []\n"
        "def wrap(obj, name, event):\n"
        "    real = getattr(obj, name)\n"
        "    def wrapped(*a, **k):\n"
        "        events.append(event(*a) if callable(event) else event)\n"
        "        return real(*a, **k)\n"
        "    setattr(obj, name, wrapped)\n"
        "later = ('chunktui.cli.plan', 'chunktui.cli.reports', 'chunktui.ui.gc_pacing')\n"
        "wrap(ti, 'build_ahead', lambda *a: 'index started, after ' + ','.join(m for m in later if m in sys.modules))\n"
        "built = tk.get_encoding\n"
        "def get_encoding(name):\n"
        "    enc = built(name)\n"
        "    events.append('vocabulary')\n"
        "    return enc\n"
        "tk.get_encoding = get_encoding\n"
        "real_starts = docs.Document.line_starts.fget\n"
        "docs.Document.line_starts = property(lambda d: events.append('line index') or real_starts(d))\n"
        "wrap(tk.TiktokenCounter, 'count_spans', 'count')\n"
        "atexit.register(lambda: print('EVENTS:' + '|'.join(dict.fromkeys(events))))\n"
        f"sys.exit(main({args!r}))\n"
    )
    events = python_child(code, tmp_path).rpartition("EVENTS:")[2].strip().split("|")
    assert events[:2] == ["vocabulary", "index started, after "], events
    assert events.index("count") > 1 and events.index("line index") > 1
