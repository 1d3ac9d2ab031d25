"""`chunktui eval`: the metrics table, per-query JSON a reader can recompute, and bad input."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis.retrieval import embedded_tokens, merge, reciprocal_rank, span_metrics, within_budget
from chunktui.formats.profiles import save_profile

GUIDE = "sample_docs/guide.md"
GUIDE_Q = "sample_docs/queries/guide.jsonl"
ESSAY, ESSAY_Q = "sample_docs/essay.txt", "sample_docs/queries/essay.csv"


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_table_has_every_metric_at_every_k_and_the_budget():
    code, out, err = run("eval", GUIDE, "--queries", GUIDE_Q, "-s", "recursive", "--size", "400", "--overlap", "0")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("guide.md: recursive (size=400, overlap=0") and "12 questions" in lines[0]
    assert "synthetic" not in out
    assert lines[2].split() == ["k=1", "k=3", "k=5", "k=10", "1,000", "tok"]
    for row, name in zip(lines[3:7], ("recall", "precision", "iou", "hit")):
        values = row.split()
        assert values[0] == name and len(values) == 6 and all(0 <= float(v) <= 1 for v in values[1:])
    assert lines[7].startswith("  MRR@10 ")


def test_json_lets_a_reader_recompute_every_number():
    code, out, _ = run(
        "eval",
        ESSAY,
        "--queries",
        ESSAY_Q,
        "-s",
        "prose",
        "--max-tokens",
        "120",
        "--min-tokens",
        "40",
        "--json",
        "-k",
        "1,2",
        "-k",
        "4",
        "--retrieve-tokens",
        "120",
    )
    assert code == 0
    data = json.loads(out)
    assert data["ks"] == [1, 2, 4] and data["retrieve_tokens"] == 120 and data["synthetic"] is False
    doc = load_document(ESSAY)
    cs = chunk_document(doc, data["strategy"], data["params"], tokenizer=data["tokenizer"])
    tokens = dict(zip((c.id for c in cs.chunks), embedded_tokens(cs.chunks)))
    assert len(data["queries"]) == 11
    sums = dict.fromkeys(data["means"], 0.0)
    for q in data["queries"]:
        refs = [(r["start_index"], r["end_index"]) for r in q["references"]]
        assert all(doc.text[s:e] == r["content"] for (s, e), r in zip(refs, q["references"]))
        got = q["retrieved"]
        spans = [(r["start"], r["end"]) for r in got]
        assert [r["score"] for r in got] == sorted((r["score"] for r in got), reverse=True)
        assert all(tokens[r["id"]] == r["embedded_tokens"] for r in got)
        cut = within_budget([r["embedded_tokens"] for r in got], 120)
        for suffix, n in (("@1", 1), ("@2", 2), ("@4", 4), ("@budget", cut)):
            for name, value in span_metrics(spans[:n], refs).items():
                assert q["metrics"][name + suffix] == value
        assert q["metrics"]["mrr"] == reciprocal_rank(spans[:4], refs)
        for name in sums:
            sums[name] += q["metrics"][name]
    assert data["means"] == pytest.approx({k: v / 11 for k, v in sums.items()})
    assert merge(spans) == sorted(merge(spans))


def test_profile_and_flags_choose_the_configuration(tmp_path):
    profile = save_profile(tmp_path / "p.yaml", "lines", {"size": 6, "overlap": 0})
    code, out, _ = run("eval", GUIDE, "--queries", GUIDE_Q, "--profile", str(profile), "--json")
    assert code == 0 and (json.loads(out)["strategy"], json.loads(out)["params"]["chunk_lines"]) == ("lines", 6)
    code, out, _ = run("eval", GUIDE, "--queries", GUIDE_Q, "--profile", str(profile), "--size", "9", "--json")
    assert code == 0 and json.loads(out)["params"]["chunk_lines"] == 9
    code, out, err = run("eval", GUIDE, "--queries", GUIDE_Q, "--profile", str(profile), "-s", "recursive", "--json")
    assert code == 0 and json.loads(out)["params"]["size"] == 1000  # recursive's default, not the profile's 6
    assert err == f"chunktui: warning: {profile}: its params are for lines, not recursive; only its tokenizer is used\n"


def test_auto_queries_are_labelled_synthetic_everywhere():
    code, out, _ = run("eval", GUIDE, "--auto-queries", "7", "--seed", "2", "-s", "markdown")
    assert code == 0 and "7 synthetic questions (--auto-queries, seed 2; a smoke test, not a benchmark)" in out
    code, out, _ = run("eval", GUIDE, "--auto-queries", "7", "--seed", "2", "-s", "markdown", "--json")
    data = json.loads(out)
    assert data["synthetic"] is True and all(q["synthetic"] for q in data["queries"]) and len(data["queries"]) == 7
    assert out == run("eval", GUIDE, "--auto-queries", "7", "--seed", "2", "-s", "markdown", "--json")[1]


def test_smaller_chunks_retrieve_within_the_budget_where_whole_sections_cannot():
    """The token budget keeps chunk size from buying recall: 1,000-token budget, the guide in
    two 200-line chunks retrieves nothing; recursive 400-character chunks retrieve most."""
    big = json.loads(
        run("eval", GUIDE, "--queries", GUIDE_Q, "-s", "lines", "--size", "200", "--overlap", "0", "--json")[1]
    )["means"]
    small = json.loads(run("eval", GUIDE, "--queries", GUIDE_Q, "-s", "recursive", "--size", "400", "--json")[1])[
        "means"
    ]
    assert big["recall@10"] == 1.0 and big["recall@budget"] < small["recall@budget"]
    assert small["iou@3"] > big["iou@3"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--queries", "nope.jsonl"], "nope.jsonl: no such file"),
        ([], "--queries: give a queries file or --auto-queries N (one of the two)"),
        (["--queries", GUIDE_Q, "--auto-queries", "3"], "--queries: give a queries file or --auto-queries N"),
        (
            ["--queries", ESSAY_Q],
            (
                "query 1 ('When was the Pharos of Alexandria compl…'): reference 1: "
                "content does not match the text at 580..729"
            ),
        ),
        (["--queries", GUIDE_Q, "-k", "0"], "-k: expected whole numbers of at least 1, got '0'"),
        (["--queries", GUIDE_Q, "-k", "²"], "-k: expected whole numbers of at least 1, got '²'"),  # crashed int()
        (["--queries", GUIDE_Q, "-k", "١"], "-k: expected whole numbers of at least 1, got '١'"),  # read as 1
        (
            ["--queries", GUIDE_Q, "-s", "lines", "--size", "3", "--overlap", "5"],
            "--overlap: must be smaller than size",
        ),
        (["--queries", GUIDE_Q, "-s", "nope"], "--strategy: unknown strategy 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    code, out, err = run("eval", GUIDE, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("chunktui: error: ") and message in err


def test_auto_queries_need_sentences(tmp_path):
    table = tmp_path / "table.txt"
    table.write_text("a,b\n1,2\n3,4\n")
    code, out, err = run("eval", str(table), "--auto-queries", "5", "-s", "lines")
    assert (code, out) == (2, "")
    assert err == "chunktui: error: --auto-queries: table.txt has no sentence of 8 to 60 words to ask about\n"
    few = tmp_path / "few.txt"
    few.write_text("One sentence here has more than eight words in it, surely.\n\nShort one.\n")
    code, out, err = run("eval", str(few), "--auto-queries", "5", "-s", "lines")
    assert code == 0 and "1 synthetic question (" in out
    assert err == "chunktui: warning: --auto-queries: few.txt has only 1 sentence of 8 to 60 words\n"


def test_malformed_queries_file_names_the_query(tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text(
        '{"question": "ok", "references": [{"content": "Harbor User Guide"}]}\n'
        '{"question": "where", "references": [{"content": "x", "start_index": 8000, "end_index": 9000}]}\n'
    )
    code, out, err = run("eval", GUIDE, "--queries", str(q))
    assert code == 2 and out == ""
    assert err == (
        f"chunktui: error: {q}: query 2 ('where'): reference 1: offsets 8000..9000 lie outside the file "
        f"(0..{len(load_document(GUIDE).text)} characters) or are empty\n"
    )
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert (
        run("eval", GUIDE, "--queries", str(empty))[2] == f"chunktui: error: {empty}: no queries in the file (empty)\n"
    )


def test_a_queries_fifo_is_refused_not_waited_on(tmp_path):
    """`--queries` read its file with read_text, past the check every other file goes through: a
    FIFO hung the run (found by review)."""
    import os

    fifo = tmp_path / "q.jsonl"
    os.mkfifo(fifo)
    code, out, err = run("eval", GUIDE, "--queries", str(fifo))
    assert code == 2 and err.startswith("chunktui: error: ") and err.count("\n") == 1


def test_the_app_reads_its_questions_before_the_screen_takes_over(monkeypatch, tmp_path):
    """`chunktui FILE --queries Q`: a bad queries file, or questions without one document to be
    about, is one error line and exit 2, and the app never starts; good ones reach the app."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "where", "references": [{"start_index": 8000, "end_index": 9000}]}\n')
    code, out, err = run(GUIDE, "--queries", str(bad))
    assert code == 2 and out == "" and started == []
    assert err.splitlines() == [
        f"chunktui: error: {bad}: query 1 ('where'): reference 1: offsets 8000..9000 "
        "lie outside the file (0..8396 characters) or are empty"
    ]
    code, _, err = run("sample_docs", "--auto-queries", "5")
    assert (
        code == 2
        and started == []
        and err.splitlines() == ["chunktui: error: --auto-queries: the questions are about one document; give its path"]
    )
    code, _, err = run(GUIDE, "--queries", GUIDE_Q, "--auto-queries", "5")
    assert code == 2 and started == [] and len(err.splitlines()) == 1
    assert run(GUIDE, "--queries", GUIDE_Q)[0] == 0
    assert run(GUIDE, "--auto-queries", "7")[0] == 0
    assert [(kw["queries"], kw["auto_queries"]) for kw in started] == [(Path(GUIDE_Q), None), (None, 7)]


PDF = "tests/fixtures/docs/libtasn1-8pages.pdf"


def test_eval_on_a_pdf_measures_against_offsets_into_its_extracted_text(tmp_path):
    """A PDF is evaluated on its extracted text (an export's source.md): references given by offsets
    or found by content index that text, not the file's bytes, and so do the retrieved spans."""
    doc = load_document(PDF)
    sentence = "The SIZE constraints are allowed, but no check is done on them."
    at = doc.text.index(sentence)
    queries = tmp_path / "q.jsonl"
    rows = [
        {
            "question": "are SIZE constraints checked",
            "references": [{"start_index": at, "end_index": at + len(sentence)}],
        },
        {
            "question": "which header file",
            "references": [{"content": "The header file of this library is libtasn1.h."}],
        },
    ]
    queries.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, out, err = run("eval", PDF, "--queries", str(queries), "-s", "markdown", "--json")
    assert code == 0, err
    data = json.loads(out)
    spans = {c.id: (c.start, c.end) for c in chunk_document(doc, "markdown", {}).chunks}
    assert data["chunks"] == len(spans) and data["synthetic"] is False
    assert [q["references"][0]["content"] for q in data["queries"]] == [sentence, rows[1]["references"][0]["content"]]
    for q in data["queries"]:
        for ref in q["references"]:
            assert doc.text[ref["start_index"] : ref["end_index"]] == ref["content"]
        assert all(spans[r["id"]] == (r["start"], r["end"]) for r in q["retrieved"])
        assert q["metrics"]["hit@10"] == 1.0
    code, out, err = run("eval", PDF, "--auto-queries", "4", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["synthetic"] is True and len(data["queries"]) == 4
    assert all(0 <= value <= 1 for value in data["means"].values())
    for q in data["queries"]:
        assert all(doc.text[r["start_index"] : r["end_index"]] == r["content"] for r in q["references"])
    code, out, err = run("eval", PDF, "--auto-queries", "4")
    assert code == 0 and out.startswith("libtasn1-8pages.pdf: prose") and "  recall " in out, err
