"""Save-profile dialog: writes strategy, params and tokenizer for `chunktui ... --profile P`."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from ...engine import ChunktuiError
from .dialog import FormDialog


class SaveProfileScreen(FormDialog):
    """Dismisses with the saved path; a failed write stays in the dialog with its reason."""

    SUBMIT_ID = "profile-save"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="profile.cancel", tooltip="Close without saving"),
    ]

    def __init__(self, default_path: Path, strategy: str, params: dict, tokenizer: str) -> None:
        super().__init__()
        self.default_path = default_path
        self.strategy, self.params, self.tokenizer = strategy, params, tokenizer

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-box"):
            yield Static(f"[b]Save profile[/b]: {self.strategy} {self.params} ({self.tokenizer})",
                         id="profile-title")
            yield Label("profile file (YAML)")
            yield Input(str(self.default_path), id="profile-path", compact=True)
            yield Static("", id="profile-error")
            with Horizontal(id="profile-buttons"):
                yield Button("Save", id="profile-save", variant="primary", compact=True)
                yield Button("Cancel", id="profile-cancel", compact=True)

    def submit(self) -> None:
        from ...formats.profiles import save_profile

        path = Path(self.query_one("#profile-path", Input).value.strip()).expanduser()
        try:
            save_profile(path, self.strategy, self.params, self.tokenizer)
        except (ChunktuiError, OSError) as exc:
            self.query_one("#profile-error", Static).update(str(exc))
            return
        self.dismiss(path)
