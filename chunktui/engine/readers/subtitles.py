"""Subtitle files (WebVTT, SRT) as cues that keep their character offsets in the file.

webvtt-py parses timestamps and strips cue tags, but it does not say where a cue
sits in the file, so the blocks are located here, line by line; every malformed
block is reported with its 1-based line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from webvtt.errors import MalformedCaptionError
from webvtt.models import Caption, Timestamp

from .documents import Document
from ..core.errors import ChunkingError

_TIMING = re.compile(r"^\s*(\S+)\s+-->\s+(\S+)(.*)$")
_SRT_TIME = re.compile(r"^(\d{1,10}):(\d{1,2}):(\d{1,2})[,.](\d{1,3})$")
_NOTE = re.compile(r"^NOTE(?:[ \t]|$)")


@dataclass(frozen=True)
class Cue:
    """One cue: its timing, its text without tags, and its block's place in the file."""

    index: int
    identifier: str | None
    start: str  # "HH:MM:SS.mmm"
    end: str
    start_ms: int
    end_ms: int
    text: str
    voice: str | None
    block_start: int  # offset of the block's first line (identifier or timing)
    block_end: int  # offset just past the block's last line
    line: int  # 1-based line of the timing line


@dataclass
class SubtitleFile:
    """The cues of a file plus the non-cue blocks (header, NOTE, STYLE, REGION) with offsets."""

    format: str  # "vtt" or "srt"
    cues: list[Cue]
    blocks: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, kind)
    header: dict = field(default_factory=dict)


def _blocks(doc: Document):
    """Yield runs of non-blank lines as (first_line_no, [(line_no, start, end, text)])."""
    text = doc.text
    starts = doc.line_starts
    run: list = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(text)
        if s == e and i + 1 == len(starts):
            break
        line = text[s:e].rstrip("\r\n")
        if i == 0:
            line = line.lstrip("\ufeff")
        if line.strip():
            run.append((i + 1, s, e, line))
        elif run:
            yield run
            run = []
    if run:
        yield run


def _error(doc: Document, line: int, problem: str) -> ChunkingError:
    return ChunkingError(f"{doc.path or doc.name}: line {line}: {problem}")


def _vtt_time(doc, line_no: int, value: str) -> Timestamp:
    try:
        return Timestamp.from_string(value)
    except MalformedCaptionError:
        raise _error(doc, line_no, f"malformed timestamp {value!r}") from None


def _srt_time(doc, line_no: int, value: str) -> Timestamp:
    m = _SRT_TIME.match(value)
    if not m:
        raise _error(doc, line_no, f"malformed timestamp {value!r}")
    h, mi, s, ms = m.groups()
    return _vtt_time(doc, line_no, f"{h}:{mi}:{s}.{ms}")


def _cue(doc, index, ident, timing_line, text_lines, start, end, parse_time) -> Cue:
    line_no, _, _, line = timing_line
    m = _TIMING.match(line)
    assert m is not None  # the line was picked as a timing line by this pattern
    t0 = parse_time(doc, line_no, m.group(1))
    t1 = parse_time(doc, line_no, m.group(2))
    if t1.in_milliseconds() < t0.in_milliseconds():
        raise _error(doc, line_no, f"cue ends ({m.group(2)}) before it starts ({m.group(1)})")
    caption = Caption(str(t0), str(t1), [t for *_, t in text_lines])
    return Cue(
        index=index,
        identifier=ident,
        start=str(t0),
        end=str(t1),
        start_ms=t0.in_milliseconds(),
        end_ms=t1.in_milliseconds(),
        text=caption.text,
        voice=caption.voice,
        block_start=start,
        block_end=end,
        line=line_no,
    )


def is_vtt(doc: Document) -> bool:
    return doc.text.lstrip("\ufeff").startswith("WEBVTT") or (doc.path or "").lower().endswith(".vtt")


def parse_subtitles(doc: Document) -> SubtitleFile:
    """Cues of a WebVTT or SRT document; ChunkingError naming the line if malformed."""
    first_break = re.search(r"\r\n?|\n", doc.text)
    if first_break and first_break.group() == "\r":  # lines are split at LF: one CR-only file is one line
        raise _error(doc, 1, "lines end in a lone CR (classic Mac line endings); save it with LF or CRLF")
    return _parse_vtt(doc) if is_vtt(doc) else _parse_srt(doc)


def _parse_vtt(doc: Document) -> SubtitleFile:
    blocks = list(_blocks(doc))
    if not blocks or not re.match(r"^WEBVTT(?:[ \t]|$)", blocks[0][0][3]):
        raise _error(doc, blocks[0][0][0] if blocks else 1, "a WebVTT file must start with 'WEBVTT'")
    out = SubtitleFile("vtt", [])
    head = blocks[0]
    out.header["title"] = head[0][3][6:].strip(" \t-")
    for line_no, _, _, line in head[1:]:
        if "-->" in line:
            raise _error(doc, line_no, "a cue must be separated from the WEBVTT header by a blank line")
        key, _, value = line.partition(":")
        out.header[key.strip()] = value.strip()
    out.blocks.append((0, head[-1][2], "header"))
    for run in blocks[1:]:
        first = run[0][3]
        start, end = run[0][1], run[-1][2]
        if _NOTE.match(first) or first in ("STYLE", "REGION"):
            out.blocks.append((start, end, first.split()[0].lower() if not _NOTE.match(first) else "note"))
            continue
        timing_at = 0 if "-->" in first else 1
        if len(run) <= timing_at or "-->" not in run[timing_at][3]:
            line_no = run[min(timing_at, len(run) - 1)][0]
            raise _error(doc, line_no, "expected a cue timing line 'start --> end'")
        for cue_run, ident in _vtt_cue_runs(run, timing_at):
            timing = cue_run[0 if ident is None else 1]
            if not _TIMING.match(timing[3]):
                raise _error(doc, timing[0], "malformed cue timing line")
            text_at = 1 if ident is None else 2
            out.cues.append(
                _cue(doc, len(out.cues), ident, timing, cue_run[text_at:], cue_run[0][1], cue_run[-1][2], _vtt_time)
            )
    return out


def _vtt_cue_runs(run, timing_at: int):
    """(lines, identifier) of each cue in a block: as the WebVTT parser does, a line
    holding "-->" ends the cue text, so a timing line straight after a cue's text opens
    a new cue (without an identifier) rather than becoming text."""
    begin, ident, cut = 0, run[0][3] if timing_at else None, timing_at + 1
    while True:  # a loop, not a recursion per cue: a block of thousands of back-to-back cues is read
        while cut < len(run) and "-->" not in run[cut][3]:
            cut += 1
        yield run[begin:cut], ident
        if cut >= len(run):
            return
        begin, ident, cut = cut, None, cut + 1


def _parse_srt(doc: Document) -> SubtitleFile:
    out = SubtitleFile("srt", [])
    for run in _blocks(doc):
        first = run[0][3].strip()
        timing_at = 1 if first.isdigit() and len(run) > 1 else 0
        timing = run[timing_at]
        if "-->" not in timing[3]:
            if out.cues and timing_at == 0:
                # a blank line inside a cue's text: the block continues the previous cue
                out.cues[-1] = _extend(out.cues[-1], run)
                continue
            raise _error(doc, timing[0], _srt_missing_timing(first, len(run)))
        if not _TIMING.match(timing[3]):
            raise _error(doc, timing[0], "malformed cue timing line")
        ident = first if timing_at else None
        out.cues.append(_cue(doc, len(out.cues), ident, timing, run[timing_at + 1 :], run[0][1], run[-1][2], _srt_time))
    return out


def _srt_missing_timing(first: str, lines: int) -> str:
    """What a block without its timing line lacks: after a cue number, the timing line."""
    if not first.isdigit():
        return "expected a cue number or a timing line 'start --> end'"
    if lines == 1:
        return f"the timing line 'start --> end' after cue number {first} is missing"
    return f"expected the timing line 'start --> end' after cue number {first}"


def _extend(cue: Cue, run) -> Cue:
    more = Caption(cue.start, cue.end, [t for *_, t in run]).text
    return replace(cue, text=f"{cue.text}\n\n{more}" if cue.text else more, block_end=run[-1][2])
