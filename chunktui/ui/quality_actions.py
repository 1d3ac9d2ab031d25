"""Quality in the app: flags panel, f / F between flagged chunks, sweep, compare and key facts.

A mixin so app.py only calls two hooks (`assess_chunkset` when a chunking is shown,
`show_chunk_flags` when the selection moves). Assessing runs in its own exclusive
thread worker after each chunking, so a large document never blocks the screen;
a result for a chunkset that is no longer shown is dropped.
"""

from __future__ import annotations

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from chunktui.engine import ChunkSet
from chunktui.engine.analysis.facts import check_facts
from chunktui.engine.analysis.quality import Quality, assess, scan_structure
from .host import HostedMixin
from .widgets.flag_histogram import FlaggedHistogram
from .widgets.histogram import HistogramData, histogram_data
from .widgets.flags import FlagsPanel

QUALITY_BINDINGS = [
    Binding("f", "next_flag", "Flag+", id="next_flag", tooltip="Select the next chunk with a quality flag"),
    Binding(
        "F",
        "prev_flag",
        "Flag-",
        key_display="F",
        id="prev_flag",
        tooltip="Select the previous chunk with a quality flag",
    ),
    Binding("w", "sweep", "Sweep", id="sweep", tooltip="Score a grid of sizes and overlaps; enter applies a cell"),
    Binding(
        "c",
        "compare",
        "Compare",
        id="compare",
        tooltip="Compare the current configuration with another on this document",
    ),
    Binding(
        "k", "facts", "Facts", id="facts", tooltip="Key phrases: are they whole inside a chunk, split, or missing?"
    ),
]


class QualityReady(Message):
    def __init__(
        self,
        chunkset: ChunkSet,
        quality: Quality,
        facts,
        flagged: list[int] | None = None,
        histogram: HistogramData | None = None,
    ) -> None:
        super().__init__()
        self.chunkset, self.quality, self.facts = chunkset, quality, facts
        self.flagged = quality.flagged_indexes() if flagged is None else flagged
        self.histogram = histogram  # the bars with the flagged chunks set apart


class QualityMixin(HostedMixin):
    """The quality actions and panels of the app; reads and calls what `AppHost` declares."""

    quality: Quality | None = None
    fact_phrases: tuple[str, ...] = ()
    fact_results: list | None = None
    _structure: tuple | None = None  # (document, its Structure): fences, tables, headings, entities

    # -- hooks called by the app ----------------------------------------------------------

    def assess_chunkset(self, cs: ChunkSet | None) -> None:
        """A new chunking is on screen: drop the old quality and assess this one in the background."""
        self.quality, self.fact_results = None, None
        panel = self.query_one("#flags", FlagsPanel)
        if cs is None:
            panel.update("")
            return
        panel.show(None, None)
        self.quality_worker(cs, self.budget, tuple(self.fact_phrases))

    def show_chunk_flags(self, index: int | None) -> None:
        if self.quality is not None:
            self.query_one("#flags", FlagsPanel).show(self.quality, index, self.fact_results)

    # -- background assessment -------------------------------------------------------------

    @work(thread=True, exclusive=True, group="quality", exit_on_error=False)
    def quality_worker(self, cs: ChunkSet, budget: int, phrases: tuple[str, ...]) -> None:
        worker = get_current_worker()
        doc = cs.document
        if self._structure is None or self._structure[0] is not doc:
            self._structure = (doc, scan_structure(doc))  # once per document, not per re-chunk
        quality = assess(cs, budget, structure=self._structure[1])
        facts = check_facts(cs, phrases) if phrases else None
        flagged = quality.flagged_indexes()
        bars = histogram_data(cs.chunks, flagged)  # a pass over every chunk: here, not on the event loop
        if not worker.is_cancelled:
            self.post_message(QualityReady(cs, quality, facts, flagged, bars))

    def on_quality_ready(self, message: QualityReady) -> None:
        if message.chunkset is not self.chunkset or not self.is_running:
            return  # stale (another chunking is shown now), or the app is shutting down
        self.quality, self.fact_results = message.quality, message.facts
        self.query_one("#flags", FlagsPanel).show(message.quality, self.selected, message.facts)
        histogram = self.query_one("#histogram")
        if isinstance(histogram, FlaggedHistogram):
            histogram.mark_flagged(message.chunkset, message.flagged, message.histogram)

    # -- actions ---------------------------------------------------------------------------

    def _jump_flag(self, direction: int) -> None:
        if self.quality is None:
            self.notify("Quality is still being computed.", severity="warning")
            return
        flagged = self.quality.flagged_indexes()
        if not flagged:
            self.notify("No chunk has a quality flag.", severity="information")
            return
        here = -1 if self.selected is None else self.selected
        after = [i for i in flagged if i > here] if direction > 0 else [i for i in flagged if i < here][::-1]
        target = after[0] if after else (flagged[0] if direction > 0 else flagged[-1])
        self.select_chunk(target, scroll=True)

    def action_next_flag(self) -> None:
        self._jump_flag(1)

    def action_prev_flag(self) -> None:
        self._jump_flag(-1)

    def action_sweep(self) -> None:
        from .screens.sweep import SweepScreen

        request = self.current_request() if self.mode == "tune" and self.doc is not None else None
        if request is None:
            self.notify("Open a document and fix any marked parameter before sweeping.", severity="warning")
            return
        strategy, values, tokenizer, context_header = request

        async def apply(choice: dict | None) -> None:
            if choice is not None:
                await self.controls.build_fields(choice["strategy"], choice["params"])

        self.push_screen(
            SweepScreen(self.doc, strategy, dict(values), tokenizer, self.budget, context_header, queries=self.queries),
            apply,
        )

    def action_compare(self) -> None:
        from .screens.compare import CompareScreen

        if self.chunkset is None:
            self.notify("Nothing to compare yet.", severity="warning")
            return
        self.push_screen(CompareScreen(self.chunkset, self.budget))

    def action_facts(self) -> None:
        from .screens.facts import FactsScreen

        if self.chunkset is None:
            self.notify("Nothing to check yet.", severity="warning")
            return

        def done(result) -> None:
            if result is None:
                return
            self.fact_phrases = tuple(result.phrases)
            self.assess_chunkset(self.chunkset)  # refresh the tally in the flags panel
            if result.jump_to is not None:
                self.select_chunk(result.jump_to, scroll=True)

        self.push_screen(FactsScreen(self.chunkset, list(self.fact_phrases)), done)
