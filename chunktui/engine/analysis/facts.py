"""Key facts: does each phrase the user cares about sit whole inside some chunk?

A phrase matches case-insensitively and any run of whitespace in it matches any run
of whitespace in the document, so a phrase wrapped across lines is still found.
`whole`: some occurrence lies inside one chunk. `split`: it occurs, but every
occurrence that chunks touch crosses a boundary. `missing`: not in the document,
or only in text no chunk covers.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from ..readers.documents import SMALL_FILE_LIMIT, read_file_bytes
from ..core.errors import DocumentError
from ..core.model import ChunkSet


@dataclass(frozen=True)
class Fact:
    phrase: str
    status: str  # whole | split | missing
    chunk_ids: tuple[str, ...]  # chunks holding it whole, or the chunks it is split across
    occurrences: int
    reason: str

    def line(self) -> str:
        """The CLI's report line: `status  phrase  [ids]`."""
        ids = f"  [{', '.join(self.chunk_ids)}]" if self.chunk_ids else ""
        return f"{self.status:<7}  {self.phrase}{ids}"


def load_phrases(path) -> list[str]:
    """One phrase a line; blank lines and lines starting with # are skipped."""
    p = Path(path)
    data = read_file_bytes(p, SMALL_FILE_LIMIT, "a phrases file")
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(p, f"cannot read phrases ({exc})") from None
    phrases = parse_phrases(raw)
    if not phrases:
        raise DocumentError(p, "no phrases (one a line; blank and # lines are skipped)")
    return phrases


def parse_phrases(raw: str) -> list[str]:
    return [s for s in (line.strip() for line in raw.splitlines()) if s and not s.startswith("#")]


def _pattern(phrase: str) -> re.Pattern:
    return re.compile(r"\s+".join(re.escape(w) for w in phrase.split()), re.IGNORECASE)


def _layout(cs: ChunkSet) -> tuple[list[int], int]:
    """Chunk starts and the longest chunk's length: what every phrase's lookup needs."""
    return [c.start for c in cs.chunks], max((c.chars for c in cs.chunks), default=0)


def check_fact(cs: ChunkSet, phrase: str, layout: tuple[list[int], int] | None = None) -> Fact:
    """`layout` is `_layout(cs)`, passed when many phrases are checked against one chunk set."""
    starts, longest = layout or _layout(cs)
    text = cs.document.text
    chunks = cs.chunks
    whole: list[str] = []
    crossing: list[str] = []
    occurrences = 0
    for m in _pattern(phrase).finditer(text) if phrase.split() else ():
        occurrences += 1
        s, e = m.span()
        i = bisect_right(starts, s) - 1
        holders, touching = [], []
        # chunks starting at or before s; one that holds [s, e) starts within `longest` of it
        for j in range(i, -1, -1):
            c = chunks[j]
            if c.start + longest <= s:
                break
            if c.start <= s and e <= c.end:
                holders.append(c.id)
            elif c.end > s:
                touching.append(c.id)
        for c in chunks[i + 1 :]:
            if c.start >= e:
                break
            touching.append(c.id)
        if holders:
            whole.extend(h for h in reversed(holders) if h not in whole)
        elif touching:
            crossing.extend(t for t in sorted(touching) if t not in crossing)
    if whole:
        return Fact(phrase, "whole", tuple(whole), occurrences, f"whole in {len(whole)} chunk(s)")
    if crossing:
        return Fact(
            phrase,
            "split",
            tuple(crossing),
            occurrences,
            f"every occurrence crosses a boundary ({' | '.join(crossing)})",
        )
    reason = "only in text no chunk covers" if occurrences else "not in the document"
    return Fact(phrase, "missing", (), occurrences, reason)


def check_facts(cs: ChunkSet, phrases) -> list[Fact]:
    """One Fact per phrase, in the given order."""
    layout = _layout(cs)
    return [check_fact(cs, p, layout) for p in phrases]
