"""The query pane: ask the chunking on screen a question, and score it on questions with known answers.

`/` shows the pane in the detail pane's place. A question typed there is searched with the
engine's BM25 index over every chunk's embedded text (the index `chunktui eval` uses); the top k
chunks are listed with their scores, starred in the document's gutter and in the chunk table,
and enter or a click on one selects it. Questions with known answers (`chunktui FILE --queries
Q`, or a path typed in the pane; a number there makes that many synthetic questions) are
evaluated with the engine's `evaluate_retrieval` after every chunking: their reference text is
drawn green where the top k chunks hold it and red where they miss it, each question is listed
hit or missed, and the stats panel shows recall and IoU at k while the user tunes.

All retrieval runs in one exclusive thread worker; each run builds the index of its chunking
(the document's tokens are made once, by the first run, and kept for the next chunkings); typing
is debounced, and a result for a chunking or a question no longer on screen is dropped.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import islice
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from chunktui.engine import ChunkSet, ChunktuiError, Document
from chunktui.engine.core.model import one_line
from chunktui.engine.analysis.bm25 import document_tokens
from chunktui.engine.analysis.retrieval import (
    TOKEN_BUDGET,
    BM25Index,
    Fts5Index,
    RetrievalReport,
    auto_queries,
    bm25_index,
    embedded_tokens,
    evaluate_retrieval,
    load_queries,
    merge,
)
from .host import HostedMixin
from .widgets.stats_panel import StatsPanel

DEFAULT_K = 5
MAX_K = 100
QUESTION_DEBOUNCE = 0.15  # seconds of typing before the question is searched

QUERY_BINDINGS = [
    Binding(
        "slash",
        "query_pane",
        "Query",
        key_display="/",
        id="query_pane",
        tooltip="Ask a question: the top chunks by BM25 with their scores; load questions with known answers "
        "(escape hides the pane)",
    ),
]


# --- what the pane shows, from the engine's results ------------------------------------------------


def reference_marks(report: RetrievalReport, chunks, k: int) -> list[tuple[int, int, bool]]:
    """The questions' reference text as sorted, disjoint (start, end, retrieved) ranges: retrieved
    where the question's top k chunks hold it. Where the references of two questions overlap and
    one of them misses the text, it is drawn missed."""
    pieces = []
    for result in report.results:
        got = merge((chunks[pos].start, chunks[pos].end) for pos, _ in result.ranked[:k])
        for ref in result.query.references:
            pieces += _split(ref.start, ref.end, got)
    return _flatten(pieces)


def _split(start: int, end: int, got) -> list[tuple[int, int, bool]]:
    """[start, end) cut into the pieces inside and outside the sorted, disjoint ranges `got`."""
    out, at = [], start
    for s, e in got:
        if e <= at:
            continue
        if s >= end:
            break
        if s > at:
            out.append((at, s, False))
        out.append((max(s, at), min(e, end), True))
        at = min(e, end)
    if at < end:
        out.append((at, end, False))
    return out


def _flatten(pieces) -> list[tuple[int, int, bool]]:
    """Overlapping (start, end, retrieved) pieces as disjoint ranges, missed over retrieved."""
    hits: defaultdict[int, int] = defaultdict(int)
    misses: defaultdict[int, int] = defaultdict(int)
    for s, e, retrieved in pieces:
        counts = hits if retrieved else misses
        counts[s] += 1
        counts[e] -= 1
    out: list[tuple[int, int, bool]] = []
    h = m = 0
    points = sorted(set(hits) | set(misses))
    for a, b in zip(points, points[1:]):
        h, m = h + hits[a], m + misses[a]
        if not h and not m:
            continue
        state = not m
        if out and out[-1][1] == a and out[-1][2] == state:
            out[-1] = (out[-1][0], b, state)
        else:
            out.append((a, b, state))
    return out


def retrieval_line(report: RetrievalReport | None, k: int, synthetic: bool) -> Text:
    """The stats panel's two lines, at most 31 cells each: recall and IoU at k, and at the token
    budget as the sweep grid has them (`]` buys recall at k with size, not within the budget);
    means over the questions. Synthetic ones say so in place of the IoU at the budget."""
    if report is None:
        return Text(f"{'synthetic ' if synthetic else ''}recall@{k} …", "dim")
    means, budget = report.means(), f"{report.budget / 1000:g}k tok"
    iou = "synthetic" if synthetic else f"{budget} {means['iou@budget']:.3f}"
    return Text(
        f"recall@{k} {means[f'recall@{k}']:.3f} · {budget} {means['recall@budget']:.3f}\n"
        f"IoU@{k} {means[f'iou@{k}']:.3f} · {iou}",
        "bold",
    )


def questions_label(source: str, queries) -> str:
    n = len(queries)
    if queries and queries[0].synthetic:
        return f"synthetic: {n} questions made from the document ({source}), not a benchmark"
    return f"{source}: {n} question{'s' if n != 1 else ''}"


# --- the pane -------------------------------------------------------------------------------------


class QueryPane(Vertical):
    """A question and k, a queries file, a summary line, and one list: the question's top chunks,
    then the loaded questions marked hit or missed. Its inputs post the messages below; the app
    (QueryMixin) does the work."""

    BINDINGS = [Binding("escape", "close", "Close", id="query.close", tooltip="Hide the query pane")]

    class QuestionChanged(Message):
        def __init__(self, question: str, now: bool) -> None:
            super().__init__()
            self.question, self.now = question, now

    class RankCountChanged(Message):
        def __init__(self, k: int) -> None:
            super().__init__()
            self.k = k

    class QueriesRequested(Message):
        """A path (or a number of synthetic questions) typed in the pane."""

        def __init__(self, source: str) -> None:
            super().__init__()
            self.source = source

    class ChunkChosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class QueryChosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Closed(Message):
        pass

    def compose(self) -> ComposeResult:
        with Horizontal(id="query-row"):
            yield Label("ask")
            yield Input(placeholder="a question: its top chunks by BM25", id="query-input", compact=True)
            yield Label(" k")
            yield Input(str(DEFAULT_K), id="query-k", compact=True, restrict=r"[0-9]*", max_length=3)
        with Horizontal(id="queries-row"):
            yield Label("questions")
            yield Input(
                placeholder="Q.jsonl or Q.csv with known answers, or N synthetic; enter loads",
                id="queries-input",
                compact=True,
            )
        yield Static("", id="query-summary")
        yield OptionList(id="query-list")

    @property
    def question_input(self) -> Input:
        return self.query_one("#query-input", Input)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "query-input":
            self.post_message(self.QuestionChanged(event.value, now=False))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "query-input":
            self.post_message(self.QuestionChanged(event.value, now=True))
            self.query_one("#query-list").focus()
        elif event.input.id == "query-k":
            try:
                k = int(event.value)
            except ValueError:
                k = 0
            if not 1 <= k <= MAX_K:
                self.notify(f"k: a whole number from 1 to {MAX_K}, not {event.value!r}", severity="warning")
                return
            self.post_message(self.RankCountChanged(k))
        elif event.input.id == "queries-input" and event.value.strip():
            self.post_message(self.QueriesRequested(event.value.strip()))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "chunk":
            self.post_message(self.ChunkChosen(int(value)))
        elif kind == "query":
            self.post_message(self.QueryChosen(int(value)))

    def action_close(self) -> None:
        self.post_message(self.Closed())

    def show(
        self, cs: ChunkSet | None, question: str, hits, queries, report: RetrievalReport | None, k: int, source: str
    ) -> None:
        """Redraw the summary and the list (the inputs are the user's)."""
        summary = self.query_one("#query-summary", Static)
        if queries:
            text = questions_label(source, queries)
            if report is not None:
                results = report.results
                hit = sum(r.metrics[f"hit@{k}"] > 0 for r in results)
                means = report.means()
                text += (
                    f" · recall@{k} {means[f'recall@{k}']:.3f} · IoU {means[f'iou@{k}']:.3f}"
                    f" · {hit} hit, {len(results) - hit} missed"
                )
            summary.update(Text(text), layout=False)  # one line high (app.tcss): no relayout
        else:
            summary.update(Text("no questions with known answers loaded", "dim"), layout=False)
        options: list = []
        if question.strip() and cs is not None:
            if not hits:
                options.append(Option(Text("no chunk holds a word of the question", "dim"), disabled=True))
            for rank, (pos, score) in enumerate(hits, 1):
                c = cs.chunks[pos]
                label = c.metadata.get("header_path") or c.metadata.get("scope_chain") or c.boundary_label
                if isinstance(label, (list, tuple)):
                    label = " > ".join(map(str, label))
                options.append(
                    Option(
                        Text.assemble(
                            (f"★{rank} ", "bold"),
                            f"#{pos + 1}  ",
                            (f"{score:6.2f}", "bold"),
                            f"  L{c.start_line}-{c.end_line}  ",
                            (one_line(str(label)), "dim"),
                        ),
                        id=f"chunk:{pos}",
                    )
                )
        if queries and report is not None:
            if options:
                options.append(None)
            for i, result in enumerate(report.results):
                hit = result.metrics[f"hit@{k}"] > 0
                options.append(
                    Option(
                        Text.assemble(
                            ("✓ hit    " if hit else "✗ missed ", "green bold" if hit else "red bold"),
                            f"Q{i + 1} ",
                            ("synthetic " if result.query.synthetic else "", "italic"),
                            (f"recall {result.metrics[f'recall@{k}']:.2f}  ", "dim"),
                            result.query.question,
                        ),
                        id=f"query:{i}",
                    )
                )
        listing = self.query_one("#query-list", OptionList)
        was = listing.highlighted_option.id if listing.highlighted_option is not None else None
        listing.clear_options()
        listing.add_options(options)
        ids = [o.id for o in options if o is not None]  # a separator is not an option: no index
        # the row the user was on stays highlighted (a question's results are listed above it);
        # else the first, so that enter on the list goes to the best chunk at once
        at = ids.index(was) if was in ids else 0
        if options and not listing.get_option_at_index(at).disabled:
            listing.highlighted = at


class RetrievalReady(Message):
    def __init__(self, request: int, chunkset: ChunkSet, question: str, hits, report) -> None:
        super().__init__()
        self.request, self.chunkset, self.question, self.hits, self.report = request, chunkset, question, hits, report


class QuestionsLoaded(Message):
    def __init__(self, document: Document, queries, source: str, error: str | None = None) -> None:
        super().__init__()
        self.document, self.queries, self.source, self.error = document, queries, source, error


# --- the app's side -------------------------------------------------------------------------------


def _evaluate(cs: ChunkSet, queries, k: int, index: BM25Index | Fts5Index, is_cancelled) -> RetrievalReport | None:
    """The engine's evaluation at k, one question at a time so that a run for a chunking already
    replaced stops between two questions instead of holding a core until the last; None then.
    At k and at the token budget (the stats line has both)."""
    tokens = embedded_tokens(cs.chunks)
    report = RetrievalReport((k,), TOKEN_BUDGET)
    for query in queries:
        if is_cancelled():
            return None
        report.results += evaluate_retrieval(
            cs, [query], ks=(k,), budget=TOKEN_BUDGET, index=index, tokens=tokens
        ).results
    return report


class QueryMixin(HostedMixin):
    """Mixed into ChunktuiApp; reads and calls what `AppHost` declares.
    Hooks: `retrieve_for(cs)` when a chunking is shown, `questions_for(doc)` when a document opens."""

    queries: tuple = ()
    queries_source = ""  # the file name, or how the synthetic questions were made
    queries_doc: Document | None = None
    question = ""
    query_k = DEFAULT_K
    query_report: RetrievalReport | None = None  # of the chunking shown, at query_k
    query_hits: list = []  # (chunk position, score) of the question, best first
    _retrieval_request = 0
    _question_timer: Timer | None = None
    _marks_shown: list = []
    pending_questions: str | None = None  # --queries Q or --auto-queries N, loaded with the first document

    @property
    def query_pane(self) -> QueryPane:
        return self.query_one("#query-pane", QueryPane)

    # -- hooks -------------------------------------------------------------------------------

    def retrieve_for(self, cs: ChunkSet | None) -> None:
        """A new chunking is on screen: its retrieval starts now (no debounce: the stats wait for it)."""
        self.query_report, self.query_hits = None, []
        self._draw_retrieval()
        if cs is not None and (self.queries or self.question.strip()):
            self._start_retrieval()

    def questions_for(self, doc: Document) -> None:
        """A document opened: questions of another document no longer apply; the command line's load now."""
        if self.queries and self.queries_doc is not doc:
            self.notify(
                f"The questions of {self.queries_source} were for "
                f"{self.queries_doc.name if self.queries_doc else 'another document'}; "
                "they are put away.",
                title="Questions",
                timeout=6,
            )
            self._set_questions(None, (), "")
        if self.pending_questions is not None:
            source, self.pending_questions = self.pending_questions, None
            self.load_questions_worker(doc, source)

    # -- retrieval in the background ------------------------------------------------------------

    def _start_retrieval(self) -> None:
        cs = self.chunkset
        if cs is None:
            return
        self._retrieval_request += 1
        queries = self.queries if self.query_report is None else ()
        self.retrieval_worker(self._retrieval_request, cs, queries, self.question, self.query_k)

    @work(thread=True, exclusive=True, group="retrieval", exit_on_error=False)
    def retrieval_worker(self, request: int, cs: ChunkSet, queries, question: str, k: int) -> None:
        worker = get_current_worker()
        try:
            index = bm25_index(cs.chunks, cs.document.text)
            try:
                report = _evaluate(cs, queries, k, index, lambda: worker.is_cancelled) if queries else None
                hits = list(islice(index.search(question), k)) if question.strip() else []
            finally:
                index.close()
        except Exception as exc:  # a retrieval bug must not leave the stats waiting without a word
            self.call_from_thread(
                self.notify, f"internal error in retrieval: {exc!r}", title="Query pane", severity="error", timeout=8
            )
            return
        if not worker.is_cancelled:
            self.post_message(RetrievalReady(request, cs, question, hits, report))
            document_tokens(cs.document.text)  # kept for the next chunking's index (made once per document)

    def on_retrieval_ready(self, message: RetrievalReady) -> None:
        if message.request != self._retrieval_request or message.chunkset is not self.chunkset or not self.is_running:
            return  # stale: another chunking, question, k or set of questions is on its way
        if message.report is not None:
            self.query_report = message.report
        self.query_hits = message.hits
        self._draw_retrieval()

    def _draw_retrieval(self) -> None:
        """Ranks in the gutter and the table, reference marks, the stats line and the pane, from what is known."""
        cs, k = self.chunkset, self.query_k
        ranks = {pos: rank for rank, (pos, _) in enumerate(self.query_hits, 1)}
        if not self.queries:
            self._marks_shown = []
        elif self.query_report is not None and cs is not None:
            self._marks_shown = reference_marks(self.query_report, cs.chunks, k)
        self.view.set_retrieval(ranks, self._marks_shown)
        self.table.set_ranks(ranks)
        synthetic = bool(self.queries) and self.queries[0].synthetic
        stats = self.query_one("#stats", StatsPanel)
        stats.show_retrieval(retrieval_line(self.query_report, k, synthetic) if self.queries else None)
        self._draw_pane()

    def _draw_pane(self) -> None:
        """The pane's list and summary, only while it shows: a hidden pane costs a re-chunk nothing."""
        if self.query_pane.display:
            self.query_pane.show(
                self.chunkset,
                self.question,
                self.query_hits,
                self.queries,
                self.query_report,
                self.query_k,
                self.queries_source,
            )

    # -- loading questions ---------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="questions", exit_on_error=False)
    def load_questions_worker(self, doc: Document, source: str) -> None:
        """A queries file read against `doc`, or `N` synthetic questions from it (seed 0)."""
        worker = get_current_worker()
        try:
            if source.isdigit():
                n = int(source)
                queries = auto_queries(doc.text, n, 0) if n > 0 else []
                if not queries:
                    raise ChunktuiError(f"{doc.name} has no sentence of 8 to 60 words to ask about")
                label = "seed 0"
            else:
                queries = load_queries(Path(source).expanduser(), doc.text)
                label = Path(source).name
        except ChunktuiError as exc:
            self.post_message(QuestionsLoaded(doc, (), source, str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(QuestionsLoaded(doc, tuple(queries), label))

    def on_questions_loaded(self, message: QuestionsLoaded) -> None:
        if message.document is not self.doc or not self.is_running:
            return
        if message.error is not None:
            self.notify(message.error, title="Cannot load questions", severity="error", timeout=8)
            return
        self._set_questions(message.document, message.queries, message.source)
        self.notify(questions_label(message.source, message.queries), title="Questions", timeout=5)

    def _set_questions(self, doc: Document | None, queries, source: str) -> None:
        self.queries, self.queries_doc, self.queries_source = queries, doc, source
        self.query_report = None
        self._draw_retrieval()
        if queries:
            self._start_retrieval()

    # -- the pane's messages ------------------------------------------------------------------

    def on_query_pane_question_changed(self, message: QueryPane.QuestionChanged) -> None:
        self.question = message.question
        if self._question_timer is not None:
            self._question_timer.stop()
            self._question_timer = None
        if message.now:
            self._start_retrieval()
        else:
            self._question_timer = self.set_timer(QUESTION_DEBOUNCE, self._question_settled)

    def _question_settled(self) -> None:
        self._question_timer = None
        if not self.question.strip():
            self.query_hits = []
            self._retrieval_request += 1  # a search still running for the old text is dropped
            self._draw_retrieval()
            return
        self._start_retrieval()

    def on_query_pane_rank_count_changed(self, message: QueryPane.RankCountChanged) -> None:
        if message.k != self.query_k:
            self.query_k = message.k
            self.query_report = None
            self._draw_retrieval()
            self._start_retrieval()

    def on_query_pane_queries_requested(self, message: QueryPane.QueriesRequested) -> None:
        if self.doc is None:
            self.notify("Open a document first.", severity="warning")
            return
        self.load_questions_worker(self.doc, message.source)

    def on_query_pane_chunk_chosen(self, message: QueryPane.ChunkChosen) -> None:
        self.select_chunk(message.index, scroll=True)

    def on_query_pane_query_chosen(self, message: QueryPane.QueryChosen) -> None:
        """A loaded question: ask it (its top chunks get their stars) and go to its first reference."""
        if not 0 <= message.index < len(self.queries) or self.doc is None:
            return
        query = self.queries[message.index]
        self.query_pane.question_input.value = query.question  # posts QuestionChanged: the search follows
        self.action_goto_line(self.doc.line_of(query.references[0].start))

    def on_query_pane_closed(self, _message: QueryPane.Closed) -> None:
        """Escape in the pane: the detail pane comes back; the question's stars and the marks stay."""
        self.query_pane.display, self.query_one("#detail").display = False, True
        self.view.focus()

    # -- actions ---------------------------------------------------------------------------

    def action_query_pane(self, focus: str = "#query-input") -> None:
        """Show the pane in the detail pane's place and focus its question (escape hides it)."""
        pane = self.query_pane
        pane.display, self.query_one("#detail").display = True, False
        self._draw_pane()
        pane.query_one(focus, Input).focus()

    def action_load_queries(self) -> None:
        self.action_query_pane("#queries-input")
