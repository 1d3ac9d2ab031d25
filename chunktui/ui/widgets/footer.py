"""The footer, fitted to its row: whole key items or none, the keys that switch panes kept.

Textual's footer lays its keys out in a row that runs past the window and cuts the last one
shown under the palette key docked on the right (`n Next p▏^p palette` at 80 columns). Here
the keys that do not fit are hidden, from the end, so every key shown can be read whole; the
help screen (`?`) and the palette list them all.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Footer

# kept whatever the width: at 80 columns one side pane shows at a time and only < and > reach
# the other; ? and q lead to everything else and out
PRIORITY = frozenset({"toggle_pane('left')", "toggle_pane('right')", "help", "quit"})
PALETTE = "-command-palette"


def key_width(key: Widget) -> int:
    """Cells a compact footer key takes: its key, a space and its description, and one more: the
    right margin of a key in the row, the left border of the palette key (app.tcss; Textual's
    footer CSS). Counted from the text, as the styles are not applied yet when the keys are made."""
    description: str = getattr(key, "description", "")
    return cell_len(getattr(key, "key_display", "")) + (1 + cell_len(description) if description else 0) + 1


def fit_keys(keys: list[Widget], width: int) -> None:
    """Show the priority keys and, in their order, the others while they fit in `width` cells
    beside the palette key; hide the rest."""
    palette = [k for k in keys if k.has_class(PALETTE)]
    items = [k for k in keys if not k.has_class(PALETTE)]
    room = width - sum(map(key_width, palette))
    room -= sum(key_width(k) for k in items if getattr(k, "action", "") in PRIORITY)
    fits = True
    for key in items:
        if getattr(key, "action", "") not in PRIORITY:
            fits = fits and key_width(key) <= room
            room -= key_width(key) if fits else 0
            key.display = fits


class FittingFooter(Footer):
    """A compact footer whose keys are shown whole or not at all (see the module's docstring)."""

    def compose(self) -> ComposeResult:
        keys = list(super().compose())
        if self.size.width:
            fit_keys(keys, self.size.width)
        yield from keys

    def on_resize(self, event: events.Resize) -> None:
        fit_keys(list(self.query_children()), event.size.width)
