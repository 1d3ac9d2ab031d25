"""`log` samples head/middle/tail and declares the rest; `log-records` covers all, never splitting a record."""

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from chunktui.engine import Document, ParamError, chunk_document, get_strategy, load_document
from chunktui.engine.readers.logs import TIMESTAMP
from chunktui.engine.strategies.log import sections

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"


def check_offsets(cs):
    text = cs.document.text
    assert all(text[c.start : c.end] == c.text for c in cs.chunks)
    assert all(a.end <= b.start for a, b in zip(cs.chunks, cs.chunks[1:]))


UPSTREAM_SAMPLES = {"head_lines": 50, "middle_lines": 100, "tail_lines": 100}  # the seed's defaults


def test_log_samples_head_middle_tail_and_declares_the_rest():
    doc = load_document(SAMPLES / "service.log")
    n = doc.line_count
    cs = chunk_document(doc, "log", UPSTREAM_SAMPLES)
    check_offsets(cs)
    assert [c.metadata["section"] for c in cs.chunks] == ["head", "middle", "tail"]
    head, middle, tail = cs.chunks
    assert (head.start_line, head.end_line) == (1, 50)
    assert (tail.start_line, tail.end_line) == (n - 99, n)
    assert middle.end_line - middle.start_line + 1 == 100
    assert n / 3 <= middle.start_line and middle.end_line <= 2 * n / 3 + 1
    assert all(c.boundary_type == "sample" for c in cs.chunks)
    assert [g.reason for g in cs.gaps] == ["sampled out", "sampled out"]
    assert (cs.gaps[0].start, cs.gaps[0].end) == (head.end, middle.start)
    assert (cs.gaps[1].start, cs.gaps[1].end) == (middle.end, tail.start)
    assert middle.metadata["levels"]["ERROR"] == sum(" ERROR " in line for line in middle.text.splitlines())
    assert get_strategy("log").covering is False


def test_log_sizes_are_configurable():
    cs = chunk_document(
        load_document(SAMPLES / "service.log"), "log", {"head_lines": 5, "middle_lines": 0, "tail_lines": 7}
    )
    assert [(c.start_line, c.end_line) for c in cs.chunks] == [
        (1, 5),
        (cs.document.line_count - 6, cs.document.line_count),
    ]
    with pytest.raises(ParamError):
        chunk_document(cs.document, "log", {"head_lines": 0, "middle_lines": 0, "tail_lines": 0})


def test_a_middle_sample_slides_to_a_record_and_the_tail_is_exactly_the_last_lines():
    """A middle that would open inside a stack trace slides to the next record and keeps its
    length; the tail is `tail -n`: exactly the lines asked for (it once started after the trace
    and came out shorter), marked when its first line continues a record."""
    doc = load_document(SAMPLES / "service.log")
    params = {"head_lines": 10, "middle_lines": 30, "tail_lines": 70}
    cs = chunk_document(doc, "log", params)
    check_offsets(cs)
    wanted = sections(doc.line_count, 10, 30, 70)
    assert [c.metadata["section"] for c in cs.chunks] == [name for name, _, _ in wanted]
    assert [c.line_count for c in cs.chunks] == [10, 30, 70]
    head, middle, tail = cs.chunks
    assert starts_a_record(head.text) and starts_a_record(middle.text)
    assert middle.start_line >= wanted[1][1]
    assert (tail.start_line, tail.end_line) == (wanted[2][1], doc.line_count)
    assert not starts_a_record(tail.text) and tail.metadata["opens_mid_record"] is True  # line 328: a traceback
    assert "opens_mid_record" not in middle.metadata


def test_a_middle_inside_a_trace_keeps_its_length():
    lines = ["2024-01-01 10:00:00 INFO start"] + [f"2024-01-01 10:00:{i:02d} INFO event {i}" for i in range(1, 40)]
    lines[18:18] = ["Traceback (most recent call last):", '  File "x.py", line 1', "ValueError: boom"]
    doc = Document("\n".join(lines) + "\n", "app.log", kind="log")
    cs = chunk_document(doc, "log", {"head_lines": 3, "middle_lines": 6, "tail_lines": 3})
    check_offsets(cs)
    middle = cs.chunks[1]
    assert starts_a_record(middle.text) and middle.line_count == 6


@pytest.mark.parametrize("head, middle, tail", [(5, 10, 5), (3, 7, 11), (6, 6, 6)])
def test_samples_of_an_apt_history_log_have_the_lines_asked_for(head, middle, tail):
    """apt writes a blank line before each history entry; a tail that opened on one moved to the
    next Start-Date line and lost it (5/10/5 gave a tail of 4 lines)."""
    doc = load_document(FIXTURES / "apt_history.log")
    cs = chunk_document(doc, "log", {"head_lines": head, "middle_lines": middle, "tail_lines": tail})
    check_offsets(cs)
    assert [c.metadata["section"] for c in cs.chunks] == ["head", "middle", "tail"]
    assert [c.line_count for c in cs.chunks] == [head, middle, tail]
    assert cs.chunks[-1].end_line == doc.line_count
    for c in cs.chunks[1:]:  # each opens on a line of its own or on the blank lines right before one
        assert re.match(r"\n*[A-Z][\w-]+: ", c.text), c.text[:40]


def test_small_log_sections_merge_without_duplicates():
    text = "".join(f"2025-01-01 00:00:{i % 60:02d} INFO line {i}\n" for i in range(120))
    cs = chunk_document(Document.from_text(text, path="small.log"), "log", UPSTREAM_SAMPLES)
    assert len(cs.chunks) == 1 and cs.chunks[0].text == text
    assert cs.chunks[0].metadata["section"] == "head+middle+tail"
    assert cs.gaps == []


@settings(max_examples=60, deadline=None)
@given(total=st.integers(0, 600), head=st.integers(0, 80), middle=st.integers(0, 150), tail=st.integers(0, 150))
def test_sections_never_sample_a_line_twice(total, head, middle, tail):
    parts = sections(total, head, middle, tail)
    lines = [ln for _, a, b in parts for ln in range(a, b + 1)]
    assert lines == sorted(set(lines)) and all(1 <= ln <= total for ln in lines)
    assert set(range(1, min(head, total) + 1)) <= set(lines)
    assert set(range(max(1, total - tail + 1), total + 1)) <= set(lines)
    # every requested line is sampled exactly once; a file no longer than the samples is read whole
    assert len(lines) == min(total, head + middle + tail)


def test_a_file_just_shorter_than_the_samples_is_read_whole_without_a_gap():
    """207 lines, 50 + 100 + 100 asked: once left lines 51-53 out while middle and tail overlapped."""
    text = "".join(f"line {i}\n" for i in range(1, 208))
    cs = chunk_document(Document.from_text(text, path="short.log"), "log", UPSTREAM_SAMPLES)
    assert [c.text for c in cs.chunks] == [text] and cs.gaps == []


def test_the_middle_moves_clear_of_the_tail_instead_of_overlapping_it():
    parts = sections(260, 50, 100, 100)
    assert parts == [("head", 1, 50), ("middle+tail", 61, 260)]  # touching samples are one chunk


def test_jsonl_head_names_every_key_seen():
    path = SAMPLES / "events.jsonl"
    seen = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        seen.update(dict.fromkeys(json.loads(line)))
    cs = chunk_document(load_document(path), "log", {"head_lines": 10, "middle_lines": 10, "tail_lines": 10})
    check_offsets(cs)
    assert cs.chunks[0].metadata["json_keys"] == list(seen)
    assert cs.chunks[0].metadata["json_invalid_lines"] == 0
    assert all("json_keys" not in c.metadata for c in cs.chunks[1:])
    assert {g.reason for g in cs.gaps} == {"sampled out"}


def starts_a_record(chunk_text: str) -> bool:
    return bool(TIMESTAMP.match(chunk_text))


@pytest.mark.parametrize("size", [1, 5, 40, 200])
def test_log_records_never_split_a_stack_trace(size):
    cs = chunk_document(load_document(SAMPLES / "service.log"), "log-records", {"size": size})
    check_offsets(cs)
    assert cs.gaps == [] and cs.chunks[-1].end == len(cs.document.text)
    assert all(starts_a_record(c.text) for c in cs.chunks)
    for c in cs.chunks:
        if "Traceback" in c.text:
            trace = c.text[c.text.index("Traceback") :]
            assert "Error:" in trace  # the final exception line came along
        assert c.line_count <= size or (c.metadata["oversized"] and c.metadata["record_count"] == 1)


def test_log_records_fixture_with_chained_python_and_java_traces():
    cs = chunk_document(load_document(FIXTURES / "stacktraces.log"), "log-records", {"size": 1})
    check_offsets(cs)
    labels = [c.text.splitlines()[0][21:] for c in cs.chunks]
    assert labels == [
        "INFO  worker started",
        "ERROR job 41 failed",
        "WARN  retrying job 41",
        "ERROR payment call failed",
        "INFO  job 41 done",
    ]
    python, java = cs.chunks[1], cs.chunks[3]
    assert python.text.endswith("jobs.JobError: 41\n") and python.metadata["oversized"]
    assert "Caused by:" in java.text and java.text.endswith("... 12 more\n")
    assert java.metadata["levels"] == {"ERROR": 1}


@pytest.mark.parametrize("unit, size", [("chars", 500), ("tokens", 120)])
def test_log_records_in_chars_and_tokens(unit, size):
    cs = chunk_document(load_document(SAMPLES / "service.log"), "log-records", {"size": size, "unit": unit})
    check_offsets(cs)
    for c in cs.chunks:
        measured = c.chars if unit == "chars" else c.tokens
        assert measured <= size or c.metadata.get("oversized")


def test_log_without_timestamps_is_one_record_per_line():
    text = "alpha\nbeta\n  indented belongs to beta\ngamma"
    cs = chunk_document(Document.from_text(text, path="plain.log"), "log-records", {"size": 1})
    assert [c.text for c in cs.chunks] == ["alpha\n", "beta\n  indented belongs to beta\n", "gamma"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "2025-01-01 10:00:00 INFO ok",
                "2025-01-01 10:00:01 ERROR bad",
                "Traceback (most recent call last):",
                "  File 'x.py', line 1",
                "ValueError: x",
                "\tat a.b(C.java:1)",
                "",
                '{"ts": 1}',
            ]
        ),
        max_size=60,
    ),
    st.integers(1, 12),
    st.booleans(),
)
def test_generated_logs_are_covered_exactly(lines, size, crlf):
    text = ("\r\n" if crlf else "\n").join(lines)
    cs = chunk_document(Document.from_text(text, path="gen.log"), "log-records", {"size": size})
    check_offsets(cs)
    assert "".join(c.text for c in cs.chunks) == text
    assert all(c.line_count <= size or c.metadata.get("oversized") for c in cs.chunks)


def test_the_sampling_note_groups_thousands():
    """'sampled 250 of 995350 lines' read badly on a big log."""
    text = "".join(f"2025-01-01 10:00:{i % 60:02d} INFO request {i}\n" for i in range(12_345))
    cs = chunk_document(Document.from_text(text, path="app.log"), "log", {})
    assert "of 12,345 lines" in " ".join(cs.notes)


LOG_LINES = [
    "2025-01-01 10:00:00 INFO ok",
    "2025-01-01 10:00:01 ERROR bad",
    "WARNING disk at 91%",
    "Traceback (most recent call last):",
    "  File 'x.py', line 1",
    "ValueError: x",
    "\tat a.b(C.java:1)",
    "",
    "   ",
    '{"ts": 1}',
    "plain words",
    "1700000000 tick",
    "1700000000\r",
    "x ERRORS and an ERROR",
    "a" * 195 + " ERROR",
    "a" * 196 + " WARNING",
    "b" * 200 + " FATAL",
    "[DEBUG] bracketed",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LOG_LINES), max_size=60), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_record_starts_are_the_lines_where_the_start_pattern_matches(lines, newline, ends_with_newline):
    """The starts come from a search led by line feeds (fast); they are exactly the lines at whose
    start the pattern matches, and line 0, as its `^` says."""
    from chunktui.engine.readers.logs import record_starts, start_pattern

    text = newline.join(lines) + (newline if ends_with_newline and lines else "")
    doc = Document.from_text(text, path="gen.log")
    pattern = start_pattern(doc)
    expected = [i for i, at in enumerate(doc.line_starts[: doc.line_count]) if pattern.match(text, at)]
    assert record_starts(doc) == (expected if expected[:1] == [0] else [0, *expected])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LOG_LINES), max_size=40))
def test_level_counts_count_each_lines_first_level_word_in_its_first_200_characters(lines):
    from chunktui.engine.readers.logs import level_counts

    expected: dict[str, int] = {}
    for line in lines:
        m = re.search(r"\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|SEVERE)\b", line[:200])
        if m:
            level = "WARN" if m.group(1) == "WARNING" else m.group(1)
            expected[level] = expected.get(level, 0) + 1
    assert list(level_counts(lines).items()) == list(expected.items())


def test_the_log_records_note_groups_thousands():
    """'log-records: 12345 records in 1372 chunks' read badly on a big log."""
    text = "".join(f"2025-01-01 10:00:{i % 60:02d} INFO request {i}\n" for i in range(12_345))
    cs = chunk_document(Document.from_text(text, path="app.log"), "log-records", {"size": 400})
    assert f"log-records: 12,345 records in {len(cs.chunks):,} chunks" in cs.notes and len(cs.chunks) > 1000


RECORD_LINES = [
    *LOG_LINES,
    '{"time": "2025-01-02", "level": "INFO"}',
    "[2025-01-01 10:00:00] WARNING x",
    "é ünïcode INFO ☃",
    "c" * 193 + " WARNING x",
    "INFO",
]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(RECORD_LINES), min_size=1, max_size=50),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.sampled_from([("chars", 1), ("chars", 120), ("lines", 3), ("tokens", 40)]),
)
def test_log_records_metadata_is_read_from_each_chunks_own_lines(lines, newline, ends_with_newline, unit_size):
    """log-records counts levels from the document's per-line codes and reads time stamps in batches;
    each chunk's metadata is still what its own text says: every line's first level word in its
    first 200 characters, its records, the time stamps of its first and last records' first lines."""
    from chunktui.engine.readers.logs import level_counts, record_starts, timestamp_of

    text = newline.join(lines) + (newline if ends_with_newline else "")
    doc = Document.from_text(text, path="gen.log")
    unit, size = unit_size
    cs = chunk_document(doc, "log-records", {"unit": unit, "size": size})
    assert "".join(c.text for c in cs.chunks) == text
    starts = {doc.line_starts[k] for k in record_starts(doc)}
    for c in cs.chunks:
        heads = [at for at in sorted(starts) if c.start <= at < c.end]
        first_line = c.text.split("\n", 1)[0].rstrip("\r\n")
        last_head = text[heads[-1] :].split("\n", 1)[0].rstrip("\r\n")
        stamps = [t for t in (timestamp_of(first_line), timestamp_of(last_head)) if t]
        expected = {"record_count": len(heads), "levels": level_counts(c.text.split("\n"))}
        if stamps:
            expected["ts_start"], expected["ts_end"] = stamps[0], stamps[-1]
        if len(heads) == 1 and (c.tokens if unit == "tokens" else c.line_count if unit == "lines" else c.chars) > size:
            expected["oversized"] = True
        assert dict(c.metadata) == expected and list(c.metadata["levels"]) == list(expected["levels"])
        assert c.boundary_label == first_line[:60].strip()


def test_the_scans_of_a_big_log_read_it_a_window_at_a_time(monkeypatch):
    """Record starts and line levels are read in windows of whole lines (the regex engine holds the
    GIL, and one pass over a 100 MB log froze the app); windows of a few lines find what one finds."""
    from chunktui.engine.readers import logs

    text = (SAMPLES / "service.log").read_text() + "\r\n".join(LOG_LINES) + "\n" + "\n".join(RECORD_LINES)
    whole = Document.from_text(text, path="gen.log")
    expected = logs.record_starts(whole), logs.line_levels(whole)
    assert expected[1] == bytes(
        logs.LEVEL_NAMES.index(next(iter(logs.level_counts([line])), ""))
        for line in text.split("\n")[: whole.line_count]
    )
    monkeypatch.setattr(logs, "_WINDOW_CHARS", 40)
    monkeypatch.setattr(logs, "_WINDOW_LINES", 3)
    monkeypatch.setattr(logs, "_RANGE_STEP", 2)
    windows = list(logs._line_windows(Document.from_text(text, path="gen.log")))
    assert len(windows) > 20 and all(stop - first <= 3 for first, stop, _, _ in windows)
    small = Document.from_text(text, path="gen.log")
    assert (logs.record_starts(small), logs.line_levels(small)) == expected
