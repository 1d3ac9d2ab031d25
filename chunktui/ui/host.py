"""The app state the quality and query mixins read and call: their contract with ChunktuiApp,
written down for the type checker. At run time `AppHost` is `object` and the mixins add nothing
to the app's class hierarchy."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from chunktui.engine import ChunkSet, Document

    from .widgets.chunk_table import ChunkTable
    from .widgets.controls import ControlsPane
    from .widgets.document_view import DocumentView

    class AppHost(App):
        """What ChunktuiApp gives the mixins mixed into it."""

        chunkset: ChunkSet | None
        doc: Document | None
        budget: int
        mode: str  # "tune", or "review" for a loaded chunks.yaml
        selected: int | None
        queries: tuple

        @property
        def controls(self) -> ControlsPane: ...

        @property
        def view(self) -> DocumentView: ...

        @property
        def table(self) -> ChunkTable: ...

        def current_request(self) -> tuple | None: ...

        def select_chunk(self, index: int, scroll: bool = True) -> None: ...

        def action_goto_line(self, line: int) -> None: ...
else:
    AppHost = object
