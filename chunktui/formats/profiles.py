"""Profiles: a strategy, its params and a tokenizer saved as YAML, shared by the app and the CLI.

A profile is checked against the strategy's spec when it is loaded, so a typo or
an out-of-range value is reported with the profile's name before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from chunktui.engine.readers.documents import SMALL_FILE_LIMIT
from chunktui.engine.core.errors import ChunktuiError, DocumentError
from chunktui.engine.core.model import CONTEXT_HEADERS
from chunktui.engine.strategies import get_strategy
from chunktui.engine.core.tokens import DEFAULT_TOKENIZER, ENCODING_SPECS

from .records import to_plain
from .yamlio import dump_yaml, read_yaml

TOKENIZERS = tuple(ENCODING_SPECS)


@dataclass
class Profile:
    strategy: str
    params: dict = field(default_factory=dict)
    tokenizer: str = DEFAULT_TOKENIZER
    budget: int | None = None  # the token budget the configuration was tuned against, if saved
    context_header: str = "none"  # what each chunk's embedded text starts with (see chunk_document)
    given: tuple[str, ...] | None = None  # the params the file sets (None: all of them)

    @property
    def given_params(self) -> dict:
        """The params the file sets, without the defaults that complete them: flags over a profile
        complete them as flags alone do (a `--size` given keeps the documented overlap, where a
        profile setting only `unit: tokens` completes it to the token defaults)."""
        if self.given is None:
            return dict(self.params)
        return {k: v for k, v in self.params.items() if k in self.given}


def check_profile(
    strategy: str, params: dict | None, tokenizer: str, budget=None, context_header: str = "none"
) -> Profile:
    """The profile with the strategy's canonical name and complete, typed params."""
    strat = get_strategy(strategy)
    if context_header not in CONTEXT_HEADERS:
        raise ChunktuiError(f"context_header: expected one of {', '.join(CONTEXT_HEADERS)}, got {context_header!r}")
    if tokenizer not in TOKENIZERS:
        raise ChunktuiError(f"tokenizer: unknown tokenizer {tokenizer!r} (known: {', '.join(TOKENIZERS)})")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise ChunktuiError(f"budget: expected a whole number of tokens, at least 1, got {budget!r}")
    given = tuple(strat.canonical(params))
    return Profile(strat.name, strat.validate(params), tokenizer, budget, context_header, given)


def save_profile(
    path,
    strategy: str,
    params: dict | None,
    tokenizer: str = DEFAULT_TOKENIZER,
    budget: int | None = None,
    context_header: str = "none",
) -> Path:
    path = Path(path)
    profile = check_profile(strategy, params, tokenizer, budget, context_header)
    data = {"strategy": profile.strategy, "tokenizer": profile.tokenizer, "params": to_plain(profile.params)}
    if profile.budget is not None:
        data["budget"] = profile.budget
    if profile.context_header != "none":
        data["context_header"] = profile.context_header
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("# chunktui profile: use with `chunktui chunk --profile` or `chunktui FILE --profile`\n")
        dump_yaml(data, fh)
    return path


def load_profile(path) -> Profile:
    """Read and validate a profile; any problem raises DocumentError naming the file."""
    data = read_yaml(path, SMALL_FILE_LIMIT, "a profile")
    if not isinstance(data, dict) or not isinstance(data.get("strategy"), str):
        raise DocumentError(path, "not a chunktui profile (needs 'strategy')")
    params = data.get("params") or {}
    if not isinstance(params, dict):
        raise DocumentError(path, "'params' must be a mapping of parameter names to values")
    unknown = sorted(set(data) - {"strategy", "params", "tokenizer", "budget", "context_header"})
    if unknown:
        raise DocumentError(
            path, f"unknown key {unknown[0]!r} (a profile has strategy, params, tokenizer, budget, context_header)"
        )
    try:
        return check_profile(
            data["strategy"],
            params,
            str(data.get("tokenizer") or DEFAULT_TOKENIZER),
            data.get("budget"),
            data.get("context_header") or "none",
        )
    except ChunktuiError as exc:
        raise DocumentError(path, str(exc)) from None
