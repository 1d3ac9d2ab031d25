"""Chunks of many files as one collection: per-file lookup, neighbours, context, duplicates removed.

From cgft's ChunkCollection. A chunk whose sha256 equals an earlier chunk's (same
text, in this file or another) is dropped from the collection and counted in
`duplicates_removed`, so an index never holds the same text twice. Neighbours
and context are read from the chunk's own document, in document order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core.model import Chunk, ChunkSet


@dataclass(frozen=True)
class CollectedChunk:
    """A chunk and the file it came from (a Chunk alone does not know its file)."""

    source: str
    chunk: Chunk

    @property
    def id(self) -> str:
        return self.chunk.id

    @property
    def text(self) -> str:
        return self.chunk.text

    @property
    def sha256(self) -> str:
        return self.chunk.sha256


@dataclass(frozen=True)
class ChunkWithContext:
    """A chunk plus the source text around it: from its n-th previous to its n-th next chunk."""

    chunk: CollectedChunk
    text: str  # document.text[start:end], overlaps and gaps in between included once
    start: int
    end: int
    before: list[CollectedChunk]
    after: list[CollectedChunk]


def _source(cs: ChunkSet) -> str:
    return cs.document.path or cs.document.name


class ChunkCollection(Sequence):
    """A list-like collection of the chunks of several ChunkSets, duplicates removed."""

    def __init__(self, chunksets: Iterable[ChunkSet]):
        self._sets: dict[str, ChunkSet] = {}
        self._items: list[CollectedChunk] = []
        self.duplicates: list[tuple[CollectedChunk, CollectedChunk]] = []  # (removed, kept)
        seen: dict[str, CollectedChunk] = {}
        for cs in chunksets:
            source = _source(cs)
            self._sets[source] = cs
            for chunk in cs.chunks:
                item = CollectedChunk(source, chunk)
                kept = seen.get(chunk.sha256)
                if kept is not None:
                    self.duplicates.append((item, kept))
                    continue
                seen[chunk.sha256] = item
                self._items.append(item)

    @property
    def duplicates_removed(self) -> int:
        return len(self.duplicates)

    def summary(self) -> str:
        """One line for the CLI and `inspect`: files, chunks kept, duplicates removed."""
        return (f"{len(self._sets)} file(s), {len(self._items)} chunk(s), "
                f"{self.duplicates_removed} duplicate chunk(s) removed (same sha256)")

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):
        return self._items[index]

    @property
    def files(self) -> list[str]:
        return list(self._sets)

    def chunkset(self, path) -> ChunkSet:
        return self._sets[str(path)]

    def get_file_chunks(self, path) -> list[CollectedChunk]:
        """The collection's chunks from one file, in document order (duplicates of earlier chunks left out)."""
        path = str(path)
        if path not in self._sets:
            raise KeyError(f"{path}: not in this collection (files: {', '.join(self._sets)})")
        return [item for item in self._items if item.source == path]

    def _locate(self, item) -> tuple[str, int]:
        if isinstance(item, CollectedChunk):
            chunks = self._sets[item.source].chunks
            if item.chunk.index < len(chunks) and chunks[item.chunk.index] is item.chunk:
                return item.source, item.chunk.index
        elif isinstance(item, Chunk):
            for source, cs in self._sets.items():
                if item.index < len(cs.chunks) and cs.chunks[item.index] is item:
                    return source, item.index
        raise KeyError(f"chunk {getattr(item, 'id', item)!r} is not in this collection")

    def get_neighboring_chunks(self, item, n: int = 1) -> list[CollectedChunk]:
        """Up to `n` chunks before and `n` after `item` in its own document, in document order."""
        before, after = self._around(item, n)
        return before + after

    def _around(self, item, n: int):
        source, i = self._locate(item)
        chunks = self._sets[source].chunks
        return ([CollectedChunk(source, c) for c in chunks[max(0, i - n):i]],
                [CollectedChunk(source, c) for c in chunks[i + 1:i + 1 + n]])

    def get_chunk_with_context(self, item, n: int = 1) -> ChunkWithContext:
        """The chunk plus the exact source text from its n-th previous chunk's start to its n-th next's end."""
        source, i = self._locate(item)
        cs = self._sets[source]
        before, after = self._around(item, n)
        chunk = cs.chunks[i]
        start = min([chunk.start] + [c.chunk.start for c in before])
        end = max([chunk.end] + [c.chunk.end for c in after])
        return ChunkWithContext(CollectedChunk(source, chunk), cs.document.text[start:end], start, end, before, after)
