"""A small modal form: one primary button (or enter in an input) submits, any other button or escape cancels."""

from __future__ import annotations

from textual.screen import ModalScreen
from textual.widgets import Button, Input


class FormDialog(ModalScreen):
    """Subclasses set SUBMIT_ID (the primary button's id) and define `submit`; cancelling dismisses with None."""

    SUBMIT_ID = ""

    def submit(self) -> None:
        raise NotImplementedError

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == self.SUBMIT_ID:
            self.submit()
        else:
            self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def action_cancel(self) -> None:
        self.dismiss(None)
