"""One entry point for the app and the CLI: document + strategy + params -> ChunkSet."""

from __future__ import annotations

from .readers.documents import Document
from .core.errors import ParamError
from .core.model import CONTEXT_HEADERS, ChunkSet, Headings, build_chunkset
from .readers import locate
from .strategies import Context, get_strategy
from .core.tokens import DEFAULT_TOKENIZER, get_counter


def chunk_document(
    doc: Document,
    strategy: str,
    params: dict | None = None,
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    is_cancelled=None,
    progress=None,
    context_header: str = "none",
    index_ahead: bool = False,
) -> ChunkSet:
    """Validate params, run the strategy, and freeze its spans into a ChunkSet.

    `context_header` (none, title, path) is put in front of each chunk's embedded text, for
    every strategy alike: a run-level option, as the tokenizer is.

    `index_ahead` starts encoding a big document for its token counts on other threads before a
    covering strategy runs (see tokens.Counter.index_ahead), so that one chunking in characters or
    lines works while it encodes: for the command line's one process, which waits for the whole
    run. The app builds its index in a worker of its own.

    Raises ParamError / UnknownStrategyError / ChunkingError for bad input and
    Cancelled when `is_cancelled()` turns true mid-run.
    """
    if context_header not in CONTEXT_HEADERS:
        raise ParamError("context_header", f"{context_header!r} is not one of {', '.join(CONTEXT_HEADERS)}")
    strat = get_strategy(strategy)
    counter = get_counter(tokenizer)
    ctx = Context(tokenizer=tokenizer, is_cancelled=is_cancelled, progress=progress)
    return _chunk(doc, strat, params, tokenizer, counter, ctx, context_header, index_ahead)


def _chunk(doc, strat, params, tokenizer, counter, ctx, context_header="none", index_ahead=False) -> ChunkSet:
    # params given with `auto` belong to the strategy it picks for this document, which checks them
    values = dict(params or {}) if strat.delegates else strat.validate(params)
    if index_ahead:
        _index_ahead(doc, strat, counter)
    proposal = strat.run(doc, values, ctx)
    if proposal.params is None:
        proposal.params = values
    ctx.check()
    assert proposal.params is not None  # set above, or by `delegate` to the picked strategy's values
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
        context_header=context_header,
        headings=document_headings(doc, context_header),
    )


def start_index(doc: Document, strategy: str, tokenizer: str = DEFAULT_TOKENIZER) -> None:
    """What `chunk_document(index_ahead=True)` starts, started now: a caller that has the document
    (the command line, as soon as it is read) starts the encode before the imports and the work it
    does not need until the strategy runs, which then overlap the encode (it lets go of the GIL).
    chunk_document finds the index being built and does not start it twice."""
    _index_ahead(doc, get_strategy(strategy), get_counter(tokenizer))


def _index_ahead(doc: Document, strat, counter) -> None:
    if strat.covering and not strat.delegates:  # its chunks are counted over the text
        counter.index_ahead(doc.text)


def document_headings(doc: Document, context_header: str) -> Headings | None:
    """The document's header path by offset where `--context-header path` asks for it (see
    `context_heads`); None otherwise, and then no markdown module is loaded."""
    if context_header != "path":
        return None
    from .strategies.markdown import heading_path_at

    return heading_path_at(doc)
