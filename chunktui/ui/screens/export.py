"""Export dialog: format, output folder, overwrite; runs the same formats code as `chunktui chunk`."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static, Switch

from ...engine import ChunkSet, ChunktuiError
from .dialog import FormDialog


def export_formats() -> list[str]:
    """Every registered writer (text, json, yaml, jsonl, plus any a strategy module added)."""
    from ...formats import export

    return list(export.writer_names())


class ExportScreen(FormDialog):
    """Dismisses with the ExportResult on success; errors stay in the dialog."""

    SUBMIT_ID = "export-go"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting"),
    ]

    def __init__(self, chunkset: ChunkSet) -> None:
        super().__init__()
        self.chunkset = chunkset

    def compose(self) -> ComposeResult:
        from ...formats.export import default_output_dir

        doc = self.chunkset.document
        out = default_output_dir(doc.path or doc.name)
        with Vertical(id="export-box"):
            yield Static(f"[b]Export {len(self.chunkset.chunks)} chunks [/b]of {doc.name} "
                         f"({self.chunkset.strategy})", id="export-title")
            yield Label("format")
            yield Select([(f, f) for f in export_formats()], value="text", allow_blank=False, id="export-format",
                         compact=True)
            yield Label("output folder")
            yield Input(str(out), id="export-dir", compact=True)
            with Horizontal(id="export-overwrite-row"):
                yield Switch(False, id="export-overwrite")
                yield Label("overwrite a non-empty folder")
            yield Static("", id="export-error")
            with Horizontal(id="export-buttons"):
                yield Button("Export", id="export-go", variant="primary", compact=True)
                yield Button("Cancel", id="export-cancel", compact=True)

    def submit(self) -> None:
        fmt = str(self.query_one("#export-format", Select).value)
        out_dir = self.query_one("#export-dir", Input).value.strip()
        force = self.query_one("#export-overwrite", Switch).value
        if not out_dir:
            self.show_error("choose an output folder")
            return
        self.query_one("#export-go", Button).disabled = True
        self.show_error("")
        self.run_export(Path(out_dir).expanduser(), fmt, force)

    def show_error(self, message: str) -> None:
        self.query_one("#export-error", Static).update(message)

    @work(thread=True, exclusive=True, group="export")
    def run_export(self, out_dir: Path, fmt: str, force: bool) -> None:
        from ...formats.export import export_chunkset

        try:
            result = export_chunkset(self.chunkset, out_dir=out_dir, fmt=fmt, force=force)
        except (ChunktuiError, OSError) as exc:
            self.app.call_from_thread(self._failed, str(exc))
        else:
            self.app.call_from_thread(self.dismiss, result)

    def _failed(self, message: str) -> None:
        self.show_error(message)
        self.query_one("#export-go", Button).disabled = False
