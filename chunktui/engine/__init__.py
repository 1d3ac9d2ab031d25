"""The chunking engine: pure Python, no UI imports.

    from chunktui.engine import load_document, chunk_document
    cs = chunk_document(load_document("guide.md"), "markdown", {"max_char": 1500})
    assert all(cs.document.text[c.start:c.end] == c.text for c in cs.chunks)
"""

from .documents import Document, detect_kind, load_document
from .errors import Cancelled, ChunkingError, ChunktuiError, DocumentError, ParamError, UnknownStrategyError
from .model import Chunk, ChunkSet, Gap, Span, Stats, build_chunkset
from .run import chunk_document
from .strategies import Param, Strategy, all_strategies, get_strategy
from .tokens import COUNTER_NAMES, DEFAULT_TOKENIZER, get_counter

__all__ = [
    "Cancelled", "Chunk", "ChunkSet", "ChunkingError", "ChunktuiError", "COUNTER_NAMES", "DEFAULT_TOKENIZER",
    "Document", "DocumentError", "Gap", "Param", "ParamError", "Span", "Stats", "Strategy",
    "UnknownStrategyError", "all_strategies", "build_chunkset", "chunk_document", "detect_kind",
    "get_counter", "get_strategy", "load_document",
]
