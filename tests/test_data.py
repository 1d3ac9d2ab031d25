"""`data` samples rows of a table and declares the rest as gaps; `data-rows` covers every row whole."""

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import ChunkingError, Document, chunk_document, get_strategy, load_document

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"


def reference_rows(path: Path, delimiter: str) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return [r for r in csv.reader(fh, delimiter=delimiter) if r]


def rows_in(text: str, delimiter: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter) if r]


def assert_evenly_spaced(numbers: list[int], total: int, wanted: int) -> None:
    """Row numbers (1-based) of a sample: as many as asked (or all), the first and the last row
    among them, and neighbours apart by steps that differ by at most one row."""
    assert len(numbers) == min(wanted, total)
    if total <= wanted:
        assert numbers == list(range(1, total + 1))
        return
    assert numbers[0] == 1 and (wanted == 1 or numbers[-1] == total)
    steps = [b - a for a, b in zip(numbers, numbers[1:])]
    assert all(s >= 1 for s in steps) and max(steps, default=1) - min(steps, default=1) <= 1


def check_offsets(cs):
    text = cs.document.text
    assert all(text[c.start : c.end] == c.text for c in cs.chunks)
    assert all(a.end <= b.start for a, b in zip(cs.chunks, cs.chunks[1:]))


@pytest.mark.parametrize("name, delimiter", [("orders.csv", ","), ("orders.tsv", "\t")])
def test_data_samples_header_and_evenly_spaced_rows(name, delimiter):
    path = SAMPLES / name
    ref = reference_rows(path, delimiter)
    header, rows = ref[0], ref[1:]
    cs = chunk_document(load_document(path), "data")
    check_offsets(cs)
    assert rows_in(cs.chunks[0].text, delimiter) == [header]
    assert cs.chunks[0].metadata["columns"] == header
    got = [n for c in cs.chunks[1:] for n in c.metadata["row_numbers"]]
    assert_evenly_spaced(got, len(rows), 20)
    for chunk in cs.chunks[1:]:
        assert rows_in(chunk.text, delimiter) == [rows[n - 1] for n in chunk.metadata["row_numbers"]]
        assert chunk.context_text == cs.chunks[0].text + chunk.text
        assert chunk.metadata["dialect"]["delimiter"] == delimiter
    # everything not sampled is a declared gap; nothing else is missing
    assert cs.gaps and {g.reason for g in cs.gaps} == {"sampled out"}
    covered = sum(c.chars for c in cs.chunks) + sum(g.chars for g in cs.gaps)
    assert covered == len(cs.document.text)
    assert get_strategy("data").covering is False


def test_a_sample_reaches_the_last_rows_of_the_table():
    """debian.csv (distro-info): 22 releases; 20 sampled with a fixed step of 1 stopped at Duke and
    left out the last two rows, Sid and Experimental; evenly spaced, the sample ends at the last."""
    path = FIXTURES / "debian.csv"
    rows = reference_rows(path, ",")[1:]
    cs = chunk_document(load_document(path), "data", {"rows": 20})
    check_offsets(cs)
    numbers = [n for c in cs.chunks[1:] for n in c.metadata["row_numbers"]]
    assert_evenly_spaced(numbers, len(rows), 20)
    sampled = [r for c in cs.chunks[1:] for r in rows_in(c.text, ",")]
    assert (sampled[0][1], sampled[-1][1]) == ("Buzz", "Experimental")
    assert len(cs.gaps) == 2 and {g.reason for g in cs.gaps} == {"sampled out"}


def test_data_keeps_a_quoted_field_with_newlines_in_one_row():
    path = SAMPLES / "orders.csv"
    ref = reference_rows(path, ",")[1:]
    cs = chunk_document(load_document(path), "data", {"rows": len(ref)})
    assert cs.gaps == []  # every row sampled: the whole table, adjacent rows in one chunk
    assert [n for c in cs.chunks[1:] for n in c.metadata["row_numbers"]] == list(range(1, len(ref) + 1))
    assert rows_in(cs.chunks[1].text, ",") == ref
    multiline = [r for r in ref if any("\n" in f for f in r)]
    assert multiline


def test_sniffed_semicolon_dialect_with_crlf_and_quoted_newlines():
    path = FIXTURES / "quoted_newlines.csv"
    ref = reference_rows(path, ";")
    cs = chunk_document(load_document(path), "data-rows", {"size": 1})
    check_offsets(cs)
    assert cs.gaps == []
    assert cs.chunks[0].metadata["dialect"]["delimiter"] == ";"
    assert rows_in(cs.chunks[0].text, ";") == ref[:2]  # header travels with the first row
    assert [rows_in(c.text, ";") for c in cs.chunks[1:]] == [[r] for r in ref[2:]]
    assert all(c.context_text.startswith("id;name;comment\r\n") for c in cs.chunks[1:])


def test_data_rows_respects_size_and_max_chars():
    path = SAMPLES / "orders.csv"
    ref = reference_rows(path, ",")
    cs = chunk_document(load_document(path), "data-rows", {"size": 25, "max_chars": 1500})
    check_offsets(cs)
    assert cs.gaps == [] and cs.chunks[0].start == 0 and cs.chunks[-1].end == len(cs.document.text)
    assert [r for c in cs.chunks for r in rows_in(c.text, ",")] == ref
    for c in cs.chunks:
        assert len(c.metadata["row_numbers"]) <= 25
        assert c.chars <= 1500 or c.metadata.get("oversized")


def test_unterminated_quote_is_one_row_not_a_crash():
    doc = Document.from_text('a,b\n1,"open\n2,3\n', path="bad.csv")
    cs = chunk_document(doc, "data-rows")
    check_offsets(cs)
    assert cs.gaps == []


def test_stray_carriage_return_is_an_error_naming_the_line():
    doc = Document.from_text("a,b\n1,2\n3,x\ry\n", path="cr.csv")
    with pytest.raises(ChunkingError, match=r"^cr.csv: line 3: "):
        chunk_document(doc, "data-rows")


field = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"), max_size=12)


@settings(max_examples=40, deadline=None)
@given(
    table=st.lists(st.lists(field, min_size=3, max_size=3), min_size=1, max_size=30),
    size=st.integers(1, 8),
    max_chars=st.integers(0, 120),
    sample=st.integers(1, 12),
)
def test_generated_tables_round_trip(table, size, max_chars, sample):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC).writerows([["h1", "h2", "h3"], *table])
    doc = Document.from_text(out.getvalue(), path="gen.csv")
    expected = rows_in(out.getvalue(), ",")
    rows_cs = chunk_document(doc, "data-rows", {"size": size, "max_chars": max_chars})
    check_offsets(rows_cs)
    assert rows_cs.gaps == []
    assert [r for c in rows_cs.chunks for r in rows_in(c.text, ",")] == expected
    for c in rows_cs.chunks:
        assert len(c.metadata["row_numbers"]) <= size
        assert not max_chars or c.chars <= max_chars or len(c.metadata["row_numbers"]) == 1
    data_cs = chunk_document(doc, "data", {"rows": sample})
    check_offsets(data_cs)
    numbers = [n for c in data_cs.chunks[1:] for n in c.metadata["row_numbers"]]
    total = len(expected) - 1
    assert_evenly_spaced(numbers, total, sample)
    for c in data_cs.chunks[1:]:
        assert rows_in(c.text, ",") == [expected[n] for n in c.metadata["row_numbers"]]


@pytest.mark.parametrize("strategy", ["data", "data-rows"])
def test_a_markdown_file_read_as_a_table_is_warned_about(strategy):
    cs = chunk_document(load_document(SAMPLES / "guide.md"), strategy)
    assert any(
        w.startswith(f"{cs.document.path}: does not look like CSV/TSV: no delimiter found") for w in cs.warnings
    ), cs.warnings


@pytest.mark.parametrize("strategy", ["data", "data-rows"])
@pytest.mark.parametrize("name", ["orders.csv", "orders.tsv"])
def test_real_tables_get_no_shape_warning(strategy, name):
    cs = chunk_document(load_document(SAMPLES / name), strategy)
    assert not [w for w in cs.warnings if "CSV/TSV" in w]


def test_rows_with_more_fields_than_the_header_are_warned_about():
    text = "date,amount\n" + "2025-01-02,12.50\n" * 5 + "Paid on 2025-01-03, late, by card\n" * 5
    cs = chunk_document(Document.from_text(text, path="ragged.csv"), "data-rows")
    assert "ragged.csv: does not look like CSV/TSV: 5 of 10 rows have more than the header's 2 fields" in cs.warnings


@pytest.mark.parametrize("strategy", ["data", "data-rows"])
def test_rows_that_leave_out_trailing_empty_fields_are_still_csv(strategy):
    """debian.csv: 15 of 22 releases have no eol-lts or eol-elts date yet, and their rows stop
    before those columns, as CSV writers do: that is a table, not prose read as one."""
    cs = chunk_document(load_document(FIXTURES / "debian.csv"), strategy)
    assert cs.warnings == []


def test_a_shape_warning_in_a_folder_run_names_its_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("tables").mkdir()
    Path("tables/prices.csv").write_text("item,price\n" + "tea,2\n" * 6)
    Path("tables/notes.csv").write_text("Notes from the meeting\n" + "We agreed to meet again\n" * 6)
    result = CliRunner().invoke(cli, ["chunk", "tables", "-s", "data-rows", "-o", "out"])
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if "CSV/TSV" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("chunktui: warning: ")
    assert "notes.csv: does not look like CSV/TSV: no delimiter found" in warnings[0], warnings


def test_a_csv_error_names_the_path_as_given():
    doc = Document.from_text("a,b\n1,2\n3,x\ry\n", path="exports/cr.csv")
    with pytest.raises(ChunkingError, match=r"^exports/cr.csv: line 3: "):
        chunk_document(doc, "data")


def test_notes_group_the_digits_of_row_counts():
    """numpy_umath_cos.csv: the first 1,031 lines of numpy's
    _core/tests/data/umath-validation-set-cos.csv. A count of 1030 rows read as a year."""
    doc = load_document(FIXTURES / "numpy_umath_cos.csv")
    assert chunk_document(doc, "data").notes[0].startswith("data: header + 20 of 1,030 rows")
    assert chunk_document(doc, "data-rows").notes[0].startswith("data-rows: 1,030 rows in ")
