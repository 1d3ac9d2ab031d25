"""The app state the quality and query mixins read and call: their contract with ChunktuiApp.

`AppHost` names what the app gives them besides Textual's App (query_one, notify, push_screen,
post_message, is_running); tests/test_ui_quality.py checks ChunktuiApp against it at run time.
The mixins derive from `HostedMixin`: App and AppHost for the type checker, `object` at run time,
so they add nothing to the app's class hierarchy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual.app import App

    from chunktui.engine import ChunkSet, Document

    from .widgets.chunk_table import ChunkTable
    from .widgets.controls import ControlsPane
    from .widgets.document_view import DocumentView


@runtime_checkable
class AppHost(Protocol):
    """What ChunktuiApp gives the mixins mixed into it."""

    chunkset: ChunkSet | None  # the chunking on screen
    doc: Document | None
    budget: int
    mode: str  # "tune", or "review" for a loaded chunks.yaml
    selected: int | None  # the selected chunk's index
    queries: tuple  # the questions with known answers loaded in the query pane

    @property
    def controls(self) -> ControlsPane: ...

    @property
    def view(self) -> DocumentView: ...

    @property
    def table(self) -> ChunkTable: ...

    def current_request(self) -> tuple | None:
        """(strategy, params, tokenizer, context header) from the controls, or None when invalid."""

    def select_chunk(self, index: int, scroll: bool = True) -> None:
        """Select chunk `index` in every pane."""

    def action_goto_line(self, line: int) -> None: ...


if TYPE_CHECKING:

    class HostedMixin(App, AppHost):
        """A mixin's `self` to the type checker: a Textual App that is an AppHost."""
else:
    HostedMixin = object
