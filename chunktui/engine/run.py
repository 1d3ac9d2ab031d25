"""One entry point for the app and the CLI: document + strategy + params -> ChunkSet."""

from __future__ import annotations

from .documents import Document
from .model import ChunkSet, build_chunkset
from .readers import locate
from .strategies import Context, get_strategy
from .tokens import DEFAULT_TOKENIZER, get_counter


def chunk_document(doc: Document, strategy: str, params: dict | None = None, *,
                   tokenizer: str = DEFAULT_TOKENIZER, is_cancelled=None, progress=None) -> ChunkSet:
    """Validate params, run the strategy, and freeze its spans into a ChunkSet.

    Raises ParamError / UnknownStrategyError / ChunkingError for bad input and
    Cancelled when `is_cancelled()` turns true mid-run.
    """
    strat = get_strategy(strategy)
    counter = get_counter(tokenizer)
    ctx = Context(tokenizer=tokenizer, is_cancelled=is_cancelled, progress=progress)
    return _chunk(doc, strat, params, tokenizer, counter, ctx)


def _chunk(doc, strat, params, tokenizer, counter, ctx) -> ChunkSet:
    if strat.name == "auto":
        from .strategies.auto import delegate

        # params given with `auto` belong to the strategy it picks for this document
        proposal = delegate(doc, params or {}, ctx)
    else:
        values = strat.validate(params)
        proposal = strat.run(doc, values, ctx)
        if proposal.params is None:
            proposal.params = values
    ctx.check()
    locate(doc, proposal)
    return build_chunkset(
        doc,
        proposal.spans,
        strategy=proposal.strategy or strat.name,
        params=proposal.params,
        tokenizer=tokenizer,
        declared_gaps=proposal.gaps,
        warnings=proposal.warnings,
        notes=proposal.notes,
        counter=counter,
    )
