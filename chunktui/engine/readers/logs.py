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
from itertools import islice, repeat
from operator import itemgetter

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"


def _timestamp(epoch_end: str) -> str:
    return (
        r"\[?(?:"
        r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"  # ISO 8601
        r"|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
        rf"|(?:{_MONTHS}) [ \d]\d \d{{2}}:\d{{2}}:\d{{2}}"  # syslog
        r"|\d{2}/(?:" + _MONTHS + r")/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?"  # common log format
        r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
        r"|\d{10}(?:\.\d+)?" + epoch_end +  # epoch seconds
        r")\]?"
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
    r"^(?!" + _CONTINUATION + r")(?:" + _timestamp(r"(?=[^\S\r\n]|\r+[^\r\n])") + "|" + _LEVEL_START
    + r"|\{|" + _CLF + ")", re.M)
_ANY_LINE = re.compile(r"^(?!" + _CONTINUATION + r")(?=[^\n]*\S)", re.M)  # not blank, not a continuation
# Each start pattern led by a line feed instead of `^`: the regex engine tries `^` at every
# character, but jumps from line feed to line feed for a pattern that opens with one (a pass over a
# 10 MB log 1.9 s -> 0.9 s). The match is the line feed before the line (and its first line apart).
_MATCHES_A_BATCH = 2048  # about 15 ms of regex work at a time
_AFTER_LINE_FEED = {pattern: re.compile("\n" + pattern.pattern.removeprefix("^"), pattern.flags)
                    for pattern in (_RECORD_START, _ANY_LINE)}


def start_pattern(doc) -> re.Pattern:
    """Lines that look like records open records; in a log with none, every non-blank line does."""
    return _RECORD_START if _RECORD_START.search(doc.text) else _ANY_LINE


def record_starts(doc) -> list[int]:
    """0-based indexes of the lines that open a record, in one regex pass over the text; each match
    is placed on its line by a C-level bisect (a Python call per record cost 0.6 s at 10 MB), a
    batch of matches at a time: the regex engine holds the GIL, and a single pass over a 100 MB
    log would hold it, and freeze the app, for seconds."""
    pattern, text = start_pattern(doc), doc.text
    matches, line_starts = _AFTER_LINE_FEED[pattern].finditer(text), doc.line_starts
    starts = [0] if pattern.match(text) else []
    while batch := list(islice(matches, _MATCHES_A_BATCH)):
        # the line after a match's line feed: the number of lines starting at or before the line feed
        starts += map(bisect_right, repeat(line_starts), map(re.Match.start, batch))
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # a preamble before the first record is a record of its own
    return starts


def next_record_start(doc, pattern: re.Pattern, first: int, last: int) -> int:
    """The first 1-based line in first..last that opens a record (`start_pattern`), searching no
    further, else `first`; line 1 always opens one. Blank lines right before a record are not
    inside one (apt's history.log writes one before each entry), so a sample may open on them
    and keep every line it asked for."""
    if first <= 1:
        return first
    start = doc.line_start(first)
    m = pattern.search(doc.text, start, doc.line_end(last))
    if m is None or not doc.text[start:m.start()].strip():
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
            ch = line[pos:pos + 1]
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
    return doc.text[doc.line_start(line):doc.line_end(line)].rstrip("\r\n")


def iter_lines(doc, first: int = 1, last: int | None = None, block: int = 4096):
    """Lines first..last (1-based, inclusive) without their line endings; at most `block` lines
    are strings at a time, so a scan of a whole file never holds all of them."""
    last = doc.line_count if last is None else last
    for a in range(first, last + 1, block):
        b = min(a + block - 1, last)
        for line in doc.text[doc.line_start(a):doc.line_end(b)].split("\n", b - a + 1)[:b - a + 1]:
            yield line.rstrip("\r")
