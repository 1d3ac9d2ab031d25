"""Key facts: whole inside a chunk, split across a boundary, or missing."""

import pytest

from chunktui.engine import Document, DocumentError, Span, build_chunkset
from chunktui.engine.analysis.facts import check_facts, load_phrases

TEXT = "The refund window is 30 days.\nRefunds need a receipt.\nShipping takes five\nbusiness days.\n"


def chunked(spans, gaps=()):
    doc = Document.from_text(TEXT, kind="prose")
    return build_chunkset(
        doc, [Span(a, b) for a, b in spans], strategy="lines", params={}, tokenizer="chars", declared_gaps=gaps
    )


def test_whole_split_and_missing():
    cut = TEXT.index("30 days") + 3  # between "30 " and "days"
    cs = chunked([(0, cut), (cut, len(TEXT))])
    facts = {f.phrase: f for f in check_facts(cs, ["refund window", "30 days", "fax number", "five business days"])}
    assert facts["refund window"].status == "whole" and facts["refund window"].chunk_ids == ("chunk-0001",)
    assert facts["30 days"].status == "split" and facts["30 days"].chunk_ids == ("chunk-0001", "chunk-0002")
    assert facts["fax number"].status == "missing" and facts["fax number"].occurrences == 0
    # wrapped across a line break and in another case: still found, whole in chunk 2
    assert facts["five business days"].status == "whole" and facts["five business days"].chunk_ids == ("chunk-0002",)


def test_whole_wins_when_any_occurrence_is_whole_and_overlap_holds_it():
    cut = TEXT.index("receipt") + 3
    cs = chunked([(0, cut), (cut - 20, len(TEXT))])  # chunk 2 overlaps chunk 1 and holds "receipt" whole
    (fact,) = check_facts(cs, ["receipt"])
    assert fact.status == "whole" and fact.chunk_ids == ("chunk-0002",)
    (refund,) = check_facts(cs, ["refund"])  # "refund" in line 1, "Refunds" in line 2: both whole
    assert refund.status == "whole" and refund.occurrences == 2


def test_text_only_in_a_gap_is_missing():
    start = TEXT.index("Shipping")
    cs = chunked([(0, start)])
    (fact,) = check_facts(cs, ["Shipping takes"])
    assert fact.status == "missing" and fact.occurrences == 1 and "no chunk covers" in fact.reason


def test_report_line_and_phrase_file(tmp_path):
    p = tmp_path / "facts.txt"
    p.write_text("# key facts\nrefund window\n\n  30 days  \n", encoding="utf-8")
    assert load_phrases(p) == ["refund window", "30 days"]
    cs = chunked([(0, len(TEXT))])
    assert check_facts(cs, ["refund window"])[0].line() == "whole    refund window  [chunk-0001]"
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(DocumentError):
        load_phrases(empty)
    with pytest.raises(DocumentError):
        load_phrases(tmp_path / "nope.txt")
