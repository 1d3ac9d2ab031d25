"""The chunktui app: tune chunking live and see every chunk.

The app computes nothing the engine does not: every change is validated with the
strategy's own spec, then re-chunked by `chunk_document` in an exclusive thread
worker after a short debounce. Each run carries a generation number, so a result
that arrives after a newer request is dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from chunktui.engine import (
    Cancelled,
    ChunkSet,
    ChunktuiError,
    Document,
    ParamError,
    all_strategies,
    chunk_document,
    get_strategy,
    load_document,
)
from chunktui.engine.readers import Watch, reader_for
from chunktui.formats.store import LoadedChunkSet, is_chunk_store
from chunktui.engine.core.tokens import DEFAULT_TOKENIZER, INDEX_MIN_CHARS, TiktokenCounter, get_counter
from .commands import ChunktuiCommands
from .compat import release_work
from .gc_pacing import GCPacer
from .release import release
from .prepared import Prepared, prepare
from .samples import demo_files, demo_params, find_sample_docs
from .widgets.chunk_detail import ChunkDetail
from .widgets.chunk_table import ChunkTable
from .widgets.controls import ControlsPane
from .widgets.corpus import CorpusPane, CorpusTotals, corpus_totals
from .widgets.document_view import DocumentView
from .widgets.histogram import SizeHistogram
from .widgets.stats_panel import StatsPanel, progress_bar
from .quality_actions import QUALITY_BINDINGS, QualityMixin
from .query_pane import QUERY_BINDINGS, QueryMixin, QueryPane
from .widgets.flag_histogram import FlaggedHistogram
from .widgets.flags import FlagsPanel
from .widgets.footer import FittingFooter
from .widgets import scope_tree  # noqa: F401  (registers the code scope tree in the detail pane)
from .widgets import thread_tree, cue_times, gaps  # noqa: F401  (email threads, cue timings, gaps in the detail pane)
from chunktui.engine.code.languages import UnsupportedLanguageError
from chunktui.engine.core.tokens import DEFAULT_BUDGET

if TYPE_CHECKING:  # the export screen is imported when first opened
    from .screens.export import ExportChoice

DEBOUNCE_SECONDS = 0.15
WIDE = 160  # columns from which both side panes show beside a document of at least half the width
GC_CHECK_SECONDS = 0.5  # how often an idle app checks whether a garbage collection pass is due


def default_strategy(doc: Document | None) -> str:
    """`auto` (the strategy that picks one per document) when present; else a strategy made for this
    kind of document; else semantic, else lines."""
    strategies = all_strategies()
    names = {s.name for s in strategies}
    picker = next((s.name for s in strategies if s.delegates), None)
    if picker is not None:
        return picker
    if doc is not None:
        for s in strategies:
            if doc.kind in s.kinds:
                return s.name
    return "semantic" if "semantic" in names else "lines"


class ChunksReady(Message):
    def __init__(self, generation: int, chunkset: ChunkSet, prepared: Prepared | None = None) -> None:
        super().__init__()
        self.generation, self.chunkset, self.prepared = generation, chunkset, prepared


class ChunkingFailed(Message):
    def __init__(self, generation: int, document: Document, error: str, param: str | None = None) -> None:
        super().__init__()
        self.generation, self.document, self.error, self.param = generation, document, error, param


class ChunkingProgress(Message):
    def __init__(self, generation: int, fraction: float) -> None:
        super().__init__()
        self.generation, self.fraction = generation, fraction


class DocumentRead(Message):
    """What the reading worker read (a PDF's, HTML's or DOCX's Document, or a review's
    LoadedChunkSet), and what to do with it."""

    def __init__(self, generation: int, document: Any, then) -> None:
        super().__init__()
        self.generation, self.document, self.then = generation, document, then


class ReadingFailed(Message):
    def __init__(self, generation: int, error: str) -> None:
        super().__init__()
        self.generation, self.error = generation, error


class ReadingProgress(Message):
    def __init__(self, generation: int, fraction: float) -> None:
        super().__init__()
        self.generation, self.fraction = generation, fraction


class ChunktuiApp(QualityMixin, QueryMixin, App):
    """Document view in the centre, controls and stats on the left, histogram and chunk table on the right."""

    CSS_PATH = "app.tcss"
    TITLE = "chunktui"

    # The app's state. A change is drawn by its watcher, only in the panes that show it
    # (repaint=False: not the whole screen on every cursor move), and `bindings=True` re-checks
    # which keys apply (check_action) when the mode changes.
    mode: reactive[str] = reactive("tune", bindings=True, init=False, repaint=False)  # or "review" (a chunks.yaml)
    unit: reactive[str] = reactive("tokens", init=False, repaint=False)  # what the histogram counts: tokens or chars
    # the selected chunk's index; set again to redraw (a new chunking may keep the same index)
    selected: reactive[int | None] = reactive(None, always_update=True, init=False, repaint=False)
    COMMANDS = App.COMMANDS | {ChunktuiCommands}

    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave chunktui"),
        Binding("e", "export", "Export", id="export", tooltip="Export the chunks: format, folder, overwrite"),
        Binding(
            "ctrl+s",
            "save_profile",
            "Save",
            id="save_profile",
            tooltip="Save strategy, params and tokenizer as a YAML profile",
        ),
        Binding("question_mark", "help", "Help", key_display="?", id="help", tooltip="Show every key binding"),
        Binding(
            "left_square_bracket",
            "size(-1)",
            "Size-",
            key_display="[",
            id="size_down",
            tooltip="Smaller chunks: one step down on the strategy's size parameter",
        ),
        Binding(
            "right_square_bracket",
            "size(1)",
            "Size+",
            key_display="]",
            id="size_up",
            tooltip="Larger chunks: one step up on the strategy's size parameter",
        ),
        Binding(
            "left_curly_bracket",
            "overlap(-1)",
            "Ovl-",
            key_display="{",
            id="overlap_down",
            tooltip="Less overlap: one step down on the strategy's overlap parameter",
        ),
        Binding(
            "right_curly_bracket",
            "overlap(1)",
            "Ovl+",
            key_display="}",
            id="overlap_up",
            tooltip="More overlap: one step up on the strategy's overlap parameter",
        ),
        Binding("n", "next_chunk", "Next", id="next_chunk", tooltip="Select and show the next chunk"),
        Binding("p", "prev_chunk", "Prev", id="prev_chunk", tooltip="Select and show the previous chunk"),
        Binding("t", "toggle_unit", "Unit", id="toggle_unit", tooltip="Histogram in tokens or characters"),
        Binding(
            "s",
            "next_strategy",
            "Strategy",
            id="next_strategy",
            tooltip="Step to the next strategy made for this kind of document and show its summary",
        ),
        Binding(
            "ctrl+t",
            "tune",
            "Tune",
            id="tune",
            tooltip="Review mode: re-chunk the unchanged source from the saved parameters",
        ),
        *QUALITY_BINDINGS,
        *QUERY_BINDINGS,
        Binding(
            "z",
            "toggle_detail",
            "Zoom",
            id="toggle_detail",
            tooltip="Enlarge the selected chunk's detail pane to the whole screen (z again to restore)",
        ),
        Binding(
            "less_than_sign",
            "toggle_pane('left')",
            "Controls",
            key_display="<",
            id="toggle_left",
            tooltip="Show or hide the left pane: strategy controls, stats and flags",
        ),
        Binding(
            "greater_than_sign",
            "toggle_pane('right')",
            "Table",
            key_display=">",
            id="toggle_right",
            tooltip="Show or hide the right pane: histogram and chunk table",
        ),
    ]
    # Below 160 columns the two side panes would leave the document less than half the width, so
    # one shows at a time (< and > switch); below 40 rows the flags panel and the histogram give
    # their rows to the controls and the table.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-medium"), (WIDE, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]

    def __init__(
        self,
        path: str | Path | None = None,
        profile: str | Path | None = None,
        demo: bool = False,
        *,
        strategy: str | None = None,
        params: dict | None = None,
        tokenizer: str | None = None,
        budget: int | None = None,
        debounce: float = DEBOUNCE_SECONDS,
        queries: str | Path | None = None,
        auto_queries: int | None = None,
        reader_options: dict | None = None,
    ) -> None:
        """`queries` (a queries file) or `auto_queries` (N synthetic questions) are loaded against
        the first document opened, for the query pane and the stats' recall line; `reader_options`
        (--html, --password) read every PDF, HTML and DOCX file the app opens."""
        super().__init__()
        if queries is not None or auto_queries is not None:
            self.pending_questions = str(queries) if queries is not None else str(auto_queries)
        self.start_path = Path(path) if path else None
        self.reader_options = dict(reader_options or {})  # --html and --password, for every file the app reads
        self.demo = demo
        self.budget = budget or DEFAULT_BUDGET  # else the profile's, when it saved one
        self.debounce = debounce
        self.initial_strategy = strategy
        self.initial_params = dict(params or {})
        self.initial_tokenizer = tokenizer
        self.initial_context_header = "none"
        if profile:
            from chunktui.formats.profiles import load_profile

            loaded = load_profile(profile)
            self.initial_strategy = strategy or loaded.strategy
            self.initial_params = loaded.given_params | self.initial_params
            self.initial_tokenizer = tokenizer or loaded.tokenizer
            self.initial_context_header = loaded.context_header
            if budget is None and loaded.budget:
                self.budget = loaded.budget
        self.doc: Document | None = None
        self.chunkset: ChunkSet | None = None
        self.prepared: Prepared | None = None  # the shown chunking's figures (stats, bars, column widths)
        self.review: LoadedChunkSet | None = None
        self.generation = 0
        self.done_generation = 0
        self.reading_generation = 0  # one per file read in the reading worker: a newer open drops an older read
        self.reading: tuple[str, float | None] | None = None  # (file name, share read) while a read runs
        self.demo_dir: Path | None = None
        self.auto_pick: str | None
        self.auto_note, self.auto_pick = "", None  # what `auto` picked for the open document, and why
        self.last_export: ExportChoice | None = None  # the export dialog offers the last format and folder again
        self._corpus_done: tuple | None = None  # the settings whose corpus totals are shown in full
        self._wide: bool | None = None  # room for both side panes (set by the first resize)
        self._timer: Timer | None = None
        self._launched: tuple | None = None
        self._remembered: dict[str, dict] = {}
        self._idle: asyncio.Event  # made in on_mount, on the app's event loop
        self._starts_of: tuple | None = None  # (chunkset, its chunk starts) for a cursor in a gap
        self._drawing: ChunkSet | None = None  # a chunking whose parts are still being drawn, frame by frame
        self._indexed: tuple | None = None  # (document, tokenizer) whose token index is built or being built
        self.gc_pacer = GCPacer()

    # -- layout -----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        name = self.initial_strategy or default_strategy(None)
        yield Static("", id="banner")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield CorpusPane(id="corpus")
                yield ControlsPane(
                    name,
                    self.initial_params,
                    self.initial_tokenizer or DEFAULT_TOKENIZER,
                    self.budget,
                    self.initial_context_header,
                    id="controls",
                )
                yield StatsPanel(id="stats")
                yield FlagsPanel(id="flags")
            with Vertical(id="center"):
                with Horizontal(id="status-row"):
                    yield Static("no document", id="status")
                yield DocumentView(id="doc")
                yield ChunkDetail(id="detail")
                yield QueryPane(id="query-pane")
            with Vertical(id="right"):
                yield FlaggedHistogram(id="histogram")
                yield ChunkTable(id="table")
        yield FittingFooter(compact=True)

    @property
    def controls(self) -> ControlsPane:
        return self.query_one("#controls", ControlsPane)

    @property
    def view(self) -> DocumentView:
        return self.query_one("#doc", DocumentView)

    @property
    def table(self) -> ChunkTable:
        return self.query_one("#table", ChunkTable)

    def on_resize(self, event) -> None:
        wide = event.size.width >= WIDE
        if wide != self._wide:
            self._wide = wide
            self.query_one("#left").display = True
            self.query_one("#right").display = wide

    def action_toggle_pane(self, which: str) -> None:
        """Show or hide a side pane; where both do not fit beside half the width for the document,
        showing one hides the other."""
        pane, other = self.query_one(f"#{which}"), self.query_one("#right" if which == "left" else "#left")
        pane.display = not pane.display
        if pane.display and not self._wide:
            other.display = False

    async def on_mount(self) -> None:
        self._idle = asyncio.Event()
        self._idle.set()
        self.gc_pacer.start()
        self.set_interval(GC_CHECK_SECONDS, self._collect_when_idle)
        self.query_one("#banner").display = False
        self.view.focus()
        if self.demo:
            await self.start_demo()
        elif self.start_path is not None:
            await self.open_path(self.start_path)
        else:
            self.action_open_picker()

    def on_unmount(self) -> None:
        self.gc_pacer.stop()

    def _collect_when_idle(self) -> None:
        """The only garbage collection passes while the app runs (see gc_pacing): nothing pending or running."""
        if self._idle.is_set() and not any(worker.is_running for worker in self.workers):
            self.gc_pacer.collect_if_due()

    async def wait_idle(self) -> None:
        """Wait until no debounce is pending and the latest chunking has been shown (for tests and scripts)."""
        await self._idle.wait()

    # -- opening ----------------------------------------------------------------------------

    async def open_path(self, path: Path) -> bool:
        """Open a document for tuning, a chunks.yaml for review, or a folder (a mailbox of .eml
        files, else a corpus of files to tune over); errors become notifications."""
        try:
            if Path(path).is_dir():
                await self.open_folder(Path(path))
            elif is_chunk_store(path):
                self.open_review(Path(path))
            elif reader_for(path) is not None:
                self.read_document(Path(path), self.open_document)
            else:
                await self.open_document(load_document(path))
        except ChunktuiError as exc:
            self._cannot_open(str(exc))
            return False
        return True

    def _cannot_open(self, error: str) -> None:
        self.notify(error, title="Cannot open", severity="error", timeout=8)
        if self.doc is None:
            self.action_open_picker()

    # -- reading PDF, HTML and DOCX in a worker -------------------------------------------------

    def read_document(self, path: Path, then, load: Callable[[Watch], Any] | None = None) -> None:
        """Extract a PDF, HTML or DOCX file in the reading worker, with its progress in the status
        line, then `await then(document)`; the screen stays live meanwhile (a 500-page PDF takes
        seconds). `load(watch)` reads something else there instead (a review's chunks.yaml, whose
        source is extracted again). Opening anything else before it is read drops this read."""
        self._drop_reading()
        self._idle.clear()
        self.reading = (path.name, None)
        self._update_status()
        options = dict(self.reader_options)
        self.read_worker(
            path,
            load or (lambda watch: load_document(path, reader_options=options, watch=watch)),
            self.reading_generation,
            then,
        )

    def _drop_reading(self) -> None:
        """Make a pending read stale: its worker stops at its next page and its result is dropped."""
        self.reading_generation += 1
        if self.reading is not None:
            self.reading = None
            self.workers.cancel_group(self, "reading")
            self._update_status()

    @work(thread=True, exclusive=True, group="reading", exit_on_error=False)
    def read_worker(self, path: Path, load: Callable[[Watch], Any], generation: int, then) -> None:
        worker = get_current_worker()
        last = [0.0]

        def progress(fraction: float) -> None:
            now = time.monotonic()  # at most ten repaints a second, as for chunking
            if now - last[0] >= 0.1:
                last[0] = now
                self.post_message(ReadingProgress(generation, fraction))

        watch = Watch(progress, lambda: worker.is_cancelled or generation != self.reading_generation)
        try:
            doc = load(watch)
        except Cancelled:
            return
        except ChunktuiError as exc:
            self.post_message(ReadingFailed(generation, str(exc)))
            return
        except Exception as exc:  # a reader bug must not take the app down with it
            self.post_message(ReadingFailed(generation, f"{path}: internal error while reading: {exc!r}"))
            return
        self.post_message(DocumentRead(generation, doc, then))

    def on_reading_progress(self, message: ReadingProgress) -> None:
        if message.generation == self.reading_generation and self.reading is not None and self.is_running:
            self.reading = (self.reading[0], message.fraction)
            self._update_status()

    async def on_document_read(self, message: DocumentRead) -> None:
        if message.generation != self.reading_generation or not self.is_running:
            return  # another file was opened meanwhile
        self.reading = None
        await message.then(message.document)

    def on_reading_failed(self, message: ReadingFailed) -> None:
        if message.generation != self.reading_generation or not self.is_running:
            return
        self.reading = None
        self._update_status()
        self._cannot_open(message.error)
        self._settle()

    async def open_folder(self, root: Path) -> None:
        """A folder of .eml files is one mailbox; any other folder is a corpus: its files in a
        pane, each opened with the configuration on screen, and totals over all of them."""
        from chunktui.engine.readers.mail import is_email_folder, load_email_folder
        from chunktui.formats.discover import DEFAULT_MAX_FILE_SIZE, walk_folder

        if is_email_folder(root):
            await self.open_document(load_email_folder(root))
            return
        skipped: list = []
        files = walk_folder(root, max_size=DEFAULT_MAX_FILE_SIZE, skipped=skipped)
        if not files:
            raise ChunktuiError(f"{root}: no file chunktui reads in this folder")
        self.corpus.show_folder(root, files, len(skipped))
        await self.open_corpus_file(files[0])

    @property
    def corpus(self) -> CorpusPane:
        return self.query_one("#corpus", CorpusPane)

    async def open_corpus_file(self, path: Path) -> None:
        """Open one file of the corpus with the strategy, parameters and tokenizer on screen; a
        strategy made for another kind of file gives way to the one `auto` picks for this one."""
        from chunktui.formats.discover import load_source

        request = self.current_request() if self.doc is not None else None
        if reader_for(path) is not None:
            self.read_document(path, lambda doc: self._open_in_corpus(doc, request))
        else:
            await self._open_in_corpus(load_source(path, self.reader_options), request)

    async def _open_in_corpus(self, doc: Document, request: tuple | None) -> None:
        if request is None:
            await self.open_document(doc)
            return
        name, values, tokenizer, _ = request
        strategy = get_strategy(name)
        if strategy.kinds and doc.kind not in strategy.kinds:
            self.notify(
                f"{name} is for {', '.join(strategy.kinds)} files: {doc.name} opens with auto",
                title="Strategy",
                timeout=6,
            )
            await self.open_document(doc, strategy="auto", tokenizer=tokenizer)
        else:
            await self.open_document(doc, strategy=name, params=dict(values), tokenizer=tokenizer)

    async def on_corpus_pane_file_chosen(self, message: CorpusPane.FileChosen) -> None:
        try:
            await self.open_corpus_file(message.path)
        except ChunktuiError as exc:
            self.notify(str(exc), title="Cannot open", severity="error", timeout=8)

    def _start_corpus_totals(self) -> None:
        request = self.current_request()
        if request is None or not self.corpus.files:
            return
        key = (request, self.budget)
        if key == self._corpus_done:
            return  # another file of the corpus opened with the same settings: the totals stand
        name, values, tokenizer, header = request
        self.corpus.show_totals(CorpusTotals(), done=False)
        self.corpus_worker(name, dict(values), tokenizer, header, self.budget, self.generation, key)

    @work(thread=True, exclusive=True, group="corpus", exit_on_error=False)
    def corpus_worker(
        self, strategy: str, values: dict, tokenizer: str, header: str, budget: int, generation: int, key: tuple
    ):
        worker = get_current_worker()

        def show(totals, done=False):
            if not worker.is_cancelled and generation == self.generation:
                self.call_from_thread(self.corpus.show_totals, totals, done)

        totals = corpus_totals(
            self.corpus.files,
            strategy,
            values,
            tokenizer,
            header,
            budget,
            lambda: worker.is_cancelled or generation != self.generation,
            show,
            self.reader_options,
        )
        if not worker.is_cancelled and generation == self.generation:
            show(totals, done=True)
            self._corpus_done = key
        return totals

    async def open_document(
        self, doc: Document, strategy: str | None = None, params: dict | None = None, tokenizer: str | None = None
    ) -> None:
        self._drop_reading()
        self._idle.clear()  # the fields about to be built ask for a first run
        self.gc_pacer.unfreeze()
        self.doc = doc
        self.mode, self.review = "tune", None
        self.chunkset, self.selected, self._launched = None, None, None
        self.view.set_document(doc)
        self._show_chunkset(None)
        self.questions_for(doc)
        if not self.demo:
            note = document_note(doc)
            self._set_banner(note, warn=bool(note))
        if tokenizer:
            self.controls.set_tokenizer(tokenizer)
        name = strategy or self.initial_strategy or default_strategy(doc)
        self.initial_strategy = None
        launched_with = self.controls.strategy_name
        name = self._resolve_auto(name)
        launched_for_it = launched_with == name or get_strategy(launched_with).delegates
        values = (
            params if params is not None else (self.initial_params if launched_for_it else self._remembered.get(name))
        )
        await self.controls.build_fields(name, values)
        self._update_status()

    def _resolve_auto(self, name: str) -> str:
        """`auto` has no parameters to tune: show the strategy it picks for this document instead, and say why."""
        self.auto_note, self.auto_pick = "", None
        if not get_strategy(name).delegates or self.doc is None:
            return name
        from chunktui.engine.strategies.auto import pick_strategy

        picked, why = pick_strategy(self.doc)
        self.auto_pick = picked
        self.auto_note = f"auto picked {picked} because {why}"
        self.notify(
            f"{self.auto_note}; choose another strategy any time (s or the Strategy list).", title="Strategy", timeout=6
        )
        return picked

    def open_review(self, path: Path) -> None:
        """Review a chunks.yaml: it is read in the reading worker, since checking its source
        extracts a PDF, HTML or DOCX file again (seconds for a long PDF, with its progress)."""
        from chunktui.formats.store import load_chunkset

        password = self.reader_options.get("password")
        self.read_document(
            path, lambda loaded: self._show_review(path, loaded), lambda watch: load_chunkset(path, password, watch)
        )

    async def _show_review(self, path: Path, loaded) -> None:
        self._drop_reading()
        cs = loaded.chunkset
        self.gc_pacer.unfreeze()
        self.review, self.mode = loaded, "review"
        self.doc = cs.document
        self.view.set_document(cs.document)
        self.questions_for(cs.document)
        self._cancel_pending()
        if cs.strategy in {s.name for s in all_strategies()}:
            await self.controls.build_fields(cs.strategy, {k: v for k, v in cs.params.items()})
        self.generation += 1
        self.done_generation = self.generation
        self._show_chunkset(cs)
        self._set_banner(review_note(path, loaded), warn=not loaded.source_matches)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Note the activity for the GC pacing, and let a finished worker's arguments (the quality
        worker's ChunkSet: every chunk's text) go now.
        A Textual worker and its task's context refer to each other, so without this the old chunking
        lives until a full collection, which then frees 30,000 objects at once (40-60 ms at 10 MB).
        `_work` is Textual's (pinned) private field, set through ui/compat.py."""
        self.gc_pacer.note_activity()
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            release_work(event.worker)

    def on_quality_ready(self, message) -> None:
        """Runs before QualityMixin's handler (Textual calls the handler of each class in the MRO)."""
        if message.chunkset is self.chunkset and self.is_running:  # not a stale one, nor after exit's unfreeze
            self.gc_pacer.freeze("quality")

    def _set_banner(self, text: str, warn: bool = False) -> None:
        banner = self.query_one("#banner", Static)
        banner.update(text)
        banner.display = bool(text)
        banner.set_class(warn, "-warn")

    def action_open_picker(self) -> None:
        from .screens.picker import FilePickerScreen

        async def picked(path: Path | None) -> None:
            if path is not None:
                await self.open_path(path)

        self.push_screen(FilePickerScreen(Path.cwd()), picked)

    # -- live chunking ----------------------------------------------------------------------

    def current_request(self) -> tuple | None:
        """(strategy, params, tokenizer, context header) from the controls, or None after marking what is invalid."""
        controls = self.controls
        strategy = controls.strategy
        values, ok = {}, True
        for field in controls.fields():
            try:
                values[field.param.name] = field.param.coerce(field.raw)
                field.mark(None)
            except ParamError as exc:
                field.mark(exc.problem)
                ok = False
        if not ok:
            return None
        try:
            values = strategy.validate(values)
        except ParamError as exc:
            named = controls.field(exc.name)
            if named is None:
                self.notify(str(exc), severity="error")
            else:
                named.mark(exc.problem)
            return None
        return strategy.name, tuple(values.items()), controls.tokenizer, controls.context_header

    def _read_budget(self) -> bool:
        raw = self.controls.budget_raw.strip()
        try:
            value = int(raw)
            if value < 1:
                raise ValueError
        except ValueError:
            self.controls.mark_budget(f"a whole number of tokens above 0, not {raw!r}")
            return False
        self.controls.mark_budget(None)
        if value != self.budget:
            self.budget = value
            self._show_chunkset(self.chunkset, keep_view=True)
        return True

    def on_controls_pane_changed(self, _message: ControlsPane.Changed) -> None:
        if self.mode != "tune" or self.doc is None:
            self._settle()
            return
        self._read_budget()
        if self.current_request() is None:
            self._cancel_pending()
            self._settle()
            return
        self._idle.clear()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.debounce, self._fire)

    def _cancel_pending(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _fire(self) -> None:
        """Debounce elapsed: start a run unless the request is invalid or already running/shown."""
        self._timer = None
        request = self.current_request() if self.mode == "tune" and self.doc is not None else None
        if request is None or request == self._launched:
            self._settle()
            return
        self._launched = request
        self.generation += 1
        self.query_one("#stats", StatsPanel).progress(None)
        strategy, values, tokenizer, context_header = request
        self.chunk_worker(self.doc, strategy, dict(values), tokenizer, self.generation, context_header)

    @work(thread=True, exclusive=True, group="chunking", exit_on_error=False)
    def chunk_worker(
        self, doc: Document, strategy: str, params: dict, tokenizer: str, generation: int, context_header: str = "none"
    ) -> None:
        worker = get_current_worker()
        last = [0.0]

        def progress(fraction: float) -> None:
            # at most ten repaints a second: each one takes the GIL from this worker
            now = time.monotonic()
            if now - last[0] >= 0.1 or fraction >= 1:
                last[0] = now
                self.post_message(ChunkingProgress(generation, fraction))

        try:
            cs = chunk_document(
                doc,
                strategy,
                params,
                tokenizer=tokenizer,
                context_header=context_header,
                is_cancelled=lambda: worker.is_cancelled,
                progress=progress,
            )
        except Cancelled:
            return
        except ParamError as exc:
            self.post_message(ChunkingFailed(generation, doc, str(exc), exc.name))
            return
        except UnsupportedLanguageError as exc:  # code strategies on a file without a grammar
            self.call_from_thread(
                self.notify,
                f"{exc}. Showing `semantic` instead.",
                title="No code grammar",
                severity="warning",
                timeout=8,
            )
            try:
                cs = chunk_document(
                    doc,
                    "semantic",
                    {},
                    tokenizer=tokenizer,
                    context_header=context_header,
                    is_cancelled=lambda: worker.is_cancelled,
                )
            except Cancelled:
                return
            except ChunktuiError as fallback_exc:  # said, so the app does not wait for a result forever
                self.post_message(ChunkingFailed(generation, doc, str(fallback_exc)))
                return
        except ChunktuiError as exc:
            self.post_message(ChunkingFailed(generation, doc, str(exc)))
            return
        except Exception as exc:  # a strategy bug must not take the app down with it
            self.post_message(ChunkingFailed(generation, doc, f"internal error in {strategy}: {exc!r}"))
            return
        if not worker.is_cancelled:
            cs.derive_all()  # lines, bytes, hashes, code's metadata and context texts here, not at first read on the event loop
            self.post_message(ChunksReady(generation, cs, prepare(cs, self.budget)))

    def _index_in_background(self, doc: Document, tokenizer: str) -> None:
        """Build the document's token index once its first chunks are on screen. A strategy that
        counts every chunk's tokens (log-records, recursive, prose...) then reuses it at once:
        switching a 100 MB log from `log` (which samples, and never builds it) to `log-records` paid
        the whole encode, 20-35 s, on the switch. A re-chunk that asks while it is being built waits
        for it (token_index.get_index), and the ones after reuse it."""
        if (
            self._indexed is not None
            and self._indexed[0] is doc
            and self._indexed[1] == tokenizer
            or len(doc.text) < INDEX_MIN_CHARS
        ):
            return
        if hasattr(get_counter(tokenizer), "span_index"):  # tiktoken encodings; chars, bytes and lines need none
            self._indexed = (doc, tokenizer)
            self.index_worker(doc, tokenizer)  # the document, not its text: a worker's name is its arguments' repr

    @work(thread=True, exclusive=True, group="token-index", exit_on_error=False)
    def index_worker(self, doc: Document, tokenizer: str) -> None:
        counter = get_counter(tokenizer)
        if isinstance(counter, TiktokenCounter):  # the only kind _index_in_background asks for
            counter.span_index(doc.text)  # kept by token_index for the re-chunks that follow

    def on_chunks_ready(self, message: ChunksReady) -> None:
        if (
            message.generation != self.generation
            or self.mode != "tune"
            or not self.is_running
            or message.chunkset.document is not self.doc
        ):
            return  # stale (a newer request or another document is on its way), or the app is shutting down
        self.done_generation = message.generation
        self._show_chunkset(message.chunkset, keep_view=True, prepared=message.prepared)  # settles once all is drawn
        self._index_in_background(message.chunkset.document, message.chunkset.tokenizer)
        if self.corpus.display:
            self._start_corpus_totals()

    def on_chunking_failed(self, message: ChunkingFailed) -> None:
        if message.generation != self.generation or not self.is_running or message.document is not self.doc:
            return  # stale, for another document, or the app is shutting down
        self.done_generation = message.generation
        field = self.controls.field(message.param) if message.param else None
        if field is not None:
            field.mark(message.error)
        self.notify(message.error, title="Chunking failed", severity="error", timeout=8)
        self._settle()

    def on_chunking_progress(self, message: ChunkingProgress) -> None:
        if message.generation == self.generation and self.is_running:
            self.query_one("#stats", StatsPanel).progress(message.fraction)

    def _settle(self) -> None:
        """Mark the app idle once nothing is pending and the latest run is done and drawn."""
        if (
            self._timer is None
            and self.done_generation == self.generation
            and self._drawing is None
            and self.reading is None
            and self.is_running
        ):
            self.query_one("#stats", StatsPanel).progress(None, running=False)
            self.gc_pacer.freeze("chunks")
            self._idle.set()

    # -- showing results --------------------------------------------------------------------

    def _show_chunkset(self, cs: ChunkSet | None, keep_view: bool = False, prepared: Prepared | None = None) -> None:
        """Show `cs` with its figures `prepared` by the worker (made here for a chunking read from a
        file; kept when `cs` is the one shown, as when only the budget changed)."""
        if cs is not None and (prepared is None or prepared.chunkset is not cs):
            kept = self.prepared
            prepared = kept if kept is not None and kept.chunkset is cs else prepare(cs, self.budget)
        if self.chunkset is not None and self.chunkset is not cs:
            self._release(self.chunkset, self.prepared)
        self.chunkset, self.prepared, self._starts_of = cs, prepared, None
        self.quality, self.fact_results = None, None  # the old chunking's flags; the new ones come last
        self.query_one("#stats", StatsPanel).show(prepared.stats_at(self.budget) if prepared is not None else None)
        self.retrieve_for(cs)  # recall and IoU follow the stats as soon as they are measured
        self._update_status()
        if cs is None or prepared is None:  # prepared is None only without a chunking
            self._drawing = None
            self.query_one("#histogram", SizeHistogram).show(None, self.budget, self.unit)
            self.assess_chunkset(None)
            self.table.show(None, self.budget)
            self.selected = None
            return
        self.view.set_chunkset(cs, self.generation, prepared.starts, prepared.max_ends)
        # the stats (what a user watches while tuning) are drawn first, then one part of the rest a frame,
        # so that no frame holds the event loop long; the quality thread starts once nothing is left to draw
        self._in_frames(cs, self._show_views, lambda cs: self._show_selection(cs, keep_view), self.assess_chunkset)

    @staticmethod
    def _release(cs: ChunkSet, prepared: Prepared | None) -> None:
        """Free a replaced chunking's per-chunk lists off the event loop, once nothing refers to them (release.py)."""
        lists = [cs.chunks]
        if prepared is not None and prepared.chunkset is cs:
            lists += [prepared.sorted_tokens, prepared.starts, prepared.max_ends, *prepared.histogram.values.values()]
        release(*lists)

    def _in_frames(self, cs: ChunkSet, *steps) -> None:
        """Run each step after the next screen refresh while `cs` is still the one shown; settle after the last."""
        self._drawing = cs
        self.call_after_refresh(self._in_frame, cs, steps, 0)

    def _in_frame(self, cs: ChunkSet, steps: tuple, i: int) -> None:
        """Step i of `_in_frames`. A method, not a closure that calls itself again: such a closure is a
        reference cycle, which kept every replaced chunking alive until the app's idle collection
        freed all of it at once on the event loop (117,000 chunks of a 100 MB log: a long freeze)."""
        if cs is not self.chunkset or not self.is_running:  # replaced, or the app is shutting down
            return
        if i == len(steps):
            self._drawing = None
            self._settle()
            return
        steps[i](cs)
        self.call_after_refresh(self._in_frame, cs, steps, i + 1)

    def _show_views(self, cs: ChunkSet) -> None:
        prepared = self.prepared  # cs's, made with it (else both widgets measure cs themselves)
        self.query_one("#histogram", SizeHistogram).show(
            cs, self.budget, self.unit, data=prepared.histogram if prepared else None
        )
        self.table.show(cs, self.budget, prepared.columns if prepared else None)

    def _show_selection(self, cs: ChunkSet, keep_view: bool) -> None:
        """Select the chunk under the document cursor (or the first), in the table and the detail pane."""
        if not cs.chunks:
            self.selected = None
            return
        index = self._chunk_index_at_line(self.view.cursor_line) if keep_view else 0
        self.select_chunk(0 if index is None else index, scroll=False)

    def _update_status(self) -> None:
        """Document facts, the chunk count, notes and warnings (the progress of a run shows on the stats).

        Repainted without a relayout unless its wrapped height changes: a relayout of the whole
        screen costs 40+ ms, and it was asked for three times per re-chunk.
        """
        doc, cs = self.doc, self.chunkset
        if self.reading is not None:
            name, fraction = self.reading
            text = f"reading [b]{name}[/b] {progress_bar(fraction)}"
            if doc is not None:
                text += f" [dim](showing {doc.name} until then)[/]"
        elif doc is None:
            text = "no document"
        else:
            kind = f"{doc.kind}/{doc.language}" if doc.language else doc.kind
            text = f"[b]{doc.name}[/b] · {kind} · {doc.line_count:,} lines · {len(doc.text):,} chars"
            if self.mode == "review":
                text += " · [reverse] review [/]"
            if cs is not None:
                text += f" · {cs.strategy} → {len(cs.chunks):,} chunk{'s' if len(cs.chunks) != 1 else ''}"
                auto = [self.auto_note] if self.auto_note and cs.strategy == self.auto_pick else []
                extra = auto + list(cs.notes) + list(cs.warnings)
                if extra:
                    text += "\n[dim]" + " · ".join(extra)[:300].replace("[", r"\[") + "[/]"
        status = self.query_one("#status", Static)
        if str(status.content) == text:
            return
        status.update(text, layout=False)
        width = status.content_region.width
        if width and min(3, status.get_content_height(status.size, self.size, width)) != status.content_region.height:
            status.refresh(layout=True)

    def _chunk_index_at_line(self, line: int) -> int | None:
        cs, doc = self.chunkset, self.doc
        if cs is None or doc is None or not cs.chunks:
            return None
        start, end = doc.line_start(line), doc.line_end(line)
        chunk = cs.chunk_at(start)
        if chunk is None:
            from bisect import bisect_left

            if self._starts_of is None or self._starts_of[0] is not cs:  # once per chunking, not per cursor move
                self._starts_of = (cs, [c.start for c in cs.chunks])
            i = bisect_left(self._starts_of[1], start)
            if i < len(cs.chunks) and cs.chunks[i].start < max(end, start + 1):
                return i
            return None
        return chunk.index

    def select_chunk(self, index: int, scroll: bool = True) -> None:
        """Select chunk `index` everywhere: document tint (and scroll), table row, detail pane."""
        cs = self.chunkset
        if cs is None or not cs.chunks:
            return
        index = max(0, min(len(cs.chunks) - 1, index))
        self.selected = index
        self.view.select(index, scroll=scroll)
        if self.table.row_count > index and self.table.cursor_row != index:
            self.table.move_cursor(row=index, animate=False)

    def watch_selected(self, index: int | None) -> None:
        """The detail pane and the flags panel show the selected chunk (or none)."""
        cs = self.chunkset
        self.query_one("#detail", ChunkDetail).show(None if cs is None or index is None else cs.chunks[index], cs)
        self.show_chunk_flags(index)

    def watch_mode(self, mode: str) -> None:
        """Review mode shows saved chunks: the controls are read-only until ctrl+t tunes."""
        self.controls.disabled = mode == "review"

    def action_select_chunk(self, index: int) -> None:
        """Select chunk `index` and scroll the document to it (a click in the detail pane's panels)."""
        self.select_chunk(int(index), scroll=True)

    def action_goto_line(self, line: int) -> None:
        """Put the document cursor on `line` (a gap, a definition); the chunk there, if any, is selected."""
        if self.doc is None:
            return
        line = max(1, min(self.doc.line_count, int(line)))
        self.view.scroll_to(y=max(0, line - 1), animate=False, immediate=True)
        self.view.cursor_line = line
        index = self._chunk_index_at_line(line)
        if index is not None:
            self.select_chunk(index, scroll=False)

    def on_document_view_cursor_moved(self, message: DocumentView.CursorMoved) -> None:
        index = self._chunk_index_at_line(message.line)
        if index is not None and index != self.selected:
            self.select_chunk(index, scroll=False)

    def on_chunk_table_row_highlighted(self, event: ChunkTable.RowHighlighted) -> None:
        table = self.table
        # only the user's own moves: programmatic ones happen without focus, stale ones lag the cursor
        if (
            event.chunk_table is table
            and table.has_focus
            and event.cursor_row == table.cursor_row
            and event.cursor_row != self.selected
        ):
            self.select_chunk(event.cursor_row, scroll=True)

    def on_chunk_table_row_selected(self, event: ChunkTable.RowSelected) -> None:
        if event.chunk_table is self.table:
            self.select_chunk(event.cursor_row, scroll=True)

    # -- actions ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "tune":
            return self.mode == "review"
        return True

    async def action_strategy(self, name: str) -> None:
        """Switch strategy, keeping what the user had set for each strategy in this session."""
        if self.mode != "tune":
            self.notify("Review mode shows saved chunks; ctrl+t switches to tuning first.", severity="warning")
            return
        current = self.controls.strategy_name
        name = self._resolve_auto(name)
        if name == current:
            self.controls.show_strategy(current)  # the Select may still show "auto"
            return
        self._remembered[current] = self.controls.raw_values
        await self.controls.build_fields(name, self._remembered.get(name))

    async def on_controls_pane_strategy_picked(self, message: ControlsPane.StrategyPicked) -> None:
        await self.action_strategy(message.name)

    async def action_next_strategy(self) -> None:
        """Step to the next strategy made for this document's kind (or for any); in demo mode every
        strategy, opening a sample document it is made for."""
        names = [s.name for s in all_strategies() if not s.delegates]  # auto resolves to one of the others
        current = self.controls.strategy_name
        after = names.index(current) + 1 if current in names else 0
        ordered = names[after:] + names[:after]
        if not (self.demo and self.demo_dir is not None) and self.doc is not None:
            # strategies made for other formats (cues, email, data…) cannot read this document: skip them
            ordered = [n for n in ordered if not get_strategy(n).kinds or self.doc.kind in get_strategy(n).kinds]
        name = ordered[0] if ordered else current
        strategy = get_strategy(name)
        if (
            self.demo
            and self.demo_dir is not None
            and strategy.kinds
            and self.doc is not None
            and self.doc.kind not in strategy.kinds
        ):
            sample = self._demo_sample_for(strategy.kinds)
            if sample is not None:
                self._remembered[current] = self.controls.raw_values
                await self._demo_step(load_document(sample), name)
                return
        if self.demo and self.doc is not None:
            self._remembered[current] = self.controls.raw_values
            await self._demo_step(self.doc, name)
            return
        await self.action_strategy(name)

    def _demo_sample_for(self, kinds: tuple[str, ...]) -> Path | None:
        from chunktui.engine import detect_kind

        if self.demo_dir is None:
            return None
        for path in demo_files(self.demo_dir):
            if detect_kind(str(path))[0] in kinds:
                return path
        return None

    async def start_demo(self) -> None:
        self.demo_dir = find_sample_docs()
        if self.demo_dir is None or not demo_files(self.demo_dir):
            self._set_banner(
                "Demo: the bundled sample_docs/ folder was not found next to the chunktui package "
                "or in the current folder; run `chunktui demo` from a chunktui checkout.",
                warn=True,
            )
            self.notify("sample_docs/ not found", title="Demo", severity="error", timeout=10)
            return
        first = next(s for s in all_strategies() if not s.delegates)  # the tour starts at 1/N
        sample = (self._demo_sample_for(first.kinds) if first.kinds else None) or demo_files(self.demo_dir)[0]
        await self._demo_step(load_document(sample), first.name)

    async def _demo_step(self, doc: Document, name: str) -> None:
        """Open a demo step with parameters that show its strategy cutting the sample."""
        await self.open_document(doc, strategy=name, params=demo_params(doc, name))
        self._demo_banner(doc)

    def _demo_banner(self, doc: Document) -> None:
        strategy = self.controls.strategy
        names = [s.name for s in all_strategies() if not s.delegates]
        position = names.index(strategy.name) + 1 if strategy.name in names else 0
        self._set_banner(
            f"Demo {position}/{len(names)} · [b]{strategy.name}[/b] on {doc.name}: "
            f"{strategy.summary}   (s: next strategy)"
        )

    def _step(self, param_name: str | None, direction: int, what: str) -> None:
        if self.mode != "tune":
            self.notify("Review mode: ctrl+t switches to tuning.", severity="warning")
            return
        strategy = self.controls.strategy
        field = self.controls.field(param_name) if param_name else None
        if field is None:
            self.notify(f"{strategy.name} has no {what} parameter", severity="warning")
            return
        field.step(direction)

    def action_size(self, direction: int) -> None:
        self._step(self.controls.strategy.size_param, direction, "size")

    def action_overlap(self, direction: int) -> None:
        self._step(self.controls.strategy.overlap_param, direction, "overlap")

    def action_reset(self) -> None:
        if self.mode == "tune":
            self.controls.reset()

    def action_next_chunk(self) -> None:
        self.select_chunk(0 if self.selected is None else self.selected + 1)

    def action_prev_chunk(self) -> None:
        self.select_chunk(0 if self.selected is None else self.selected - 1)

    def action_toggle_unit(self) -> None:
        self.unit = "chars" if self.unit == "tokens" else "tokens"

    def watch_unit(self, unit: str) -> None:
        data = (
            self.prepared.histogram if self.prepared is not None and self.prepared.chunkset is self.chunkset else None
        )
        self.query_one("#histogram", SizeHistogram).show(self.chunkset, self.budget, unit, data=data)

    def action_toggle_detail(self) -> None:
        """Maximize the detail pane (its panels sit below the fold at normal size), or restore it."""
        detail = self.query_one("#detail", ChunkDetail)
        screen = self.screen
        if screen.maximized is detail:
            screen.minimize()
        elif not screen.maximize(detail, container=False):
            return
        # the detail was wrapped at its old width: draw it again at the new one
        self.call_after_refresh(lambda: detail.show(detail.shown, self.chunkset))

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        palette = Binding(
            "ctrl+p", "command_palette", "Palette", id="palette", tooltip="Every strategy and every action, searchable"
        )
        groups = [
            ("app", [*self.BINDINGS, palette]),
            ("document view", DocumentView.BINDINGS),
            ("chunk table", ChunkTable.BINDINGS),
            ("query pane", QueryPane.BINDINGS),
        ]
        self.push_screen(HelpScreen(groups))

    def action_export(self) -> None:
        from .screens.export import ExportScreen
        from .web_export import offer_download

        if self.chunkset is None or not self.chunkset.chunks:
            self.notify("Nothing to export yet.", severity="warning")
            return

        screen = ExportScreen(self.chunkset, self.last_export)

        def done(result) -> None:
            if result is not None:
                self.last_export = screen.last
                self.notify(
                    f"{len(result.files)} files written; manifest: {result.manifest_path}", title="Exported", timeout=10
                )
                offer_download(self, result)  # in a browser the files are on the server: send a zip

        self.push_screen(screen, done)

    def action_save_profile(self) -> None:
        from .screens.profile import SaveProfileScreen

        request = self.current_request() if self.mode == "tune" else None
        if request is None:
            self.notify("Fix the marked parameters (or switch to tuning) before saving a profile.", severity="warning")
            return
        strategy, values, tokenizer, context_header = request
        stem = self.doc.name.replace(".", "-") if self.doc else "chunktui"
        default = Path.cwd() / f"{stem}.{strategy}.profile.yaml"

        def done(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Profile saved: {path}", title="Saved", timeout=8)

        self.push_screen(
            SaveProfileScreen(default, strategy, dict(values), tokenizer, self.budget, context_header), done
        )

    async def action_tune(self) -> None:
        """Leave review mode: re-open the unchanged source and chunk it from the saved parameters."""
        loaded = self.review
        if self.mode != "review" or loaded is None:
            return
        if not loaded.source_matches:
            self.notify(
                "The source changed or is missing, so the saved parameters would not reproduce "
                "these chunks; open the source file to tune it afresh.",
                severity="warning",
                timeout=8,
            )
            return
        cs = loaded.chunkset
        try:
            doc = load_document(loaded.source_path, reader_options=self.review_reader_options(cs.document))
        except ChunktuiError as exc:
            self.notify(str(exc), severity="error")
            return
        await self.open_document(doc, strategy=cs.strategy, params=dict(cs.params), tokenizer=cs.tokenizer)

    def review_reader_options(self, reviewed: Document) -> dict:
        """The reader options that gave the reviewed text: the stored HTML mode, and --password."""
        extraction = getattr(reviewed, "extraction", None)
        mode = {"html": extraction.mode} if extraction is not None and extraction.mode else {}
        return {**self.reader_options, **mode}


def run_app(path=None, profile=None, demo: bool = False, **options) -> None:
    """Entry point for the CLI: `chunktui FILE`, `chunktui` (file picker) and `chunktui demo`."""
    ChunktuiApp(path=path, profile=profile, demo=demo, **options).run()


def review_note(path: Path, loaded) -> str:
    """The banner of a review: whether the saved chunks' source is there and gives the same text
    (a file unchanged but extracted differently, by a new extractor or new rules, says so)."""
    source = loaded.source_path or "the source"
    if loaded.source_matches:
        note = (
            f"Reviewing {path.name}: {len(loaded.chunkset.chunks)} chunks as saved by {loaded.chunkset.strategy}. "
            f"{source} is unchanged: ctrl+t tunes from these parameters."
        )
    elif loaded.source_locked:
        note = (
            f"Reviewing {path.name}: {source} is not checked ({loaded.source_locked}); "
            "showing the chunks exactly as stored."
        )
    elif loaded.extracted_differently:
        note = (
            f"Reviewing {path.name}: {source} is the same file, extracted differently "
            f"({loaded.extracted_differently}); showing the chunks exactly as stored."
        )
    elif loaded.source_found:
        note = (
            f"Reviewing {path.name}: {source} CHANGED since these chunks were saved (sha256 differs); "
            "showing the chunks exactly as stored."
        )
    else:
        note = f"Reviewing {path.name}: {source} not found; showing the stored chunks over text rebuilt from them."
    return note


def document_note(doc) -> str:
    """The banner over a document just opened: what HTML main content left out of the page (the
    status line holds it too, among the notes, but cut to its width), else nothing."""
    ex = getattr(doc, "extraction", None)
    if ex is None or ex.mode != "main" or ex.kept_chars >= ex.page_chars:
        return ""
    from chunktui.engine.readers.html import main_content_note

    return main_content_note(ex.kept_chars, ex.page_chars)
