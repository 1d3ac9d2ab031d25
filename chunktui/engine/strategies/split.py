"""`split`: cut after every delimiter character, each segment at least `min_chars` long.

From ai_chunk's split mode: each delimiter ends its piece (so "Hi. Yo?" is
"Hi." + " Yo?"). `min_chars` is a minimum per segment: pieces accumulate until the
segment reaches it, then the next segment starts, so a log of short lines gives many
segments of a few lines each rather than one that swallows the file.
"""

from __future__ import annotations

import re

from . import Param, Proposal, Strategy, register
from ._delimiters import decode_delimiters
from ..core.errors import ParamError
from ..core.model import Span

_SENTENCE_ENDS = ".?!。？！"


def _delimiter_set(values: dict) -> str:
    delimiters = decode_delimiters("delimiters", values["delimiters"])
    if not delimiters:
        raise ParamError("delimiters", "needs at least one character to split at")
    return delimiters


def run(doc, params, ctx) -> Proposal:
    text = doc.text
    pattern = re.compile("[" + "".join(re.escape(c) for c in _delimiter_set(params)) + "]")
    spans = []
    for s, e, count in _segments(text, pattern, params["min_chars"], ctx):
        if s == 0:
            boundary, label = "start", "start of text"
        else:
            ch = text[s - 1]
            boundary = "sentence" if ch in _SENTENCE_ENDS else "delimiter"
            label = f"after {ch!r}"
        spans.append(Span(s, e, boundary, label, metadata={"segments": count}))
    return Proposal(spans)


def _segments(text: str, pattern, min_chars: int, ctx) -> list[list[int]]:
    """[start, end, pieces] of each segment: pieces accumulate until the segment holds
    `min_chars` characters, so every segment but a lone one is at least that long and
    ends at a delimiter; a short remainder at the end joins the segment before it."""
    segments: list[list[int]] = []
    start = pieces = 0
    for i, m in enumerate(pattern.finditer(text)):
        if i % 4096 == 0:
            ctx.check()
        pieces += 1
        if m.end() - start >= min_chars:
            segments.append([start, m.end(), pieces])
            start, pieces = m.end(), 0
    if start < len(text):
        if not pattern.match(text, len(text) - 1):
            pieces += 1  # the text after the last delimiter
        if len(text) - start < min_chars and segments:
            segments[-1][1] = len(text)
            segments[-1][2] += pieces
        else:
            segments.append([start, len(text), pieces])
    return segments


register(
    Strategy(
        name="split",
        summary="Cut after every delimiter character (newline, '.', '?' by default); pieces "
        "accumulate until a segment holds `min_chars`, a short last one joins the previous.",
        params=(
            Param("delimiters", "str", "\\n.?", "Characters that end a segment (\\n \\t \\r \\\\ are escapes)."),
            Param(
                "min_chars",
                "int",
                0,
                "Minimum characters per segment: pieces accumulate until a "
                "segment reaches it (a short last one joins the previous).",
                min=0,
                max=100_000_000,
                step=10,
            ),
        ),
        run=run,
        validate_extra=_delimiter_set,
        size_param="min_chars",
        overlap_param=None,
    )
)
