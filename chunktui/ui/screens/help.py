"""Help: every key binding of the app and the document view, with what it does."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def bindings_table(groups: list[tuple[str, list[BindingType]]], key_display) -> Table:
    table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
    table.add_column("key", no_wrap=True, style="bold")
    table.add_column("action")
    table.add_column("what it does", style="dim")
    for title, bindings in groups:
        table.add_row(f"[reverse] {title} [/]", "", "")
        for b in bindings:
            b = b if isinstance(b, Binding) else Binding(*b)  # BINDINGS may hold (key, action[, description])
            table.add_row(key_display(b), b.description, b.tooltip)
    return table


class HelpScreen(ModalScreen[None]):
    """Lists every binding; escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close", id="help.close", tooltip="Close the help screen"),
    ]

    def __init__(self, groups: list[tuple[str, list[BindingType]]]) -> None:
        super().__init__()
        self.groups = groups

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("[b]chunktui keys [/b] (escape closes)", id="help-title")
            yield Static(bindings_table(self.groups, self.app.get_key_display), id="help-table")
