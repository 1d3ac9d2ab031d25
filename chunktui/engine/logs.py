"""Log lines: where a record starts, its level and timestamp, and the keys of JSON lines.

A record starts at a line that opens with a timestamp, a level, or a JSON object;
indented lines, stack-trace frames ("Traceback", "\\tat ", "Caused by:", "...")
and any other line that opens with neither continue the record above, so a
multi-line record (a Python traceback and its final exception line) stays whole.
"""

from __future__ import annotations

import json
import re

_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
TIMESTAMP = re.compile(
    r"^\[?(?:"
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"  # ISO 8601
    r"|\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
    rf"|(?:{_MONTHS}) [ \d]\d \d{{2}}:\d{{2}}:\d{{2}}"  # syslog
    r"|\d{2}/(?:" + _MONTHS + r")/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?"  # common log format
    r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
    r"|\d{10}(?:\.\d+)?(?=\s)"  # epoch seconds
    r")\]?"
)
_CLF = re.compile(r"^\S+ \S+ \S+ \[\d{2}/(?:" + _MONTHS + r")/\d{4}:")  # access logs: host ident user [date
LEVELS = ("TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL", "SEVERE")
_LEVEL_START = re.compile(r"^\[?(?:" + "|".join(LEVELS) + r")\b")
_LEVEL_ANY = re.compile(r"\b(" + "|".join(LEVELS) + r")\b")
_CONTINUATION = re.compile(r"^(?:[ \t]|Traceback \(|Caused by:|\.\.\.|During handling of|The above exception)")


def is_record_start(line: str) -> bool:
    if not line.strip() or _CONTINUATION.match(line):
        return False
    return bool(TIMESTAMP.match(line) or _LEVEL_START.match(line) or line.startswith("{") or _CLF.match(line))


def record_starts(lines: list[str]) -> list[int]:
    """0-based indexes of the lines that open a record; every line if none looks like one."""
    starts = [i for i, line in enumerate(lines) if is_record_start(line)]
    if not starts:
        starts = [i for i, line in enumerate(lines) if line.strip() and not _CONTINUATION.match(line)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # a preamble before the first record is a record of its own
    return starts


def timestamp_of(line: str) -> str | None:
    m = TIMESTAMP.match(line)
    if m:
        return m.group(0).strip("[]")
    if line.startswith("{"):
        try:
            obj = json.loads(line)
        except ValueError:
            return None
        if isinstance(obj, dict):
            for key in ("ts", "timestamp", "time", "@timestamp", "date", "datetime"):
                if isinstance(obj.get(key), (str, int, float)):
                    return str(obj[key])
    return None


def level_counts(lines) -> dict[str, int]:
    """How many lines mention each level word (WARNING counted as WARN), for spotting patterns."""
    counts: dict[str, int] = {}
    for line in lines:
        m = _LEVEL_ANY.search(line[:200])
        if m:
            level = "WARN" if m.group(1) == "WARNING" else m.group(1)
            counts[level] = counts.get(level, 0) + 1
    return counts


def json_keys(lines) -> tuple[list[str], int]:
    """Top-level keys seen across JSON lines in first-seen order, and how many lines were not JSON objects."""
    seen: dict[str, None] = {}
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad += 1
            continue
        if isinstance(obj, dict):
            seen.update(dict.fromkeys(obj))
        else:
            bad += 1
    return list(seen), bad


def doc_lines(doc) -> list[str]:
    """The document's lines without their line endings."""
    text = doc.text
    starts = doc.line_starts
    return [text[starts[i]:doc.line_start(i + 2)].rstrip("\r\n") for i in range(doc.line_count)]
