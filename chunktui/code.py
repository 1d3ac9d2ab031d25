"""Code chunking in the shape of code-chunk's `chunk`, `chunkBatch` and `createChunker`: a thin
wrapper of `chunktui.Chunker` for code held in memory, named by its path.

    from chunktui.code import chunk, Chunker
    for c in chunk("src/user.ts", source, size=1200):  # or code-chunk's max_chunk_size=1200
        print(c.metadata["scope_chain"], c.context_text)

Options are the `code` strategy's parameters (size, alias max_chunk_size; unit, overlap_lines,
sibling_detail, filter_imports, context_mode, language) plus `tokenizer` and
`strategy` ("code" or "code-toplevel"; another strategy is refused with a ParamError). The
language comes from the path unless `language` names it. Chunks are `chunktui.Chunk`s: the same
as `chunktui.chunk(Document(text=code, path=path, kind="code"), "code", ...)` returns, made by the
same `chunktui.Chunker`; this module adds only the in-memory source named by its path and the
batch with per-file errors.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

import chunktui
from chunktui.engine import Chunk, ChunkSet, Document
from chunktui.engine.code.languages import UnsupportedLanguageError, detect_language
from chunktui.engine.core.derived import forget
from chunktui.engine.readers.documents import decode_bytes, read_file_bytes
from chunktui.engine.strategies import get_strategy
from chunktui.engine.core.errors import ChunkingError, ParamError

__all__ = ["BatchResult", "Chunker", "ChunkingError", "UnsupportedLanguageError", "chunk", "chunk_batch"]


@dataclass
class BatchResult:
    """One file of a batch: its chunks, or the error that stopped it (never both)."""

    path: str
    chunks: list[Chunk] = field(default_factory=list)
    error: Exception | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Chunker:
    """Options validated once, reused for many files (a `chunktui.Chunker` of a code strategy)."""

    def __init__(self, strategy: str = "code", tokenizer: str | None = None, **options):
        self.chunker = chunktui.Chunker(strategy, tokenizer=tokenizer, **options)
        if get_strategy(self.chunker.strategy).kinds != ("code",):  # markdown would cut code at '#' lines
            raise ParamError("strategy", f"{strategy!r} is not a strategy for code alone (code, code-toplevel)")
        self.strategy, self.tokenizer, self.options = self.chunker.strategy, self.chunker.tokenizer, self.chunker.params

    def chunk_set(self, path, code: str) -> ChunkSet:
        """The full ChunkSet (chunks, gaps, warnings) for `code`, named `path`."""
        path = str(path)
        language = detect_language(path, self.options.get("language", "auto"))  # raises UnsupportedLanguageError early
        doc = Document(text=code, path=path, kind="code", language=language)  # a str source would be prose
        cs = self.chunker.chunk(doc)
        forget(doc)  # chunked once: its parse, kept for re-chunks, would live as long as any chunk
        return cs

    def chunk(self, path, code: str) -> list[Chunk]:
        return self.chunk_set(path, code).chunks

    def chunk_batch(
        self, files: Iterable, concurrency: int = 4, on_progress: Callable[[int, int, str, bool], None] | None = None
    ) -> list[BatchResult]:
        """Chunk many files in threads; a file that fails gets its error in its result, the rest go on.

        `files` holds paths (read from disk), `(path, code)` pairs or dicts with `path`/`filepath` and `code`.
        Results come back in input order; `on_progress(done, total, path, ok)` is called as each finishes.
        """
        items = [_file_item(f) for f in files]
        done = 0

        def one(item) -> BatchResult:
            path, code = item
            try:
                if code is None:
                    code = _read(path)
                return BatchResult(path, self.chunk(path, code))
            except Exception as exc:  # noqa: BLE001 - a batch never aborts on one file
                return BatchResult(path, error=exc)

        results: list[BatchResult] = []
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            for result in pool.map(one, items):
                results.append(result)
                done += 1
                if on_progress is not None:
                    on_progress(done, len(items), result.path, result.ok)
        return results


def _file_item(f) -> tuple[str, str | None]:
    if isinstance(f, dict):
        return str(f.get("path") or f.get("filepath")), f.get("code")
    if isinstance(f, (tuple, list)):
        return str(f[0]), f[1]
    return str(f), None


def _read(path: str) -> str:
    return decode_bytes(read_file_bytes(path), path)[0]


def chunk(path, code: str, **options) -> list[Chunk]:
    """Chunk `code` (the source of `path`) along its syntax tree."""
    return Chunker(**options).chunk(path, code)


def chunk_batch(files: Iterable, concurrency: int = 4, on_progress=None, **options) -> list[BatchResult]:
    """Chunk many files concurrently with per-file errors; see `Chunker.chunk_batch`."""
    return Chunker(**options).chunk_batch(files, concurrency, on_progress)
