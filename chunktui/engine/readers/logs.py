"""Log lines: where a record starts, its level and timestamp, and the keys of JSON lines.

A record starts at a line that opens with a timestamp, a level, or a JSON object;
indented lines, stack-trace frames ("Traceback", "\\tat ", "Caused by:", "...")
and any other line that opens with neither continue the record above, so a
multi-line record (a Python traceback and its final exception line) stays whole.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from itertools import compress, repeat
from operator import add, itemgetter, lt, sub

from ..core import slices
from ..core.derived import derived

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"


def _timestamp(epoch_end: str) -> str:
    return (
        r"\[?(?:"
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"  # ISO 8601
        r"|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
        rf"|(?:{_MONTHS}) [ \d]\d \d{{2}}:\d{{2}}:\d{{2}}"  # syslog
        r"|\d{2}/(?:" + _MONTHS + r")/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?"  # common log format
        r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
        r"|\d{10}(?:\.\d+)?"
        + epoch_end  # epoch seconds
        + r")\]?"
    )


TIMESTAMP = re.compile("^" + _timestamp(r"(?=\s)"))
_CLF = r"\S+ \S+ \S+ \[\d{2}/(?:" + _MONTHS + r")/\d{4}:"  # access logs: host ident user [date
LEVELS = ("TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL", "SEVERE")
_LEVEL_START = r"\[?(?:" + "|".join(LEVELS) + r")\b"
# the lookahead on the words' first letters lets the search skip other characters fast (2.7x)
_LEVEL_ANY = re.compile(rf"(?=[{''.join(sorted({w[0] for w in LEVELS}))}])\b(" + "|".join(LEVELS) + r")\b")
_CONTINUATION = r"(?:[ \t]|Traceback \(|Caused by:|\.\.\.|During handling of|The above exception)"
# Matched over the whole text (re.M), so no list of lines is built. A line's trailing "\r"s are
# not part of it: the whitespace after an epoch timestamp must be inside the line.
_RECORD_START = re.compile(
    r"^(?!"
    + _CONTINUATION
    + r")(?:"
    + _timestamp(r"(?=[^\S\r\n]|\r+[^\r\n])")
    + "|"
    + _LEVEL_START
    + r"|\{|"
    + _CLF
    + ")",
    re.M,
)
_ANY_LINE = re.compile(r"^(?!" + _CONTINUATION + r")(?=[^\n]*\S)", re.M)  # not blank, not a continuation
# Each start pattern led by a line feed instead of `^`: the regex engine tries `^` at every
# character, but jumps from line feed to line feed for a pattern that opens with one (a pass over a
# 10 MB log 1.9 s -> 0.9 s). The match is the line feed before the line (and its first line apart).
_AFTER_LINE_FEED = {
    pattern: re.compile("\n" + pattern.pattern.removeprefix("^"), pattern.flags)
    for pattern in (_RECORD_START, _ANY_LINE)
}
# The line feeds before the lines that do NOT open a record: in a log most lines open one, and a
# match each cost more than the search (a Match object and a bisect for each of 1.2 M lines).
_NOT_AFTER_LINE_FEED = {
    pattern: re.compile("\n(?!" + pattern.pattern.removeprefix("^") + ")", pattern.flags)
    for pattern in (_RECORD_START, _ANY_LINE)
}
# Whole-text passes read the text a window of whole lines at a time: the regex engine holds the GIL,
# and one pass over a 100 MB log would hold it, and freeze the app, for seconds. A window is at most
# this many characters (a few ms of regex work) and lines.
_WINDOW_CHARS = 1 << 19
_WINDOW_LINES = 1 << 13
_RANGE_STEP = 1 << 15  # line numbers made at a time (a million in one call holds the GIL ~20 ms)


def _line_windows(doc):
    """(first, stop, pos, endpos) of consecutive windows over lines 1.. of `doc`: lines first..stop-1
    for a search led by line feeds, from the line feed before line `first` up to the one that
    ends line stop-1 (excluded, so a lookahead at a line's end reads the end of the window, as
    on the line alone: no pattern here reads a line feed)."""
    line_starts, n, end = doc.line_starts, doc.line_count, len(doc.text)
    first = 1
    while first < n:
        stop = min(
            n, first + _WINDOW_LINES, max(first + 1, bisect_right(line_starts, line_starts[first] + _WINDOW_CHARS))
        )
        yield first, stop, line_starts[first] - 1, line_starts[stop] - 1 if stop < len(line_starts) else end
        first = stop


def start_pattern(doc) -> re.Pattern:
    """Lines that look like records open records; in a log with none, every non-blank line does."""
    return derived(doc, "log:start pattern", lambda: _RECORD_START if _has_record_start(doc) else _ANY_LINE)


def _has_record_start(doc) -> bool:
    text, search = doc.text, _AFTER_LINE_FEED[_RECORD_START].search
    return bool(_RECORD_START.match(text)) or any(search(text, pos, end) for _, _, pos, end in _line_windows(doc))


def record_starts(doc) -> list[int]:
    """0-based indexes of the lines that open a record (kept for the document: read-only). Found as
    the lines that do not, window by window (see _line_windows); line 0 always opens one: a
    preamble before the first record is a record of its own."""
    return derived(doc, "log:record starts", lambda: _record_starts(doc))


def _record_starts(doc) -> list[int]:
    text, line_starts, not_after = doc.text, doc.line_starts, _NOT_AFTER_LINE_FEED[start_pattern(doc)].finditer
    starts: list[int] = []
    first = 0
    for _, _, pos, end in _line_windows(doc):
        # the line after a match's line feed: the number of lines starting at or before the line feed
        for line in map(bisect_right, repeat(line_starts), map(re.Match.start, not_after(text, pos, end))):
            _extend_range(starts, first, line)
            first = line + 1
    _extend_range(starts, first, max(doc.line_count, 1))  # an empty text is one (empty) record
    return starts


def _extend_range(out: list[int], start: int, stop: int) -> None:
    for a in range(start, stop, _RANGE_STEP):
        out += range(a, min(a + _RANGE_STEP, stop))


# Each line's first level word, as `level_counts` finds it in a line of at most 200 characters: the
# characters that cannot open one are skipped a run at a time (possessive), and a letter that can
# is passed over unless a level word starts there. Every line yields one match, empty without a word.
_FIRST_LETTERS = "".join(sorted({w[0] for w in LEVELS}))
_LINE_LEVEL = (
    rf"(?:[^\n{_FIRST_LETTERS}]*+(?!\b(?:{'|'.join(LEVELS)})\b)[{_FIRST_LETTERS}])*+"
    rf"[^\n{_FIRST_LETTERS}]*+(?:\b({'|'.join(LEVELS)})\b)?"
)
_FIRST_LINE_LEVEL = re.compile(_LINE_LEVEL)
_LINES_LEVELS = re.compile("\n" + _LINE_LEVEL)
LEVEL_NAMES = ("", *dict.fromkeys("WARN" if w == "WARNING" else w for w in LEVELS))  # by code; 0: none
_LEVEL_CODE = {"": 0, **{w: LEVEL_NAMES.index("WARN" if w == "WARNING" else w) for w in LEVELS}}
_LONG_LINE = 200  # level_counts reads a line's first 200 characters


def line_levels(doc) -> bytes:
    """Each line's level as a code into LEVEL_NAMES (0: none), as `level_counts` counts it: kept
    for the document, so that a re-chunk counts a chunk's levels from a slice of it."""
    return derived(doc, "log:line levels", lambda: _line_levels(doc))


def _line_levels(doc) -> bytes:
    text, line_starts, n = doc.text, doc.line_starts, doc.line_count
    if not n:
        return b""
    code = _LEVEL_CODE.__getitem__
    first = _FIRST_LINE_LEVEL.match(text, 0, line_starts[1] - 1 if n > 1 else len(text))  # always matches
    codes = bytearray([code(first.group(1) or "" if first else "")])
    long_lines = [0] if len(_line(doc, 0)) >= _LONG_LINE else []
    for first, stop, pos, end in _line_windows(doc):
        codes += bytes(map(code, _LINES_LEVELS.findall(text, pos, end)))
        # a line's length plus its line feed, from consecutive starts (the last line is checked below)
        lengths = map(sub, line_starts[first + 1 : stop + 1], line_starts[first:stop])
        long_lines += compress(range(first, stop), map(lt, repeat(_LONG_LINE), lengths))
    if len(_line(doc, n - 1)) >= _LONG_LINE:
        long_lines.append(n - 1)
    for line in dict.fromkeys(long_lines):  # the first level word within the first 200 characters only
        codes[line] = _LEVEL_CODE[next(iter(level_counts([_line(doc, line)])), "")]
    return bytes(codes)


def _line(doc, line: int) -> str:
    """0-based `line` as `str.split("\n")` gives it (a "\r" before its line feed kept)."""
    return doc.text[doc.line_start(line + 1) : doc.line_end(line + 1)].removesuffix("\n")


def next_record_start(doc, pattern: re.Pattern, first: int, last: int) -> int:
    """The first 1-based line in first..last that opens a record (`start_pattern`), searching no
    further, else `first`; line 1 always opens one. Blank lines right before a record are not
    inside one (apt's history.log writes one before each entry), so a sample may open on them
    and keep every line it asked for."""
    if first <= 1:
        return first
    start = doc.line_start(first)
    m = pattern.search(doc.text, start, doc.line_end(last))
    if m is None or not doc.text[start : m.start()].strip():
        return first
    return doc.line_of(m.start())


def timestamp_of(line: str) -> str | None:
    m = TIMESTAMP.match(line)
    if m:
        return m.group(0).strip("[]")
    if line.startswith("{"):
        obj = json_object(line)
        if obj is not None:
            for key in ("ts", "timestamp", "time", "@timestamp", "date", "datetime"):
                if isinstance(obj.get(key), (str, int, float)):
                    return str(obj[key])
    return None


def timestamps_of(lines: list[str]) -> list[str | None]:
    """`timestamp_of` of each line: the common case, a timestamp at the line's start, in C-level
    passes (a slice of lines each); a JSON line's is read from its object."""
    found = slices.mapped(TIMESTAMP.match, lines)
    return [
        m.group(0).strip("[]") if m else timestamp_of(line) if line[:1] == "{" else None
        for m, line in zip(found, lines)
    ]


_FIRST_200 = itemgetter(slice(0, 200))
_LEVEL_WORD = itemgetter(1)


def level_counts(lines) -> dict[str, int]:
    """How many lines mention each level word (WARNING counted as WARN), for spotting patterns:
    each line's first level word in its first 200 characters, in order of first appearance. The
    lines pass through C-level maps, not a Python loop (log-records does this for every chunk)."""
    found = Counter(map(_LEVEL_WORD, filter(None, map(_LEVEL_ANY.search, map(_FIRST_200, lines)))))
    counts: dict[str, int] = {}
    for level, n in found.items():
        level = "WARN" if level == "WARNING" else level
        counts[level] = counts.get(level, 0) + n
    return counts


def json_keys(lines) -> tuple[list[str], int]:
    """Top-level keys seen across JSON lines in first-seen order, and how many lines were not JSON objects."""
    seen: dict[str, None] = {}
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        obj = json_object(line)
        if obj is None:
            bad += 1
        else:
            seen.update(dict.fromkeys(obj))
    return list(seen), bad


def json_object(line: str) -> dict | None:
    """The JSON object on `line` (None if the line is not one), read at any depth of nesting.

    json.loads recurses, in C, once per level: a line nested deeper than the interpreter's
    recursion limit (about 1,000 levels) raises RecursionError. Such lines are read again by
    `_top_level`, which keeps its place in an explicit stack instead.
    """
    try:
        obj = json.loads(line)
    except RecursionError:
        return _top_level(line)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null|NaN|-?Infinity")
_CLOSER = {"{": "}", "[": "]"}
_scanstring: Callable[[str, int], tuple[str, int]]
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # json's string reader; typeshed omits it


def _after_ws(line: str, pos: int = 0) -> int:
    """Where the whitespace from `pos` on ends (`_WS` matches the empty string, so always matches)."""
    m = _WS.match(line, pos)
    return m.end() if m else pos


def _top_level(line: str) -> dict | None:
    """The top-level object of a JSON line, checked as json.loads checks it but without recursing:
    its scalar values are kept, its nested arrays and objects become None (only the top level is
    ever read). None when the line is not a JSON object."""
    pos = _after_ws(line)
    if not line.startswith("{", pos):
        return None
    top: dict = {}
    stack = ["{"]
    state, first, key, pos = "key", True, None, pos + 1
    try:
        while stack:
            pos = _after_ws(line, pos)
            ch = line[pos : pos + 1]
            if ch == _CLOSER[stack[-1]] and (state == "next" or first):  # first: just after the opener
                stack.pop()
                state, first, pos = "next", False, pos + 1
            elif state == "next":
                if ch != ",":
                    return None
                state, first, pos = ("key" if stack[-1] == "{" else "value"), False, pos + 1
            elif state == "key":
                if ch != '"':
                    return None
                key, pos = _scanstring(line, pos + 1)
                state, first = "colon", False
            elif state == "colon":
                if ch != ":":
                    return None
                state, pos = "value", pos + 1
            elif ch in _CLOSER:
                if len(stack) == 1:
                    top[key] = None
                stack.append(ch)
                state, first, pos = ("key" if ch == "{" else "value"), True, pos + 1
            else:
                if ch == '"':
                    value, pos = _scanstring(line, pos + 1)
                else:
                    m = _SCALAR.match(line, pos)
                    if not m:
                        return None
                    value, pos = json.loads(m.group()), m.end()
                if len(stack) == 1:
                    top[key] = value
                state, first = "next", False
    except ValueError:  # a malformed string
        return None
    return top if _after_ws(line, pos) == len(line) else None


def line_text(doc, line: int) -> str:
    """1-based `line` without its line ending."""
    return doc.text[doc.line_start(line) : doc.line_end(line)].rstrip("\r\n")


def line_texts(doc, lines: list[int]) -> list[str]:
    """0-based `lines` (rising) without their line endings, each its own string."""
    text, line_starts = doc.text, doc.line_starts
    out: list[str] = []
    last = len(line_starts) - 1  # a line that ends the text without a line feed: its end is the text's
    whole = lines if not lines or lines[-1] < last else lines[:-1]
    for i in range(0, len(whole), slices.STEP):
        part = whole[i : i + slices.STEP]
        ends = map(line_starts.__getitem__, map(add, part, repeat(1)))
        out += map(
            str.rstrip, map(text.__getitem__, map(slice, map(line_starts.__getitem__, part), ends)), repeat("\r\n")
        )
    if len(whole) < len(lines):
        out.append(line_text(doc, lines[-1] + 1))
    return out


def iter_lines(doc, first: int = 1, last: int | None = None, block: int = 4096):
    """Lines first..last (1-based, inclusive) without their line endings; at most `block` lines
    are strings at a time, so a scan of a whole file never holds all of them."""
    last = doc.line_count if last is None else last
    for a in range(first, last + 1, block):
        b = min(a + block - 1, last)
        for line in doc.text[doc.line_start(a) : doc.line_end(b)].split("\n", b - a + 1)[: b - a + 1]:
            yield line.rstrip("\r")
