"""Strategy registry: every strategy is a module here, registered by name with a typed spec.

The spec (`Param`) is the single source the app builds its controls from and the
CLI builds its flags from, so both always agree on names, types, defaults and ranges.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from collections.abc import Callable

from ..core.errors import Cancelled, ParamError, UnknownStrategyError

if TYPE_CHECKING:
    from ..core.model import Span, SpanTable
    from ..core.tokens import Counter
    from ..readers.documents import Document


@runtime_checkable
class RunContext(Protocol):
    """What a running strategy may ask of its caller (`Context` is the engine's)."""

    tokenizer: str

    def counter(self, unit: str) -> Counter: ...

    def check(self) -> None: ...

    def progress(self, fraction: float) -> None: ...


class StrategyRun(Protocol):
    """The strategy contract: a module's `run(doc, params, ctx)` proposes spans for one document
    from its validated parameters, and never changes the document."""

    def __call__(self, doc: Document, params: dict[str, Any], ctx: RunContext, /) -> Proposal: ...


_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n"}
# Numbers as typed in a flag, a profile or the app: ASCII digits with an optional sign, nothing else.
# int() and float() would also take " 12", "1_000" and other scripts' digits ("١٢"), which no
# size a user means is written as. A negative number passes here and is refused by the range.
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _shown(value: Any, limit: int = 60) -> str:
    """A bad value for an error line: a container by its type (a profile may nest thousands of
    items in one), anything else by its repr() cut short."""
    if isinstance(value, (list, tuple, dict, set)):
        return f"a {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def parse_int(text: str) -> int:
    """A whole number written in ASCII digits with an optional sign; ValueError for anything else."""
    if not _INT.fullmatch(text):
        raise ValueError(text)
    return int(text)


def parse_float(text: str) -> float:
    """A finite decimal number (`1.5`, `-2`, `1e3`) in ASCII; ValueError for anything else."""
    if not _FLOAT.fullmatch(text):
        raise ValueError(text)
    return float(text)


# What a number counts, by the suffix of the parameter's name (`max_chars`, `overlap_lines`):
# one name, one unit, in every strategy. `size` and `overlap` count the strategy's `unit` param.
UNITS = ("chars", "tokens", "lines", "rows", "bytes", "emails")
# A `size` or `overlap` default counts the `unit` param's default unit. Read in a unit that holds
# more text (tokens, lines), it is divided by what one of that unit holds, so that the chunk stays
# about its default size and within the default token budget (1000 characters read as 1000 tokens
# were twice it). A token: 5 characters or bytes, which leaves room for what is embedded with a
# chunk (a code chunk's scope and imports, a context header), where 4.3-4.4 were measured with
# cl100k_base on English prose and Python (2.2 on logs, whose chunks come out smaller); a line: 120
# characters, as in JSON and service logs (123-132; dpkg's log 69). Read in a unit that holds less
# (characters, for a default in tokens), a default stays as it is: a smaller chunk. Only when the
# size is not given: a size given keeps every other default as documented (overlap 200), so that a
# command line naming its size means what it always meant (Strategy.defaults_unit).
SAME_TEXT = {("chars", "tokens"): 5, ("bytes", "tokens"): 5, ("chars", "lines"): 120}


@dataclass(frozen=True)
class Param:
    """One strategy parameter: type is int, float, str, bool or choice.

    `aliases` are other names taken for it (the reference tools' `max_char`, `chunk_overlap`,
    an earlier `size`): flags, profiles, saved files and the Python API accept them, and
    everything chunktui writes uses `name`.
    """

    name: str
    type: str
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()
    step: float | None = None
    aliases: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return flag_of(self.name)

    @property
    def unit(self) -> str | None:
        """What a number counts (chars, tokens, lines, rows, bytes, emails), from the name's
        suffix; None for a `size`/`overlap` (in the strategy's `unit`) and for non-numbers."""
        suffix = self.name.rsplit("_", 1)[-1]
        return suffix if self.type in ("int", "float") and suffix in UNITS else None

    @property
    def metavar(self) -> str:
        """The value's placeholder in help: the choices, the unit (`CHARS`), else N, X or TEXT."""
        if self.type == "choice":
            return "|".join(self.choices)
        if self.unit:
            return self.unit.upper()
        return {"int": "N", "float": "X"}.get(self.type, "TEXT")

    def coerce(self, value: Any) -> Any:
        """Value converted to this param's type and checked against its range."""
        if value is None:
            return self.default
        try:
            if self.type == "int":
                if isinstance(value, bool):
                    raise ValueError
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                value = parse_int(value) if isinstance(value, str) else int(value)
            elif self.type == "float":
                value = parse_float(value) if isinstance(value, str) else float(value)
                if not math.isfinite(value):
                    raise ValueError
            elif self.type == "bool":
                if isinstance(value, str):
                    low = value.lower()
                    if low not in _TRUE | _FALSE:
                        raise ValueError
                    value = low in _TRUE
                else:
                    value = bool(value)
            elif self.type == "choice":
                value = str(value)
                if value not in self.choices:
                    raise ParamError(self.name, f"must be one of {', '.join(self.choices)}, not {value!r}")
            else:
                value = str(value)
        except (TypeError, ValueError):
            expected = {"int": "a whole number", "float": "a number", "bool": "true or false"}.get(self.type, "text")
            raise ParamError(self.name, f"expected {expected}, got {_shown(value)}") from None
        if self.type in ("int", "float"):
            if self.min is not None and value < self.min:
                raise ParamError(self.name, f"must be at least {self.min:g}, got {value:g}")
            if self.max is not None and value > self.max:
                raise ParamError(self.name, f"must be at most {self.max:g}, got {value:g}")
        return value

    def to_dict(self) -> dict:
        d = {"name": self.name, "type": self.type, "default": self.default, "help": self.help}
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        if self.choices:
            d["choices"] = list(self.choices)
        if self.unit:
            d["unit"] = self.unit
        if self.aliases:
            d["aliases"] = list(self.aliases)
        return d


def flag_of(name: str) -> str:
    """The command-line flag of a parameter name or alias: `max_chars` -> `--max-chars`."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Order:
    """A constraint between two parameters: `low` must be smaller than `high` (an overlap and its size).

    A minimum above its maximum (markdown's min_chars, prose's min_tokens) is not one: the maximum
    wins and whatever fits is packed, so shrinking the maximum below the default minimum (the
    app's `[` key, a sweep of sizes) keeps working.
    """

    low: str
    high: str

    def check(
        self,
        values: dict,
        spelled: dict | None = None,
        defaulted: frozenset[str] = frozenset(),
        unit: str | None = None,
    ) -> None:
        """Raise ParamError unless low < high; `spelled` maps a name to the alias it was given as.

        When `high` is a default the caller never set (`defaulted`; read in `unit`, if one was
        given) and `low` was given, the error says so and what to pass: an overlap that fits the
        documented size may not fit the size its unit makes the default (`--unit tokens --overlap
        300`: size 200)."""
        low, high = values[self.low], values[self.high]
        if low < high:
            return
        names = spelled or {}
        low_name, high_name = names.get(self.low, self.low), names.get(self.high, self.high)
        if self.high not in defaulted or self.low in defaulted:
            raise ParamError(low_name, f"must be smaller than {high_name} ({high}), got {low}")
        flags = f" with --unit {unit}" if unit else ""
        keywords = f" with unit={unit!r}" if unit else ""
        raise ParamError(
            low_name,
            f"must be smaller than {high_name} ({high}, the default{flags}; pass {flag_of(high_name)}), got {low}",
            python_problem=f"must be smaller than {high_name} ({high}, the default{keywords}; pass {high_name}=), got {low}",
        )


@dataclass
class Proposal:
    """What a strategy returns: spans, declared gaps with reasons, warnings, notes."""

    spans: list[Span] | SpanTable
    gaps: list[tuple[int, int, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    params: dict | None = None
    strategy: str | None = None  # set by `auto` to the strategy it delegated to


class Context:
    """What a running strategy may ask of its caller: a counter, cancellation, progress."""

    def __init__(
        self,
        tokenizer: str = "cl100k_base",
        is_cancelled: Callable[[], bool] | None = None,
        progress: Callable[[float], None] | None = None,
    ):
        self.tokenizer = tokenizer
        self._is_cancelled = is_cancelled
        self._progress = progress

    def counter(self, unit: str) -> Counter:
        """The size measure for `unit`: chars, bytes, lines, or tokens (the run's tokenizer)."""
        from ..core.tokens import get_counter

        return get_counter(self.tokenizer if unit == "tokens" else unit)

    def check(self) -> None:
        """Raise Cancelled when the caller dropped this run (call it in long loops)."""

        if self._is_cancelled is not None and self._is_cancelled():
            raise Cancelled()

    def progress(self, fraction: float) -> None:
        if self._progress is not None:
            self._progress(fraction)


@dataclass(frozen=True)
class Strategy:
    """A named chunking strategy: its spec and the function that proposes spans."""

    name: str
    summary: str
    params: tuple[Param, ...]
    run: StrategyRun
    kinds: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    constraints: tuple[Order, ...] = ()  # checked by validate(), after each value's own type and range
    validate_extra: Callable[[dict], object] | None = None  # any other check (a delimiter set, not all zero)
    covering: bool = True  # False for sampling strategies whose gaps are by design
    size_param: str | None = "size"  # what the app's [ / ] keys change
    overlap_param: str | None = "overlap"  # what the app's { / } keys change
    # the overlap param is the most the strategy repeats (whole pieces, word starts, a size limit
    # may leave less or none); else it is the amount repeated at every boundary
    overlap_at_most: bool = False
    # (unit, limit) every chunk must fit unless its metadata says "oversized": True
    max_size: Callable[[dict], tuple[str, int]] | None = None
    # picks another strategy for each document and runs it: takes any strategy's params, has no
    # size or overlap of its own, and is left out of the app's strategy tour
    delegates: bool = False

    def param(self, name: str) -> Param | None:
        """The parameter called `name`, or taking it as an alias."""
        return next((p for p in self.params if p.name == name), None) or next(
            (p for p in self.params if name in p.aliases), None
        )

    def canonical(self, values: dict | None) -> dict:
        """`values` under the parameters' own names (`max_char` -> `max_chars`), in order; a name
        this strategy does not know is kept as it is (validate() refuses it). One parameter given
        twice, by its name and an alias, is an error naming both."""
        out: dict = {}
        given: dict[str, str] = {}
        for key, value in (values or {}).items():
            param = self.param(key)
            name = param.name if param is not None else key
            if name in out:
                raise ParamError(name, f"given twice, as {given[name]} and as {key}")
            out[name], given[name] = value, key
        return out

    def unit_of(self, values: dict | None) -> str | None:
        """The unit `values` set (under the `unit` param's name or an alias), checked; None when
        they set none or the strategy has no `unit` param."""
        unit = self.param("unit")
        given = self.canonical(values).get("unit") if unit is not None else None
        return None if unit is None or given is None else unit.coerce(given)

    def default_of(self, param: Param, unit: str | None) -> Any:
        """`param`'s default where the strategy's `unit` is `unit` (see SAME_TEXT)."""
        if unit is None or param.name not in ("size", "overlap") or not isinstance(param.default, int):
            return param.default
        own = self.param("unit")
        per = None if own is None else SAME_TEXT.get((own.default, unit))
        return param.default if per is None else max(int(param.min or 0), param.default // per)

    def unit_defaults(self, param: Param) -> dict[str, Any]:
        """`param`'s default in each unit where it is not its own default ({} for most params)."""
        unit = self.param("unit")
        found = {u: self.default_of(param, u) for u in unit.choices} if unit is not None else {}
        return {u: d for u, d in found.items() if d != param.default}

    def defaults_unit(self, values: dict | None) -> str | None:
        """The unit a size or overlap default is read in (see SAME_TEXT): the unit `values` set,
        unless they set the size too; then the defaults are the documented ones (None)."""
        return None if self.canonical(values).get("size") is not None else self.unit_of(values)

    def defaults(self, values: dict | None = None) -> dict:
        """Every param's default; without a size in `values`, a size or overlap in the unit they set."""
        unit = self.defaults_unit(values)
        return {p.name: self.default_of(p, unit) for p in self.params}

    def validate(self, values: dict | None) -> dict:
        """Complete, typed and checked params; unknown names are an error naming them.

        The one check behind every entry point (flags, profiles, the app's controls, sweep cells):
        each value's type and range, then the strategy's constraints between values. Values come
        back under the parameters' own names; an error names a value as it was given (`--size`).
        """
        spelled = {param.name: k for k in values or {} if (param := self.param(k)) is not None}
        values = self.canonical(values)
        unknown = [k for k in values if self.param(k) is None]
        if unknown:
            raise ParamError(unknown[0], f"not a parameter of strategy {self.name!r}")
        try:
            unit = self.defaults_unit(values)
            out = {
                p.name: self.default_of(p, unit) if values.get(p.name) is None else p.coerce(values[p.name])
                for p in self.params
            }
        except ParamError as exc:
            raise ParamError(spelled.get(exc.name, exc.name), exc.problem) from None
        defaulted = frozenset(p.name for p in self.params if values.get(p.name) is None)
        for order in self.constraints:
            order.check(out, spelled, defaulted, unit)
        if self.validate_extra is not None:
            self.validate_extra(out)
        return out


_REGISTRY: dict[str, Strategy] = {}
_ALIASES: dict[str, str] = {}
_loaded = False


def register(strategy: Strategy) -> Strategy:
    names = [n for p in strategy.params for n in (p.name, *p.aliases)]
    clash = next((n for n in names if names.count(n) > 1), None)
    if clash is not None:  # one name, one parameter: an alias must not shadow another parameter
        raise ValueError(f"strategy {strategy.name!r}: {clash!r} names two parameters")
    _REGISTRY[strategy.name] = strategy
    for alias in strategy.aliases:
        _ALIASES[alias] = strategy.name
    return strategy


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    importlib.import_module("chunktui.engine.code")  # `code` and `code-toplevel` live with their chunker


def _load_module_of(name: str) -> None:
    """Import the module named after strategy `name` (`log-records` -> log_records.py), if there is one.

    A run that names its strategy then imports that one alone: each module compiles its patterns
    and builds its tables on import, 40-60 ms for all of them, most of a short run's chunking.
    """
    module = name.replace("-", "_")
    if not module.isidentifier() or module.startswith("_"):
        return
    try:
        importlib.import_module(f"{__name__}.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{module}":
            raise


def get_strategy(name: str) -> Strategy:
    """The strategy registered as `name` or under that alias; every strategy module is imported only
    when `name` is not one by its own module's name."""
    if name not in _REGISTRY and name not in _ALIASES:
        _load_module_of(name)
    if name not in _REGISTRY and name not in _ALIASES:
        _load_all()
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        raise UnknownStrategyError(name, _REGISTRY)
    return _REGISTRY[key]


def saved_params(strategy: str, params: dict) -> dict:
    """Params read back from a saved file (chunks.yaml, a manifest, a profile), under today's
    names: a file written before a parameter was renamed loads as if written now. Those of a
    strategy this build does not know are kept as they are."""
    try:
        strat = get_strategy(strategy)
    except UnknownStrategyError:
        return dict(params)
    return strat.canonical(params)


def all_strategies() -> list[Strategy]:
    _load_all()
    return sorted(_REGISTRY.values(), key=lambda s: s.name)


def sampled_out_gaps(spans: list, length: int) -> list[tuple[int, int, str]]:
    """The "sampled out" gaps of a sampling strategy: between its spans and after the last one."""
    gaps = [(a.end, b.start, "sampled out") for a, b in zip(spans, spans[1:]) if b.start > a.end]
    if spans and spans[-1].end < length:
        gaps.append((spans[-1].end, length, "sampled out"))
    return gaps
