"""File picker shown when chunktui starts without a file: a tree of the current folder."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DirectoryTree, Footer, Static

_SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache"}


class SourceTree(DirectoryTree):
    """A directory tree without VCS, dependency and cache folders."""

    def filter_paths(self, paths):
        return [p for p in paths if p.name not in _SKIP]


class FilePickerScreen(Screen[Path]):
    """Choose a document (or a saved chunks.yaml) to open; dismisses with its path."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit", id="picker.quit", tooltip="Leave chunktui"),
        Binding(
            "escape",
            "cancel",
            "Back",
            id="picker.cancel",
            tooltip="Back to the open document (leaves chunktui when none is open)",
        ),
    ]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        yield Static(f"Open a document or a chunks.yaml under [b]{self.root} [/b] (enter opens)", id="picker-title")
        yield SourceTree(self.root, id="picker-tree")
        yield Footer(compact=True)

    def action_cancel(self) -> None:
        """Escape from the palette's "Open another file…" returns to the document; at start-up it quits."""
        if getattr(self.app, "doc", None) is not None:
            self.dismiss(None)
        else:
            self.app.exit()

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(Path(event.path))
