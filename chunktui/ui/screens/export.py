"""Export dialog: format, output folder, overwrite; runs the same formats code as `chunktui chunk`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static, Switch
from textual.worker import Worker, WorkerState

from chunktui.engine import ChunkSet, ChunktuiError
from .dialog import FormDialog


def export_formats() -> list[str]:
    """Every registered writer (text, json, yaml, jsonl, plus any a strategy module added)."""
    from chunktui.formats import export

    return list(export.writer_names())


@dataclass(frozen=True)
class ExportChoice:
    """What the last export used, so that the dialog offers it again."""

    fmt: str
    out_dir: Path
    source: object


class ExportScreen(FormDialog):
    """Dismisses with the ExportResult on success; errors stay in the dialog."""

    SUBMIT_ID = "export-go"
    # the folder, not the format list: `e` then enter exports with the offered (last used) format and
    # folder, typing changes the folder, and shift+tab reaches the format
    AUTO_FOCUS = "#export-dir"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting"),
    ]

    def __init__(self, chunkset: ChunkSet, last: ExportChoice | None = None) -> None:
        super().__init__()
        self.chunkset = chunkset
        self.last = last

    def compose(self) -> ComposeResult:
        from chunktui.formats.export import default_output_dir

        doc = self.chunkset.document
        out = default_output_dir(doc.path or doc.name)
        fmt = "text"
        if self.last is not None and self.last.fmt in export_formats():
            fmt = self.last.fmt
            # the same document goes back where it went; another one beside it, under its own name
            out = self.last.out_dir if self.last.source == doc.path else self.last.out_dir.parent / out.name
        with Vertical(id="export-box"):
            yield Static(
                f"[b]Export {len(self.chunkset.chunks)} chunks [/b]of {doc.name} ({self.chunkset.strategy})",
                id="export-title",
            )
            yield Label("format")
            yield Select(
                [(f, f) for f in export_formats()], value=fmt, allow_blank=False, id="export-format", compact=True
            )
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

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def run_export(self, out_dir: Path, fmt: str, force: bool):
        """The export's result is handed back by the worker's state change, not by a call from this
        thread: dismissing the dialog unmounts it, which cancels its workers, so a dismissal made
        from inside the worker cancelled the very worker that was making it."""
        from chunktui.formats.export import export_chunkset

        return export_chunkset(self.chunkset, out_dir=out_dir, fmt=fmt, force=force)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "export":
            return
        if event.state == WorkerState.SUCCESS and (result := event.worker.result) is not None:
            self.last = ExportChoice(
                str(self.query_one("#export-format", Select).value), result.out_dir, self.chunkset.document.path
            )
            self.dismiss(result)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            known = isinstance(error, (ChunktuiError, OSError))
            self._failed(str(error) if known else f"internal error: {error!r}")

    def _failed(self, message: str) -> None:
        self.show_error(message)
        self.query_one("#export-go", Button).disabled = False
