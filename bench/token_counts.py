"""Exact token counts for every chunk: first chunking and re-chunk, against one encode pass.

The spans are real chunkings of the same corpus (chunktui `fixed` and `recursive`
in characters, `lines`), so they overlap and cut words the way chunks do. The
first chunking starts with no index kept; a re-chunk counts other spans of the
same text, which reuses the index built by the first.
"""

from __future__ import annotations

import statistics

from chunktui.engine import Document, chunk_document
from chunktui.engine.core import token_index
from chunktui.engine.core.tokens import get_counter, get_encoding

from .timing import timed

NAME = "cl100k_base"


def _spans(doc: Document, strategy: str, params: dict) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunk_document(doc, strategy, params, tokenizer="chars").chunks]


def token_count_bench(size_key: str, text: str, repeat: int, log) -> dict:
    doc = Document.from_text(text, kind="prose")
    first_spans = _spans(doc, "fixed", {"size": 2048, "unit": "chars", "overlap": 204})
    rechunks = {
        "recursive 4000 chars, overlap 400": _spans(doc, "recursive", {"size": 4000, "overlap": 400}),
        "recursive 1000 chars, overlap 200": _spans(doc, "recursive", {"size": 1000, "overlap": 200}),
        "lines 40, overlap 4": _spans(doc, "lines", {"size": 40, "overlap": 4, "max_tokens": 0}),
        "fixed 512 chars, no overlap": _spans(doc, "fixed", {"size": 512, "unit": "chars", "overlap": 0}),
    }
    counter = get_counter(NAME)
    encode = get_encoding(NAME).encode_ordinary
    result = {"size": size_key, "chars": len(text), "spans_first": len(first_spans)}

    # interleaved, so load that comes and goes weighs on the encode pass and the counts alike
    times: dict[str, list[float]] = {"encode": [], "direct": [], "first": [], **{k: [] for k in rechunks}}
    # below 1 MB a run takes a millisecond or less, where one pause of the shared machine would
    # move the median: at least 50 runs there, and a re-chunk is timed as an app or a pipeline
    # calls it, with no full collection forced before it (that would time the collector)
    for _ in range(repeat if len(text) >= 1_000_000 else max(50, 5 * repeat)):
        times["encode"].append(timed(lambda: len(encode(text)))[0])
        times["direct"].append(timed(lambda: [len(encode(text[s:e])) for s, e in first_spans])[0])
        token_index.clear_cache()
        seconds, counts = timed(lambda: counter.count_spans(text, first_spans))
        times["first"].append(seconds)
        for label, spans in rechunks.items():
            times[label].append(timed(lambda: counter.count_spans(text, spans), collect=False)[0])
    for key in ("encode", "direct", "first"):
        result[key] = statistics.median(times[key])
    exact = counts == [len(encode(text[s:e])) for s, e in first_spans]
    result["rechunk"] = {}
    for label, spans in rechunks.items():
        result["rechunk"][label] = {"spans": len(spans), "seconds": statistics.median(times[label])}
        exact = exact and counter.count_spans(text, spans) == [len(encode(text[s:e])) for s, e in spans]
    result["exact"] = exact
    log(f"tokens {size_key}: {result}")
    return result
