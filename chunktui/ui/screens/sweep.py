"""Sweep screen: run a strategy x size x overlap grid and pick the configuration to apply.

The grid runs in a thread worker (the engine's sweep farms cells out to processes);
the table colours each score from red to green, and enter on a row dismisses the
screen with that configuration so the app re-chunks with it. With questions loaded in the
query pane, each cell also gets recall and IoU at the token budget (as `chunktui sweep
--queries`), and the heat and the star follow recall (`r` switches back to the score).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, ProgressBar, Static
from textual.worker import get_current_worker

from chunktui.engine import Cancelled, ChunktuiError, Document, get_strategy
from chunktui.engine.analysis.quality import FLAG_NAMES

if TYPE_CHECKING:
    from chunktui.engine.analysis.sweep import Cell, SweepResult

COLUMNS = ("strategy", "size", "overlap", "chunks", "median", "p95", "over%", "score", "flags")
RETRIEVAL_COLUMNS = ("recall", "iou")  # before the flags, with questions loaded


def suggested_sizes(strategy: str, value) -> str:
    """Six sizes from a quarter to twice the current one, inside the parameter's range."""
    strat = get_strategy(strategy)
    param = strat.param(strat.size_param) if strat.size_param else None
    if param is None or not isinstance(value, (int, float)) or value <= 0:
        return ""
    lo = param.min if param.min is not None else 1
    hi = param.max if param.max is not None else value * 2
    picks = sorted({int(min(hi, max(lo, round(value * f)))) for f in (0.25, 0.5, 0.75, 1, 1.5, 2)})
    return ",".join(map(str, picks))


def suggested_overlaps(strategy: str, value) -> str:
    strat = get_strategy(strategy)
    param = strat.param(strat.overlap_param) if strat.overlap_param else None
    if param is None or not isinstance(value, (int, float)):
        return ""
    base = (
        value if value > 0 else (param.default if isinstance(param.default, (int, float)) and param.default > 0 else 0)
    )
    return ",".join(str(v) for v in sorted({0, int(base), int(base * 2)}))


def score_style(score: float) -> str:
    """A red-to-green background for a 0..100 score (the heat in the table)."""
    t = max(0.0, min(1.0, score / 100))
    red, green = int(200 * (1 - t)) + 30, int(170 * t) + 30
    return f"bold white on rgb({red},{green},40)"


class SweepDone(Message):
    def __init__(self, result: SweepResult) -> None:
        super().__init__()
        self.result = result


class SweepFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class SweepProgress(Message):
    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total


class SweepScreen(ModalScreen["dict | None"]):
    """Dismisses with {"strategy", "params"} of the chosen cell, or None."""

    DEFAULT_CSS = """
    SweepScreen { align: center middle; }
    #sweep-box { width: 95%; height: 90%; border: thick $accent; background: $surface; padding: 0 1; }
    #sweep-inputs { height: 1; margin: 1 0; }
    #sweep-inputs Label { width: auto; padding: 0 1; }
    #sweep-strategies { width: 1fr; }
    #sweep-sizes { width: 2fr; }
    #sweep-overlaps { width: 1fr; }
    #sweep-run { margin-left: 1; }
    #sweep-progress { height: 1; }
    #sweep-status { height: auto; max-height: 2; }
    #sweep-table { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="sweep.close", tooltip="Close without changing the configuration"),
        Binding("ctrl+r", "run", "Run", id="sweep.run", tooltip="Run the grid"),
        Binding(
            "r",
            "heat",
            "Colour by",
            id="sweep.heat",
            tooltip="Colour and star the grid by recall or by score (with questions loaded)",
        ),
    ]

    def __init__(
        self,
        doc: Document,
        strategy: str,
        params: dict,
        tokenizer: str,
        budget: int,
        context_header: str = "none",
        queries=(),
    ) -> None:
        """`queries`: the query pane's questions (retrieval.Query) about `doc`, if any."""
        from chunktui.engine.analysis.sweep import resolve_strategies

        super().__init__()
        resolved = resolve_strategies(doc, [strategy])[0][0]  # auto: the strategy it picks, with its defaults
        self.doc, self.strategy = doc, resolved
        self.params = dict(params) if resolved == get_strategy(strategy).name else {}
        self.tokenizer, self.budget, self.context_header = tokenizer, budget, context_header
        self.queries = tuple(queries)
        self.heat = "recall" if self.queries else "score"
        self.result: SweepResult | None = None
        strat = get_strategy(resolved)
        self.sizes = suggested_sizes(strategy, self.params.get(strat.size_param))
        self.overlaps = suggested_overlaps(strategy, self.params.get(strat.overlap_param))

    def compose(self) -> ComposeResult:
        with Vertical(id="sweep-box"):
            questions = ""
            if self.queries:
                from chunktui.engine.analysis.retrieval import TOKEN_BUDGET

                kind = "synthetic questions" if self.queries[0].synthetic else "questions"
                questions = (
                    f"recall/IoU of {len(self.queries)} {kind} at {TOKEN_BUDGET:,} retrieved tokens "
                    "(r: colour by recall or score) · "
                )
            yield Static(
                f"[b]Sweep [/b]{self.doc.name} · budget {self.budget} tokens · {questions}"
                "enter on a row applies it, escape closes",
                id="sweep-title",
            )
            with Horizontal(id="sweep-inputs"):
                yield Label("strategies")
                yield Input(self.strategy, id="sweep-strategies", compact=True)
                yield Label("sizes")
                yield Input(self.sizes, id="sweep-sizes", compact=True, placeholder="200:2000:200 or 256,512")
                yield Label("overlaps")
                yield Input(self.overlaps, id="sweep-overlaps", compact=True, placeholder="0,50,100")
                yield Button("Run", id="sweep-run", variant="primary", compact=True)
            yield ProgressBar(total=None, show_eta=False, id="sweep-progress")
            yield Static("", id="sweep-status")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="sweep-table")

    def on_mount(self) -> None:
        table = self.query_one("#sweep-table", DataTable)
        for name in self.columns:
            table.add_column(name, key=name)
        self.action_run()

    @property
    def columns(self) -> tuple[str, ...]:
        return COLUMNS[:-1] + RETRIEVAL_COLUMNS + COLUMNS[-1:] if self.queries else COLUMNS

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sweep-run":
            event.stop()
            self.action_run()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_run()

    def action_run(self) -> None:
        from chunktui.engine.analysis.sweep import parse_range

        strategies = [s.strip() for s in self.query_one("#sweep-strategies", Input).value.split(",") if s.strip()]
        try:
            names = [get_strategy(s).name for s in strategies] or [self.strategy]
            sizes_raw = self.query_one("#sweep-sizes", Input).value.strip()
            overlaps_raw = self.query_one("#sweep-overlaps", Input).value.strip()
            sizes = parse_range(sizes_raw, "size") if sizes_raw else [None]
            overlaps = parse_range(overlaps_raw, "overlap") if overlaps_raw else [None]
        except ChunktuiError as exc:
            self._status(str(exc), error=True)
            return
        self._status(f"running {', '.join(names)} over {len(sizes)} sizes x {len(overlaps)} overlaps…")
        self.query_one("#sweep-progress", ProgressBar).update(total=None, progress=0)
        start_resource_tracker()
        self.run_grid(names, sizes, overlaps)

    @work(thread=True, exclusive=True, group="sweep", exit_on_error=False)
    def run_grid(self, names, sizes, overlaps) -> None:
        from chunktui.engine.analysis.sweep import sweep

        worker = get_current_worker()
        try:
            result = sweep(
                self.doc,
                names,
                sizes,
                overlaps,
                base_params=self.params,
                tokenizer=self.tokenizer,
                budget=self.budget,
                context_header=self.context_header,
                is_cancelled=lambda: worker.is_cancelled,
                queries=list(self.queries) or None,
                progress=lambda done, total: self.post_message(SweepProgress(done, total)),
            )
        except Cancelled:
            return
        except ChunktuiError as exc:
            self.post_message(SweepFailed(str(exc)))
            return
        except Exception as exc:  # a strategy bug must not close the app
            self.post_message(SweepFailed(f"internal error: {exc!r}"))
            return
        if not worker.is_cancelled:
            self.post_message(SweepDone(result))

    def on_sweep_progress(self, message: SweepProgress) -> None:
        self.query_one("#sweep-progress", ProgressBar).update(total=message.total, progress=message.done)

    def on_sweep_failed(self, message: SweepFailed) -> None:
        self._status(message.error, error=True)

    def on_sweep_done(self, message: SweepDone) -> None:
        self.result = message.result
        best = self._fill_table()
        if best is not None:
            table = self.query_one("#sweep-table", DataTable)
            table.move_cursor(row=self.result.cells.index(best))
            table.focus()

    def _fill_table(self) -> Cell | None:
        """The cells as rows, the heat column (score, or recall with questions) coloured red to
        green and its best starred; returns that best cell."""
        result = self.result
        if result is None:  # no sweep has finished
            return None
        table = self.query_one("#sweep-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        best = result.best(self.heat)
        for i, c in enumerate(result.cells):
            flags = ", ".join(f"{n} {name}" for name in FLAG_NAMES if (n := c.flags[name]))
            star = "★" if c is best else " "
            score = Text(
                f" {c.score:5.1f} " + (star if self.heat == "score" else " "),
                score_style(c.score) if self.heat == "score" else "",
            )
            retrieval: tuple = ()
            if self.queries and c.recall is not None:
                recall = Text(
                    f" {c.recall:.3f} " + (star if self.heat == "recall" else " "),
                    score_style(100 * c.recall) if self.heat == "recall" else "",
                )
                retrieval = (recall, f"{c.iou:.3f}")
            table.add_row(
                c.strategy,
                _cell(c.size),
                _cell(c.overlap),
                f"{c.count:,}",
                f"{c.median_tokens:g}",
                f"{c.p95_tokens:g}",
                f"{c.over_budget_pct:.1f}",
                score,
                *retrieval,
                flags or "-",
                key=str(i),
            )
        if result.cells:
            table.move_cursor(row=min(cursor, len(result.cells) - 1))
        skipped = f"; {len(result.skipped)} skipped ({result.skipped[0].reason})" if result.skipped else ""
        notes = "".join(f" {n}." for n in result.notes)
        self._status(
            f"{len(result.cells)} configurations{skipped}.{notes} ★ best {self.heat}. "
            "Enter applies the highlighted row."
        )
        return best

    def action_heat(self) -> None:
        """Colour and star the grid by recall or by score (only with questions: without, score it is)."""
        if not self.queries:
            self.notify("Load questions in the query pane (/) to colour the grid by recall.", severity="warning")
            return
        self.heat = "score" if self.heat == "recall" else "recall"
        if self.result is not None:
            self._fill_table()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.result is None:
            return
        cell = self.result.cells[event.cursor_row]  # the rows are the cells, in order
        self.dismiss(self.chosen(cell))

    def chosen(self, cell) -> dict:
        """The configuration of `cell`: the params the sweep ran with plus the cell's size and overlap."""
        strat = get_strategy(cell.strategy)
        base = {k: v for k, v in self.params.items() if strat.param(k) is not None}
        return {"strategy": cell.strategy, "params": base | cell.params()}

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#sweep-status", Static)
        status.update(Text(text, "red" if error else ""))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "sweep")
        self.dismiss(None)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with the real stderr, before the grid's worker
    processes need it. The tracker hands stderr's file number to the process it starts; inside the
    app `sys.stderr` is Textual's print capture, whose `fileno()` is -1, so every process start of
    the sweep failed with "bad value(s) in fds_to_keep". Once running, the tracker is reused."""
    from multiprocessing import resource_tracker

    captured = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


def _cell(value) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
