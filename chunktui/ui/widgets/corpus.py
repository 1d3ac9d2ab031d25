"""The corpus pane: the files of a folder opened in the app, and how the current configuration
does over all of them.

Choosing a file opens it with the configuration on screen, so a user tunes on one file and
checks the others. The totals come from a thread worker that chunks every file (up to
`CORPUS_LIMIT_FILES` files and `CORPUS_LIMIT_BYTES` bytes) after each new result; a newer
configuration drops the totals of an older one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

CORPUS_LIMIT_FILES = 500
CORPUS_LIMIT_BYTES = 50_000_000


@dataclass
class CorpusTotals:
    """What one configuration gives over the corpus's files (those within the limits)."""

    files: int = 0
    chunks: int = 0
    tokens: int = 0
    over_budget: int = 0
    failed: list[str] = field(default_factory=list)
    left_out: int = 0  # files past the limits, not chunked for the totals

    def line(self, total_files: int, done: bool = True) -> str:
        text = (
            f"{self.files:,}/{total_files:,} files · {self.chunks:,} chunks · {self.tokens:,} tokens · "
            f"{self.over_budget:,} over budget"
        )
        if self.failed:
            text += f" · {len(self.failed)} failed"
        if self.left_out:
            text += f" · {self.left_out:,} past the limits"
        return text if done else text + " …"


class CorpusPane(Vertical):
    """Hidden until a folder is opened."""

    class FileChosen(Message):
        def __init__(self, path: Path) -> None:
            super().__init__()
            self.path = path

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.root: Path | None = None
        self.files: list[Path] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="corpus-title")
        yield OptionList(id="corpus-files", compact=True)
        yield Static("", id="corpus-totals")

    def show_folder(self, root: Path, files: list[Path], skipped: int) -> None:
        self.root, self.files = root, files
        self.display = True
        left = f" ({skipped:,} left out)" if skipped else ""
        self.query_one("#corpus-title", Static).update(f"[b]{root.name or root}[/b] · {len(files):,} files{left}")
        options = self.query_one("#corpus-files", OptionList)
        options.clear_options()
        options.add_options([Option(p.relative_to(root).as_posix(), id=str(i)) for i, p in enumerate(files)])
        options.highlighted = 0

    def show_totals(self, totals: CorpusTotals, done: bool) -> None:
        self.query_one("#corpus-totals", Static).update(totals.line(len(self.files), done))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.FileChosen(self.files[event.option_index]))  # the options are the files, in order


def corpus_totals(
    files: list[Path],
    strategy: str,
    params: dict,
    tokenizer: str,
    context_header: str,
    budget: int,
    is_cancelled,
    progress,
    reader_options: dict | None = None,
) -> CorpusTotals:
    """Chunk every file within the limits with one configuration (PDF, HTML and DOCX files read
    with `reader_options`); `progress(totals)` after each."""
    from chunktui.engine import chunk_document
    from chunktui.engine.core.errors import ChunktuiError
    from chunktui.engine.strategies import get_strategy
    from chunktui.formats.discover import load_source

    totals, used = CorpusTotals(), 0
    strat = get_strategy(strategy)
    for path in files:
        if is_cancelled():
            break
        size = path.stat().st_size if path.is_file() else 0
        if totals.files >= CORPUS_LIMIT_FILES or used + size > CORPUS_LIMIT_BYTES:
            totals.left_out += 1
            continue
        used += size
        try:
            doc = load_source(path, reader_options)
            name = strategy if not strat.kinds or doc.kind in strat.kinds else "auto"
            cs = chunk_document(
                doc, name, params if name == strategy else None, tokenizer=tokenizer, context_header=context_header
            )
        except ChunktuiError:
            totals.failed.append(str(path))
            continue
        totals.files += 1
        totals.chunks += len(cs.chunks)
        totals.tokens += sum(c.embed_tokens for c in cs.chunks)
        totals.over_budget += sum(1 for c in cs.chunks if c.embed_tokens > budget)
        progress(totals)
    return totals
