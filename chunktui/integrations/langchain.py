"""`ChunktuiSplitter`: a LangChain TextSplitter that chunks with a chunktui configuration.

    from chunktui.integrations.langchain import ChunktuiSplitter

    splitter = ChunktuiSplitter.from_profile("profile.yaml")        # what the app saved
    splitter = ChunktuiSplitter("recursive", size=512, unit="tokens")
    docs = splitter.split_documents(loader.load())

Each Document's `start_index` and `end_index` are the chunk's span in its source text, so they
are right where the same paragraph repeats and where chunks overlap; LangChain's own
`create_documents` finds them with `str.find` from a guessed position (LangChain #21475,
#17642). Needs the `langchain` extra (langchain-text-splitters).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable
from typing import Any

from langchain_core.documents import Document as LCDocument
from langchain_text_splitters import TextSplitter

import chunktui
from chunktui.integrations._metadata import chunk_metadata, named_document


class ChunktuiSplitter(TextSplitter):
    """Splits with `chunktui.Chunker(strategy, tokenizer=..., **params)`: the same strategies,
    parameters and checks as `chunktui chunk`. LangChain's `chunk_size` and `chunk_overlap`
    are not used (the strategy's own parameters set sizes and overlap)."""

    def __init__(self, strategy: str = "auto", *, tokenizer: str | None = None, **params: Any) -> None:
        super().__init__(strip_whitespace=False)
        self.chunker = chunktui.Chunker(strategy, tokenizer=tokenizer, **params)

    @classmethod
    def from_profile(cls, path: str | os.PathLike) -> ChunktuiSplitter:
        """The splitter of a profile saved by the app (ctrl+s)."""
        from chunktui.formats.profiles import load_profile

        profile = load_profile(path)
        return cls(
            profile.strategy, tokenizer=profile.tokenizer, context_header=profile.context_header, **profile.params
        )

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in self.chunker.chunk(text).chunks]

    def create_documents(self, texts: Iterable[str], metadatas: list[dict] | None = None) -> list[LCDocument]:
        """One Document per chunk of each text, its metadata a copy of the text's plus the
        chunk's (`chunk_metadata`: start_index, end_index, lines, tokens, header path, ...)."""
        texts = list(texts)
        metadatas = metadatas or [{}] * len(texts)
        documents = []
        for text, metadata in zip(texts, metadatas, strict=True):
            chunkset = self.chunker.chunk(named_document(text, metadata.get("source")))
            for c in chunkset.chunks:
                documents.append(
                    LCDocument(page_content=c.text, metadata={**copy.deepcopy(metadata), **chunk_metadata(c, chunkset)})
                )
        return documents
