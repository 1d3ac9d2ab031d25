"""chunktui: see, tune and export how documents are chunked.

    import chunktui
    from pathlib import Path

    cs = chunktui.chunk(Path("docs/guide.md"), "markdown", max_chars=1500)
    chunker = chunktui.Chunker("recursive", size=512, unit="tokens")   # options checked once
    sets = chunker.chunk_many([Path("a.md"), "some text", document], progress=print)
    saved = chunktui.load("guide.chunks.yaml")

A source is a path (`pathlib.Path` or any `os.PathLike`, read from disk), a `str` (the text
itself) or a `Document`. The engine is imported on first use, so `import chunktui` stays cheap.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # what typing.TYPE_CHECKING is, without importing typing (5 ms) at run time
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeAlias

    from chunktui.engine import Chunk, ChunkSet, Document, Gap, Strategy
    from chunktui.engine.core.errors import (
        Cancelled,
        ChunkingError,
        ChunktuiError,
        DocumentError,
        ParamError,
        UnknownStrategyError,
    )

    Source: TypeAlias = str | os.PathLike | Document

__version__ = "0.1.0"

__all__ = [
    "Cancelled",
    "Chunk",
    "ChunkSet",
    "Chunker",
    "ChunkingError",
    "ChunktuiError",
    "Document",
    "DocumentError",
    "Gap",
    "ParamError",
    "Strategy",
    "UnknownStrategyError",
    "chunk",
    "load",
    "strategies",
]

# the types a caller reads or catches, imported from the engine when first named
_TYPES = {
    "Chunk": "chunktui.engine.core.model",
    "ChunkSet": "chunktui.engine.core.model",
    "Gap": "chunktui.engine.core.model",
    "Document": "chunktui.engine.readers.documents",
    "Strategy": "chunktui.engine.strategies",
    "Cancelled": "chunktui.engine.core.errors",
    "ChunkingError": "chunktui.engine.core.errors",
    "ChunktuiError": "chunktui.engine.core.errors",
    "DocumentError": "chunktui.engine.core.errors",
    "ParamError": "chunktui.engine.core.errors",
    "UnknownStrategyError": "chunktui.engine.core.errors",
}


def __getattr__(name: str) -> Any:
    module = _TYPES.get(name)
    if module is None:
        raise AttributeError(f"module 'chunktui' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_TYPES})


def chunk(
    source: Source, strategy: str = "auto", *, tokenizer: str | None = None, context_header: str = "none", **params: Any
) -> ChunkSet:
    """Chunk one source with `strategy` and its parameters (see `strategies()`).

    `tokenizer` counts each chunk's tokens (cl100k_base by default; chars, bytes, lines,
    o200k_base). `context_header` (none, title, path) goes in front of each chunk's embed_text,
    which embed_tokens counts. Raises UnknownStrategyError or ParamError for bad options, DocumentError for
    a file that cannot be read, ChunkingError when the strategy cannot chunk this source."""
    return Chunker(strategy, tokenizer=tokenizer, context_header=context_header, **params).chunk(source)


class Chunker:
    """A strategy with its options, checked once when made and reused for every source.

    With `auto`, the options belong to the strategy it picks for each source: a name no
    strategy has is refused here, a value is checked against the picked strategy."""

    def __init__(
        self, strategy: str = "auto", *, tokenizer: str | None = None, context_header: str = "none", **params: Any
    ) -> None:
        from chunktui.engine.core.errors import ParamError
        from chunktui.engine.core.model import CONTEXT_HEADERS
        from chunktui.engine.strategies import get_strategy
        from chunktui.engine.core.tokens import DEFAULT_TOKENIZER, get_counter

        spec = get_strategy(strategy)
        self.strategy: str = spec.name
        self.tokenizer: str = tokenizer or DEFAULT_TOKENIZER
        get_counter(self.tokenizer)  # an unknown tokenizer is refused now, not at the first source
        if context_header not in CONTEXT_HEADERS:
            raise ParamError("context_header", f"{context_header!r} is not one of {', '.join(CONTEXT_HEADERS)}")
        self.context_header: str = context_header
        try:
            self.params: dict[str, Any] = _known_to_some_strategy(params) if spec.delegates else spec.validate(params)
        except ParamError as exc:
            raise exc.for_python(params) from None

    def __repr__(self) -> str:
        return f"Chunker({self.strategy!r}, tokenizer={self.tokenizer!r}, params={self.params!r})"

    def chunk(self, source: Source) -> ChunkSet:
        """The ChunkSet of one source: its chunks, what they miss (gaps), warnings and notes."""
        from chunktui.engine.core.derived import forget
        from chunktui.engine.run import chunk_document

        doc, made_here = _document(source)
        cs = chunk_document(
            doc, self.strategy, self.params, tokenizer=self.tokenizer, context_header=self.context_header
        )
        if made_here:  # chunked once: what a run keeps for re-chunking it (a code parse) can go
            forget(doc)
        return cs

    def chunk_many(
        self, sources: Iterable[Source], *, progress: Callable[[int, int, Source], None] | None = None
    ) -> list[ChunkSet]:
        """One ChunkSet per source, in order; `progress(done, total, source)` after each.
        The first source that fails raises its error (a DocumentError names the file)."""
        sources = list(sources)
        results = []
        for done, source in enumerate(sources, 1):
            results.append(self.chunk(source))
            if progress is not None:
                progress(done, len(sources), source)
        return results


def load(path: str | os.PathLike, password: str | None = None) -> ChunkSet:
    """Saved chunks, exactly as stored (never re-chunked): a `chunks.yaml` store (`chunktui
    chunk --format yaml`, the app's save), an export's `manifest.json` or `chunks.json`, or an
    export folder. They are set against their source file when it is there unchanged; a
    store is otherwise set against a document rebuilt from its chunk texts (see its warnings).
    `password` opens a source that is an encrypted PDF; a manifest, which holds no chunk texts,
    needs it for such a source."""
    from chunktui.formats.store import load_saved

    return load_saved(path, password)


def strategies() -> list[Strategy]:
    """Every strategy, by name: its summary, parameters (name, type, default, range) and aliases."""
    from chunktui.engine.strategies import all_strategies

    return all_strategies()


def _document(source: Source) -> tuple[Document, bool]:
    """The Document for `source`, and whether it was made here (and is chunked only once)."""
    from chunktui.engine.readers.documents import Document, load_document

    if isinstance(source, Document):
        return source, False
    if isinstance(source, str):
        return Document.from_text(source), True
    if isinstance(source, os.PathLike):
        return load_document(source), True
    raise TypeError(f"a source is a path, a str or a Document, not {type(source).__name__}")


def _known_to_some_strategy(params: dict[str, Any]) -> dict[str, Any]:
    """`auto`'s options: each must be a parameter of some strategy it may pick."""
    from chunktui.engine.core.errors import ParamError
    from chunktui.engine.strategies import all_strategies

    names = {n for s in all_strategies() for p in s.params for n in (p.name, *p.aliases)}
    unknown = [k for k in params if k not in names]
    if unknown:
        raise ParamError(unknown[0], "not a parameter of any strategy auto may pick")
    return dict(params)
