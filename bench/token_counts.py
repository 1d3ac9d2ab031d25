"""Exact token counts for every chunk: first chunking and re-chunk, against one encode pass.

The spans are real chunkings of the same corpus (chunktui `fixed` and `recursive`
in characters, `lines`), so they overlap and cut words the way chunks do. The
first chunking starts with no index kept; a re-chunk counts other spans of the
same text, which reuses the index built by the first.
"""

from __future__ import annotations

import statistics

from chunktui.engine import Document, chunk_document, token_index
from chunktui.engine.tokens import get_counter, get_encoding

from .timing import median_time, timed

NAME = "cl100k_base"


def _spans(doc: Document, strategy: str, params: dict) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunk_document(doc, strategy, params, tokenizer="chars").chunks]


def token_count_bench(size_key: str, text: str, repeat: int, log) -> dict:
    doc = Document.from_text(text, kind="prose")
    first_spans = _spans(doc, "fixed", {"size": 2048, "unit": "chars", "overlap": 204})
    rechunks = {
        "recursive 1000 chars, overlap 200": _spans(doc, "recursive", {"size": 1000, "overlap": 200}),
        "lines 40, overlap 4": _spans(doc, "lines", {"size": 40, "overlap": 4}),
        "fixed 512 chars, no overlap": _spans(doc, "fixed", {"size": 512, "unit": "chars", "overlap": 0}),
    }
    counter = get_counter(NAME)
    encode = get_encoding(NAME).encode_ordinary
    result = {"size": size_key, "chars": len(text), "spans_first": len(first_spans)}
    result["encode"] = median_time(lambda: len(encode(text)), repeat)
    result["direct"] = median_time(lambda: [len(encode(text[s:e])) for s, e in first_spans], repeat)

    firsts = []
    for _ in range(repeat):
        token_index.clear_cache()
        seconds, counts = timed(lambda: counter.count_spans(text, first_spans))
        firsts.append(seconds)
    result["first"] = statistics.median(firsts)
    exact = counts == [len(encode(text[s:e])) for s, e in first_spans]
    result["rechunk"] = {}
    for label, spans in rechunks.items():
        result["rechunk"][label] = {
            "spans": len(spans),
            "seconds": median_time(lambda: counter.count_spans(text, spans), repeat),
        }
        exact = exact and counter.count_spans(text, spans) == [len(encode(text[s:e])) for s, e in spans]
    result["exact"] = exact
    log(f"tokens {size_key}: {result}")
    return result
