"""Save-profile dialog: writes strategy, params and tokenizer for `chunktui ... --profile P`."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from chunktui.engine import ChunktuiError
from .dialog import FormDialog


def describe(strategy: str, params: dict) -> str:
    """`recursive · size 400 · overlap 40`: the parameters as their flags read, not a dict repr."""
    return " · ".join([strategy, *(f"{name.replace('_', '-')} {value}" for name, value in params.items())])


class SaveProfileScreen(FormDialog):
    """Dismisses with the saved path; a failed write stays in the dialog with its reason."""

    SUBMIT_ID = "profile-save"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="profile.cancel", tooltip="Close without saving"),
    ]

    def __init__(
        self,
        default_path: Path,
        strategy: str,
        params: dict,
        tokenizer: str,
        budget: int | None = None,
        context_header: str = "none",
    ) -> None:
        super().__init__()
        self.default_path = default_path
        self.strategy, self.params, self.tokenizer, self.budget = strategy, params, tokenizer, budget
        self.context_header = context_header

    def compose(self) -> ComposeResult:
        with Vertical(id="profile-box"):
            yield Static(
                Text.assemble(
                    ("Save profile", "bold"),
                    f": {describe(self.strategy, self.params)} · "
                    f"tokenizer {self.tokenizer}" + (f" · budget {self.budget:,}" if self.budget else ""),
                ),
                id="profile-title",
            )
            yield Label("profile file (YAML)")
            yield Input(str(self.default_path), id="profile-path", compact=True)
            yield Static("", id="profile-error")
            with Horizontal(id="profile-buttons"):
                yield Button("Save", id="profile-save", variant="primary", compact=True)
                yield Button("Cancel", id="profile-cancel", compact=True)

    def submit(self) -> None:
        from chunktui.formats.profiles import save_profile

        raw = self.query_one("#profile-path", Input).value.strip()
        path = Path(raw).expanduser()
        problem = (
            "choose a file for the profile"
            if not raw
            else f"{path} is a folder: give the profile a file name, e.g. {path / 'profile.yaml'}"
            if path.is_dir()
            else None
        )
        if problem:
            self.query_one("#profile-error", Static).update(problem)
            return
        try:
            save_profile(path, self.strategy, self.params, self.tokenizer, self.budget, self.context_header)
        except (ChunktuiError, OSError) as exc:
            self.query_one("#profile-error", Static).update(str(exc))
            return
        self.dismiss(path)
