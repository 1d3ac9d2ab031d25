"""Who runs in each benchmark mode: chunktui's strategies and the peers' splitters.

A contender's `make(mode, text)` does the set-up (a fresh splitter, so no cache
survives from a previous run) and returns the timed call, which gives a list of
(start, chunk_text) pairs; start is None
when the library gives no offsets. Peers get our own tiktoken Encoding object (or
their bundled one), so nothing is downloaded and everyone counts the same tokens.
A contender that cannot run a mode raises Skip with the reason, which the report shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

from chunktui.engine import Document, chunk_document
from chunktui.engine.core import token_index
from chunktui.engine.core.tokens import get_encoding

TOKENIZER = "cl100k_base"


class Skip(Exception):
    """This contender does not support the mode (the message says why)."""


@dataclass(frozen=True)
class Mode:
    """One benchmark setting: unit and size of a chunk, overlap as a fraction of size."""

    family: str  # text | markdown | lines | code
    unit: str  # chars | tokens | lines
    size: int
    overlap_frac: float

    @property
    def overlap(self) -> int:
        return int(self.size * self.overlap_frac)

    @property
    def corpus(self) -> str:
        return {"text": "docs", "lines": "docs", "markdown": "markdown", "code": "code"}[self.family]

    @property
    def name(self) -> str:
        family = "" if self.family in ("text", self.unit) else f"{self.family} "
        return f"{family}{self.unit} {self.size} overlap {self.overlap_frac:.0%}"


Runner = Callable[[], list]


@dataclass(frozen=True)
class Contender:
    name: str
    ours: bool
    families: tuple[str, ...]
    make: Callable[[Mode, str], Runner]  # set-up (untimed) for one run on text; may raise Skip


# ---- chunktui ---------------------------------------------------------------------------


def _ours(strategy: str, params: Callable[[Mode], dict]) -> Callable[[Mode], Runner]:
    """chunk_document end to end (spans, lines, bytes, hashes, gaps). Character modes
    count sizes in characters; token modes count every chunk's exact cl100k tokens."""

    def make(mode: Mode, text: str) -> Runner:
        values = params(mode)
        tokenizer = TOKENIZER if mode.unit == "tokens" else "chars"
        doc = _document(text, mode.family)  # loading is not chunking
        token_index.clear_cache()  # a first chunking: no token index kept from a previous run

        def run() -> list:
            cs = chunk_document(doc, strategy, values, tokenizer=tokenizer)
            return [(c.start, c.text) for c in cs.chunks]

        return run

    return make


def _document(text: str, family: str) -> Document:
    if family == "code":
        return Document(text=text, path="corpus.py", kind="code", language="python")
    return Document.from_text(text, kind="markdown" if family == "markdown" else "prose")


def _fixed(mode: Mode) -> dict:
    return {"size": mode.size, "unit": mode.unit, "overlap": mode.overlap}


def _recursive(mode: Mode) -> dict:
    return {"size": mode.size, "unit": mode.unit, "overlap": mode.overlap}


def _markdown(mode: Mode) -> dict:
    if mode.unit != "chars":
        raise Skip("markdown sizes in characters")
    return {"max_char": mode.size, "min_char": mode.size // 2, "chunk_overlap": mode.overlap}


def _lines(mode: Mode) -> dict:
    return {"size": mode.size, "overlap": mode.overlap, "max_tokens": 0}  # lines as lines: no token cap


def _code(mode: Mode) -> dict:
    if mode.overlap:
        raise Skip("code overlaps in whole lines")
    return {"max_chunk_size": mode.size, "unit": mode.unit, "overlap_lines": 0, "language": "python"}


# ---- peers ------------------------------------------------------------------------------


def _token_len():
    encode = get_encoding(TOKENIZER).encode_ordinary
    return lambda t: len(encode(t))


def langchain_recursive(mode: Mode, text: str) -> Runner:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    kwargs = {"length_function": _token_len()} if mode.unit == "tokens" else {}
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=mode.size, chunk_overlap=mode.overlap, add_start_index=True, **kwargs
    )
    return lambda: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def langchain_markdown(mode: Mode, text: str) -> Runner:
    if mode.overlap:
        raise Skip("no size or overlap: splits at headers only")
    from langchain_text_splitters import MarkdownHeaderTextSplitter

    splitter = MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2"), ("###", "h3")])
    return lambda: [(None, d.page_content) for d in splitter.split_text(text)]


def _chonkie_tokenizer(mode: Mode):
    return get_encoding(TOKENIZER) if mode.unit == "tokens" else "character"


def chonkie_recursive(mode: Mode, text: str) -> Runner:
    if mode.overlap:
        raise Skip("RecursiveChunker has no overlap")
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer=_chonkie_tokenizer(mode), chunk_size=mode.size)
    return lambda: [(c.start_index, c.text) for c in chunker.chunk(text)]


def chonkie_token(mode: Mode, text: str) -> Runner:
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer=_chonkie_tokenizer(mode), chunk_size=mode.size, chunk_overlap=mode.overlap)
    return lambda: [(c.start_index, c.text) for c in chunker.chunk(text)]


def chonkie_code(mode: Mode, text: str) -> Runner:
    try:
        import tree_sitter_language_pack  # noqa: F401  (what CodeChunker parses with)
    except ImportError:
        # tried: chonkie 1.7 hands the chunking itself to the pack's `process`, which only 1.x has,
        # and 1.x downloads its grammars at run time; 0.13.0 bundles them but has no `process`
        raise Skip(
            "CodeChunker needs tree-sitter-language-pack 1.x, which downloads its grammars at run "
            "time (offline here; the bundled 0.13.0 lacks the API chonkie calls)"
        ) from None
    from chonkie import CodeChunker

    chunker = CodeChunker(tokenizer="character", chunk_size=mode.size, language="python")
    return lambda: [(c.start_index, c.text) for c in chunker.chunk(text)]


def semchunk_chunker(mode: Mode, text: str) -> Runner:
    import semchunk

    chunker = semchunk.chunkerify(get_encoding(TOKENIZER) if mode.unit == "tokens" else len, mode.size)

    def run() -> list:
        chunks, offsets = chunker(text, offsets=True, overlap=mode.overlap or None)
        return [(a, c) for c, (a, _b) in zip(chunks, offsets)]

    return run


def sts_text(mode: Mode, text: str) -> Runner:
    from semantic_text_splitter import TextSplitter

    if mode.unit == "tokens":  # its bundled tiktoken-rs cl100k, no download
        splitter = TextSplitter.from_tiktoken_model("gpt-3.5-turbo", mode.size, overlap=mode.overlap, trim=False)
    else:
        splitter = TextSplitter(mode.size, overlap=mode.overlap, trim=False)
    return lambda: splitter.chunk_indices(text)


def sts_markdown(mode: Mode, text: str) -> Runner:
    from semantic_text_splitter import MarkdownSplitter

    splitter = MarkdownSplitter(mode.size, overlap=mode.overlap, trim=False)
    return lambda: splitter.chunk_indices(text)


def sts_code(mode: Mode, text: str) -> Runner:
    import tree_sitter_python
    from semantic_text_splitter import CodeSplitter

    splitter = CodeSplitter(tree_sitter_python.language(), mode.size, overlap=mode.overlap, trim=False)
    return lambda: splitter.chunk_indices(text)


CONTENDERS = (
    Contender("chunktui fixed", True, ("text",), _ours("fixed", _fixed)),
    Contender("chunktui recursive", True, ("text",), _ours("recursive", _recursive)),
    Contender("chunktui markdown", True, ("markdown",), _ours("markdown", _markdown)),
    Contender("chunktui lines", True, ("lines",), _ours("lines", _lines)),
    Contender("chunktui code", True, ("code",), _ours("code", _code)),
    Contender("langchain RecursiveCharacterTextSplitter", False, ("text",), langchain_recursive),
    Contender("langchain MarkdownHeaderTextSplitter", False, ("markdown",), langchain_markdown),
    Contender("chonkie RecursiveChunker", False, ("text",), chonkie_recursive),
    Contender("chonkie TokenChunker", False, ("text",), chonkie_token),
    Contender("chonkie CodeChunker", False, ("code",), chonkie_code),
    Contender("semchunk", False, ("text",), semchunk_chunker),
    Contender("semantic-text-splitter TextSplitter", False, ("text",), sts_text),
    Contender("semantic-text-splitter MarkdownSplitter", False, ("markdown",), sts_markdown),
    Contender("semantic-text-splitter CodeSplitter", False, ("code",), sts_code),
)
