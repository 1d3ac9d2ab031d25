"""Compare screen: the current configuration (A) against another (B) on the same document.

B is typed as `strategy key=value ...` (prefilled with A, so the user edits one
value) or given as a profile path. Chunking B runs in a thread worker; the result
is one document view marking boundaries only in A, only in B and in both, and a
side-by-side table of both sides' stats and flags.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from chunktui.engine import ChunkSet, ChunktuiError, ParamError, chunk_document, get_strategy
from chunktui.engine.analysis.compare import compare, describe
from chunktui.engine.analysis.quality import FLAG_NAMES
from ..widgets.boundary_view import BoundaryView


def parse_config(spec: str, tokenizer: str) -> tuple[str, dict, str]:
    """`strategy key=value ...` or a profile path -> (strategy, params, tokenizer); bad input raises."""
    spec = spec.strip()
    if not spec:
        raise ParamError("b", "type `strategy key=value ...` or a profile path")
    if spec.endswith((".yaml", ".yml")) or Path(spec).is_file():
        from chunktui.formats.profiles import load_profile

        prof = load_profile(spec)
        return prof.strategy, dict(prof.params), prof.tokenizer
    name, *pairs = spec.split()
    strat = get_strategy(name)
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ParamError(key, f"expected key=value, got {pair!r}")
        params[key] = value
    return strat.name, strat.validate(params), tokenizer


def side_table(cmp) -> Table:
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column("")
    table.add_column("A", style="#60a5fa")
    table.add_column("B", style="#f472b6")
    for label, get in (
        ("chunks", lambda s: f"{s.stats.count:,}"),
        ("median tokens", lambda s: f"{s.stats.tokens_median:g}"),
        ("p95 tokens", lambda s: f"{s.stats.tokens_p95:g}"),
        ("over budget", lambda s: f"{s.stats.over_budget}"),
        ("coverage", lambda s: f"{s.stats.coverage:.1%}"),
        ("score", lambda s: f"{s.quality.score.score:g}"),
    ):
        table.add_row(label, get(cmp.a), get(cmp.b))
    for name in FLAG_NAMES:
        a, b = cmp.a.quality.score.counts[name], cmp.b.quality.score.counts[name]
        if a or b:
            table.add_row(f"  {name}", str(a), str(b))
    return table


class CompareDone(Message):
    def __init__(self, comparison=None, error: str | None = None) -> None:
        super().__init__()
        self.comparison, self.error = comparison, error


class CompareScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    #compare-box { width: 95%; height: 92%; border: thick $accent; background: $surface; padding: 0 1; }
    #compare-title { height: auto; }
    #compare-inputs { height: 1; margin: 1 0 0 0; }
    #compare-inputs Label { width: auto; padding: 0 1; }
    #compare-b { width: 1fr; }
    #compare-go { margin-left: 1; }
    #compare-summary { height: auto; max-height: 2; margin-bottom: 1; }
    #compare-body { height: 1fr; }
    #compare-view { width: 1fr; height: 1fr; }
    #compare-stats { width: 44; height: 1fr; padding-left: 1; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="compare.close", tooltip="Back to the main screen"),
    ]

    def __init__(self, chunkset: ChunkSet, budget: int) -> None:
        super().__init__()
        self.a, self.budget = chunkset, budget
        self.comparison = None

    def compose(self) -> ComposeResult:
        with Vertical(id="compare-box"):
            yield Static(
                f"[b]Compare [/b]{self.a.document.name}   A = {describe(self.a)}   "
                "[#60a5fa]A[/] only in A · [#f472b6]B[/] only in B · [#4ade80]AB[/] both · "
                "n/p next/previous difference",
                id="compare-title",
            )
            with Horizontal(id="compare-inputs"):
                yield Label("B =")
                yield Input(
                    describe(self.a),
                    id="compare-b",
                    compact=True,
                    placeholder="strategy key=value ... or path/to/profile.yaml",
                )
                yield Button("Compare", id="compare-go", variant="primary", compact=True)
            knob = get_strategy(self.a.strategy).size_param
            hint = f"change {knob}=…" if knob else "another strategy"
            yield Static(f"Edit B (e.g. {hint}) and press enter.", id="compare-summary")
            with Horizontal(id="compare-body"):
                yield BoundaryView(id="compare-view")
                yield Static("", id="compare-stats")

    def on_mount(self) -> None:
        self.query_one("#compare-view", BoundaryView).show(self.a.document, None)
        self.query_one("#compare-b", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "compare-go":
            event.stop()
            self.start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.start()

    def start(self) -> None:
        try:
            strategy, params, tokenizer = parse_config(self.query_one("#compare-b", Input).value, self.a.tokenizer)
        except ChunktuiError as exc:
            self.query_one("#compare-summary", Static).update(f"[red]{exc}[/]")
            return
        self.query_one("#compare-summary", Static).update("chunking B…")
        self.run_b(strategy, params, tokenizer)

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False)
    def run_b(self, strategy: str, params: dict, tokenizer: str) -> None:
        try:
            b = chunk_document(self.a.document, strategy, params, tokenizer=tokenizer)
            self.post_message(CompareDone(compare(self.a, b, self.budget)))
        except ChunktuiError as exc:
            self.post_message(CompareDone(error=str(exc)))
        except Exception as exc:  # a strategy bug must not close the app
            self.post_message(CompareDone(error=f"internal error: {exc!r}"))

    def on_compare_done(self, message: CompareDone) -> None:
        summary = self.query_one("#compare-summary", Static)
        if message.error:
            summary.update(f"[red]{message.error}[/]")
            return
        self.comparison = cmp = message.comparison
        summary.update(f"B = {cmp.b.name} · {cmp.summary()}")
        self.query_one("#compare-stats", Static).update(side_table(cmp))
        view = self.query_one("#compare-view", BoundaryView)
        view.show(self.a.document, cmp)
        view.focus()

    def action_close(self) -> None:
        self.dismiss(None)
