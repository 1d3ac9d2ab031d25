"""The chunking engine: pure Python, no UI imports.

    from chunktui.engine import load_document, chunk_document
    cs = chunk_document(load_document("guide.md"), "markdown", {"max_chars": 1500})
    assert all(cs.document.text[c.start:c.end] == c.text for c in cs.chunks)

The names below are imported from their modules on first use, so importing one light module
(`chunktui.engine.core.errors`, as `chunktui --version` does) does not load every strategy.
"""

from importlib import import_module

_HOMES = {
    ".readers.documents": ("Document", "detect_kind", "load_document"),
    ".core.errors": (
        "Cancelled",
        "ChunkingError",
        "ChunktuiError",
        "DocumentError",
        "ParamError",
        "UnknownStrategyError",
    ),
    ".core.model": ("Chunk", "ChunkSet", "Gap", "Span", "Stats", "build_chunkset"),
    ".run": ("chunk_document",),
    ".strategies": ("Param", "Strategy", "all_strategies", "get_strategy"),
    ".core.tokens": ("COUNTER_NAMES", "DEFAULT_TOKENIZER", "get_counter"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_HOME_OF, key=str.lower)


def __getattr__(name: str):
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
