"""`split`: cut after every delimiter character; fold segments shorter than `min_chars` away.

From ai_chunk's split mode: each delimiter ends its segment (so "Hi. Yo?" is
"Hi." + " Yo?"), and a segment shorter than `min_chars` joins the one before it.
The first segment has nothing before it, so while short it joins the next.
"""

from __future__ import annotations

import re

from . import Param, Proposal, Strategy, register
from ._delimiters import decode_delimiters
from ..errors import ParamError
from ..model import Span

_SENTENCE_ENDS = ".?!。？！"


def _delimiter_set(values: dict) -> str:
    delimiters = decode_delimiters("delimiters", values["delimiters"])
    if not delimiters:
        raise ParamError("delimiters", "needs at least one character to split at")
    return delimiters


def run(doc, params, ctx) -> Proposal:
    text, n = doc.text, len(doc.text)
    min_chars = params["min_chars"]
    pattern = re.compile("[" + "".join(re.escape(c) for c in _delimiter_set(params)) + "]")
    merged: list[list[int]] = []  # [start, end, segments]
    start = 0
    for i, m in enumerate(pattern.finditer(text)):
        if i % 4096 == 0:
            ctx.check()
        _add(merged, start, m.end(), min_chars)
        start = m.end()
    if start < n:
        _add(merged, start, n, min_chars)
    spans = []
    for s, e, count in merged:
        if s == 0:
            boundary, label = "start", "start of text"
        else:
            ch = text[s - 1]
            boundary = "sentence" if ch in _SENTENCE_ENDS else "delimiter"
            label = f"after {ch!r}"
        spans.append(Span(s, e, boundary, label, metadata={"segments": count}))
    return Proposal(spans)


def _add(merged: list[list[int]], start: int, end: int, min_chars: int) -> None:
    if not merged:
        merged.append([start, end, 1])
    elif len(merged) == 1 and merged[0][1] - merged[0][0] < min_chars:
        merged[-1][1] = end  # the first segment is still short: it grows forward
        merged[-1][2] += 1
    elif end - start < min_chars:
        merged[-1][1] = end
        merged[-1][2] += 1
    else:
        merged.append([start, end, 1])


register(Strategy(
    name="split",
    summary="Cut after every delimiter character (newline, '.', '?' by default); segments "
            "shorter than `min_chars` join the one before.",
    params=(
        Param("delimiters", "str", "\\n.?", "Characters that end a segment (\\n \\t \\r \\\\ are escapes)."),
        Param("min_chars", "int", 0, "Segments shorter than this join the previous one (the first "
              "joins the next).", min=0, max=100_000_000, step=10),
    ),
    run=run,
    validate_extra=_delimiter_set,
    size_param="min_chars",
    overlap_param=None,
))
