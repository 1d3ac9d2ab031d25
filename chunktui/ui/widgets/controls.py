"""The controls pane: strategy, its parameters (built from the Param spec), tokenizer and budget.

The pane only reports raw values; the app validates them with the engine's own
`Param.coerce` / `Strategy.validate` and marks the field the engine names.
"""

from __future__ import annotations

from typing import Any, cast

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Static, Switch

from chunktui.engine import COUNTER_NAMES, Param, ParamError, Strategy, all_strategies
from chunktui.engine.core.model import CONTEXT_HEADERS


def step_of(param: Param, value: Any) -> float:
    """The +/- step: the spec's own step, else 10% of the current value (at least 1 for ints)."""
    if param.step:
        return param.step
    try:
        base = abs(float(value)) * 0.1
    except (TypeError, ValueError):
        base = 1.0
    return max(1, round(base)) if param.type == "int" else (base or 0.1)


def stepped(param: Param, value: Any, direction: int) -> Any:
    """`value` moved one step up or down, kept inside the spec's min/max."""
    try:
        current = param.coerce(value)
    except ParamError:
        current = param.default
    new = current + direction * step_of(param, current)
    if param.min is not None:
        new = max(param.min, new)
    if param.max is not None:
        new = min(param.max, new)
    return int(round(new)) if param.type == "int" else round(new, 6)


def format_value(param: Param, value: Any) -> str:
    if param.type == "float":
        return f"{float(value):g}"
    return "" if value is None else str(value)


def show_problem(box, problem: str | None) -> None:
    """Mark `box` invalid with `problem`, or clear it. The error line is only rewritten when it changes:
    every request re-validates every field, and each rewrite would relayout the whole screen."""
    box.set_class(problem is not None, "-invalid")
    error = box.query_one(".param-error", Static)
    if str(error.content) != (problem or ""):
        error.update(problem or "")


class ParamField(Vertical):
    """One parameter: a label, an editor chosen by type, and an error line shown when invalid."""

    def __init__(self, param: Param, value: Any) -> None:
        super().__init__(classes="param-field", id=f"field-{param.name}")
        self.param = param
        self._value = value
        self.tooltip = param.help

    def compose(self) -> ComposeResult:
        p = self.param
        yield Label(p.name.replace("_", " "), classes="param-label")
        editor_id = f"param-{p.name}"
        if p.type in ("int", "float"):
            with Horizontal(classes="stepper"):
                yield Button("−", id=f"dec-{p.name}", classes="step", compact=True)
                yield Input(format_value(p, self._value), id=editor_id, compact=True, select_on_focus=True)
                yield Button("+", id=f"inc-{p.name}", classes="step", compact=True)
        elif p.type == "choice":
            yield Select([(c, c) for c in p.choices], value=self._value, allow_blank=False, id=editor_id, compact=True)
        elif p.type == "bool":
            yield Switch(bool(self._value), id=editor_id)
        else:
            yield Input(format_value(p, self._value), id=editor_id, compact=True)
        yield Static("", classes="param-error")

    @property
    def _editor(self) -> Input | Select | Switch:
        """The editor `compose` made for the parameter's type (query_one can only promise a Widget)."""
        return cast("Input | Select | Switch", self.query_one(f"#param-{self.param.name}"))

    @property
    def raw(self) -> Any:
        return self._editor.value

    def set_value(self, value: Any) -> None:
        editor = self._editor
        editor.value = format_value(self.param, value) if isinstance(editor, Input) else value

    def step(self, direction: int) -> None:
        self.set_value(stepped(self.param, self.raw, direction))

    def mark(self, problem: str | None) -> None:
        """Show `problem` on this field (CSS class -invalid), or clear it with None."""
        show_problem(self, problem)

    @property
    def problem(self) -> str | None:
        return str(self.query_one(".param-error", Static).content) or None if self.has_class("-invalid") else None

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in (f"dec-{self.param.name}", f"inc-{self.param.name}"):
            event.stop()
            self.step(1 if event.button.id.startswith("inc") else -1)


class ControlsPane(VerticalScroll):
    """Strategy selector, parameter fields, tokenizer, budget and reset."""

    class Changed(Message):
        """Any control changed; the app reads `values` and decides whether to re-chunk."""

    class StrategyPicked(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(
        self, strategy: str, values: dict, tokenizer: str, budget: int, context_header: str = "none", **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self._context_header = context_header
        self.strategy_name = strategy
        self._initial = dict(values)
        self._tokenizer = tokenizer
        self._budget = budget
        self._building = False
        self._unit: Any = None  # the strategy's `unit` as last shown, if it has one

    def compose(self) -> ComposeResult:
        yield Label("Strategy", classes="section-title")
        yield Select(
            [(s.name, s.name) for s in all_strategies()],
            value=self.strategy_name,
            allow_blank=False,
            id="strategy",
            compact=True,
        )
        yield Static("", id="strategy-summary")
        yield Vertical(id="params")
        yield Label("Tokenizer", classes="section-title")
        yield Select(
            [(n, n) for n in COUNTER_NAMES], value=self._tokenizer, allow_blank=False, id="tokenizer", compact=True
        )
        yield Select(
            [(f"header: {h}", h) for h in CONTEXT_HEADERS],
            value=self._context_header,
            allow_blank=False,
            id="context-header",
            compact=True,
            tooltip="What goes before each chunk's embedded text: "
            "nothing, the file name, or the file name and the chunk's header path or scope",
        )
        with Vertical(classes="param-field", id="field-budget"):
            yield Label("token budget", classes="param-label")
            yield Input(str(self._budget), id="budget", compact=True, select_on_focus=True)
            yield Static("", classes="param-error")
        yield Button("Reset to defaults", id="reset", compact=True)

    async def on_mount(self) -> None:
        await self.build_fields(self.strategy_name, self._initial)

    @property
    def strategy(self) -> Strategy:
        return next(s for s in all_strategies() if s.name == self.strategy_name)

    async def build_fields(self, name: str, values: dict | None = None) -> None:
        """Replace the parameter fields with those of strategy `name`, filled from `values` or defaults."""
        self._building = True
        self.strategy_name = name
        strategy = self.strategy
        self.show_strategy(name)
        self.query_one("#strategy-summary", Static).update(strategy.summary)
        container = self.query_one("#params", Vertical)
        await container.remove_children()
        # values may name a parameter by an alias (a caller's `max_char`); the last one given wins
        given = {param.name: v for k, v in (values or {}).items() if (param := strategy.param(k))}
        try:
            merged = strategy.defaults(given) | given  # a size not given counts the unit given
        except ParamError:  # a unit this strategy lacks: its field shows the value, marked invalid
            merged = strategy.defaults() | given
        self._unit = merged.get("unit")
        await container.mount_all(ParamField(p, merged[p.name]) for p in strategy.params)
        self._building = False
        self.post_message(self.Changed())

    def show_strategy(self, name: str) -> None:
        """Point the strategy list at `name` without rebuilding the fields."""
        select = self.query_one("#strategy", Select)
        if select.value != name:
            select.value = name

    def fields(self) -> list[ParamField]:
        return list(self.query(ParamField))

    def field(self, name: str) -> ParamField | None:
        return next((f for f in self.fields() if f.param.name == name), None)

    @property
    def raw_values(self) -> dict:
        return {f.param.name: f.raw for f in self.fields()}

    @property
    def tokenizer(self) -> str:
        return str(self.query_one("#tokenizer", Select).value)

    def set_tokenizer(self, name: str) -> None:
        self.query_one("#tokenizer", Select).value = name

    @property
    def context_header(self) -> str:
        return str(self.query_one("#context-header", Select).value)

    @property
    def budget_raw(self) -> str:
        return self.query_one("#budget", Input).value

    def mark_budget(self, problem: str | None) -> None:
        show_problem(self.query_one("#field-budget"), problem)

    def reset(self) -> None:
        for f in self.fields():
            f.set_value(f.param.default)

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "strategy":
            if event.value != self.strategy_name:
                self.post_message(self.StrategyPicked(str(event.value)))
        elif not self._building:
            if event.select.id == "param-unit":
                self.follow_unit(str(event.value))
            self.post_message(self.Changed())

    def follow_unit(self, unit: str) -> None:
        """A size still at the default of the unit left takes the new unit's default (1000
        characters, 200 tokens), and so does an overlap still at its own: the default of the one
        counts another's amount of text. A size typed keeps both, as `--size` does on the command
        line: the overlap's default with a size given is the documented one."""
        strategy, left = self.strategy, self._unit
        self._unit = unit

        def at_default(f: ParamField) -> bool:
            return f.raw == format_value(f.param, strategy.default_of(f.param, left))

        fields = [f for f in self.fields() if f.param.name in ("size", "overlap")]
        if not all(at_default(f) for f in fields if f.param.name == "size"):
            return
        for f in fields:
            if at_default(f):
                f.set_value(strategy.default_of(f.param, unit))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if not self._building:
            self.post_message(self.Changed())

    def on_switch_changed(self, event: Switch.Changed) -> None:
        event.stop()
        if not self._building:
            self.post_message(self.Changed())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "reset":
            event.stop()
            self.reset()
