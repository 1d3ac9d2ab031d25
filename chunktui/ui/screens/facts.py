"""Key facts screen: type phrases (one a line) and see which sit whole in a chunk.

Checking is the engine's `check_facts` on the chunkset on screen; the phrases are
kept by the app, so the flags panel keeps a whole/split/missing tally as the
configuration changes. Enter on a result jumps to the first chunk it names.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Static, TextArea

from chunktui.engine import ChunkSet
from chunktui.engine.analysis.facts import Fact, check_facts, parse_phrases
from ..widgets.chunk_table import middle_cut

MIN_PHRASE = 20  # cells a phrase keeps however narrow the table

STATUS_STYLE = {"whole": "green bold", "split": "red bold", "missing": "yellow bold"}


@dataclass
class FactsResult:
    phrases: list[str]
    jump_to: int | None  # chunk index to select, if the user picked a result


class FactsScreen(ModalScreen[FactsResult]):
    DEFAULT_CSS = """
    FactsScreen { align: center middle; }
    #facts-box { width: 90%; height: 80%; border: thick $accent; background: $surface; padding: 0 1; }
    #facts-title { height: auto; margin-bottom: 1; }
    #facts-body { height: 1fr; }
    #facts-input { width: 1fr; height: 1fr; }
    #facts-table { width: 1fr; height: 1fr; }
    #facts-buttons { height: 1; margin-top: 1; }
    #facts-summary { width: 1fr; padding-left: 2; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="facts.close", tooltip="Keep the phrases and go back"),
        Binding("ctrl+r", "check", "Check", id="facts.check", tooltip="Check the phrases against the chunks"),
    ]

    def __init__(self, chunkset: ChunkSet, phrases: list[str]) -> None:
        super().__init__()
        self.chunkset, self.phrases = chunkset, list(phrases)
        self.facts: list[Fact] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-box"):
            yield Static(
                "[b]Key facts[/b]: one phrase a line (# lines are comments); ctrl+r or Check tests them; "
                "enter on a result jumps to its chunk; escape keeps the phrases",
                id="facts-title",
            )
            with Horizontal(id="facts-body"):
                yield TextArea("\n".join(self.phrases), id="facts-input")
                yield DataTable(cursor_type="row", id="facts-table")
            with Horizontal(id="facts-buttons"):
                yield Button("Check", id="facts-check", variant="primary", compact=True)
                yield Static("", id="facts-summary")

    def on_mount(self) -> None:
        table = self.query_one("#facts-table", DataTable)
        for name in ("status", "chunks", "phrase"):  # the phrase last: a long one cannot push the chunks away
            table.add_column(name, key=name)
        if self.phrases:
            self.action_check()
        self.query_one("#facts-input", TextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "facts-check":
            event.stop()
            self.action_check()

    def action_check(self) -> None:
        self.phrases = parse_phrases(self.query_one("#facts-input", TextArea).text)
        self.facts = check_facts(self.chunkset, self.phrases)
        table = self.query_one("#facts-table", DataTable)
        table.clear()
        room = max(MIN_PHRASE, (table.size.width or 80) - 40)
        for i, f in enumerate(self.facts):
            table.add_row(
                Text(f.status, STATUS_STYLE[f.status]),
                middle_cut(", ".join(f.chunk_ids) or f.reason, 30),
                middle_cut(f.phrase, room),
                key=str(i),
            )
        tally = {k: sum(1 for f in self.facts if f.status == k) for k in STATUS_STYLE}
        self.query_one("#facts-summary", Static).update(
            f"{tally['whole']} whole · {tally['split']} split · {tally['missing']} missing"
        )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        fact = self.facts[event.cursor_row]  # the rows are the facts, in order
        jump = int(fact.chunk_ids[0].split("-")[1]) - 1 if fact.chunk_ids else None
        self.dismiss(FactsResult(self.phrases, jump))

    def action_close(self) -> None:
        self.dismiss(FactsResult(parse_phrases(self.query_one("#facts-input", TextArea).text), None))
