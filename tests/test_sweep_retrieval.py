"""`sweep --queries`: recall and IoU columns, equal to `eval` cell by cell, and ranking by them."""

import csv
import io
import json
import multiprocessing

from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis import bm25
from chunktui.engine.analysis import sweep as sweep_module
from chunktui.engine.analysis.retrieval import auto_queries, evaluate_retrieval, load_queries
from chunktui.engine.analysis.sweep import sweep

GUIDE, GUIDE_Q = "sample_docs/guide.md", "sample_docs/queries/guide.jsonl"


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_workers_forked_from_a_process_that_kept_the_documents_tokens_rank_alike(monkeypatch):
    """A process that evaluated a document twice keeps its tokens (`chunktui eval` run twice in one
    process, as the CLI tests do). Forked workers inherited them but numbered terms with a new
    tokenizer of their own, and ranked the guide's questions at random: recall 0.1667, not 0.9881."""
    doc = load_document(GUIDE)
    queries = load_queries(GUIDE_Q, doc.text)
    cs = chunk_document(doc, "recursive", {"size": 300, "overlap": 0})
    expected = evaluate_retrieval(cs, queries, budget=300).means()
    assert evaluate_retrieval(cs, queries, budget=300).means() == expected  # the second keeps the document's tokens
    monkeypatch.setattr(sweep_module, "SMALL_WORK", 0)
    monkeypatch.setattr(sweep_module, "_context", lambda: multiprocessing.get_context("fork"))
    pooled = sweep(doc, ["recursive"], [300], [0, 60, 100, 120], workers=2, queries=queries, retrieve_tokens=300)
    assert (pooled.cells[0].recall, pooled.cells[0].iou) == (
        round(expected["recall@budget"], 4),
        round(expected["iou@budget"], 4),
    )


def test_cells_hold_the_recall_and_iou_eval_measures_in_workers_and_in_process(monkeypatch):
    doc = load_document(GUIDE)
    queries = load_queries(GUIDE_Q, doc.text)
    monkeypatch.setattr(sweep_module, "SMALL_WORK", 0)  # the guide is short: make the pool run it
    grid = (["recursive", "markdown"], [300, 900], [0, 60])
    pooled = sweep(doc, *grid, workers=2, queries=queries, retrieve_tokens=300)
    alone = sweep(doc, *grid, workers=1, queries=queries, retrieve_tokens=300)
    assert pooled.cells == alone.cells and len(pooled.cells) == 8
    for cell in pooled.cells:
        means = evaluate_retrieval(chunk_document(doc, cell.strategy, cell.params()), queries, budget=300).means()
        assert (cell.recall, cell.iou) == (round(means["recall@budget"], 4), round(means["iou@budget"], 4))
    assert len({c.recall for c in pooled.cells}) > 1
    best = pooled.best("recall")
    assert best.recall == max(c.recall for c in pooled.cells) and pooled.best().score == max(
        c.score for c in pooled.cells
    )
    assert all(c.recall is None and c.iou is None for c in sweep(doc, *grid, workers=1).cells)


def test_cells_that_chunk_alike_are_evaluated_once(monkeypatch):
    """`lines` at 300 and 400 lines chunk the guide (under 300 lines) alike, at the token cap: one evaluation."""
    doc = load_document(GUIDE)
    queries = load_queries(GUIDE_Q, doc.text)
    calls = []

    def counting(cs, *args, **kwargs):
        calls.append(len(cs.chunks))
        return evaluate_retrieval(cs, *args, **kwargs)

    monkeypatch.setattr(sweep_module, "evaluate_retrieval", counting)
    result = sweep(doc, ["lines"], [20, 300, 400], [0], workers=1, queries=queries)
    assert calls == [result.cells[0].count, result.cells[1].count] and result.cells[1].count == result.cells[2].count
    assert (result.cells[1].recall, result.cells[1].iou) == (result.cells[2].recall, result.cells[2].iou)


def test_a_sweep_with_questions_ranks_every_cell_over_the_documents_tokens(monkeypatch):
    """Its first cell made an FTS5 table, what a one-off evaluation pays, and its second tokenized
    the document all the same: the sweep tokenizes it first (1 MB: one FTS5 evaluation saved)."""
    doc = load_document(GUIDE)
    queries = load_queries(GUIDE_Q, doc.text)
    bm25.forget()
    tables = []
    monkeypatch.setattr(bm25, "Fts5Index", lambda chunks: tables.append(1) or FTS5_INDEX(chunks))
    cells = sweep(doc, ["recursive"], [300, 900], [0], workers=1, queries=queries).cells
    assert tables == [] and len(cells) == 2
    for cell in cells:
        means = evaluate_retrieval(chunk_document(doc, cell.strategy, cell.params()), queries, ks=(1,)).means()
        assert (cell.recall, cell.iou) == (round(means["recall@budget"], 4), round(means["iou@budget"], 4))


FTS5_INDEX = bm25.Fts5Index


def test_cli_ranks_by_recall_and_adds_the_columns_to_every_format():
    args = (
        "sweep",
        GUIDE,
        "-s",
        "recursive,markdown",
        "--size",
        "300,900,1500",
        "--overlap",
        "0",
        "--queries",
        GUIDE_Q,
        "--retrieve-tokens",
        "300",
    )
    code, out, _ = run(*args, "--format", "json")
    cells = json.loads(out)["cells"]
    assert code == 0 and all(list(c)[-3:] == ["score", "recall", "iou"] for c in cells)
    code, out, _ = run(*args, "--format", "json", "--rank-by", "recall")
    ranked = json.loads(out)["cells"]
    assert ranked == sorted(cells, key=lambda c: -c["recall"])
    code, out, _ = run(*args, "--format", "csv", "--rank-by", "iou")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [float(r["iou"]) for r in rows] == sorted((c["iou"] for c in cells), reverse=True)
    code, out, _ = run(*args, "--rank-by", "recall")
    lines = out.splitlines()
    assert lines[0].split()[7:10] == ["score", "recall", "iou"]
    assert lines[1].split()[8] == f"{ranked[0]['recall']:.3f}" and lines[1].split()[9] == "*"
    assert lines[-1].startswith("* best recall;") and "within 300 embedded tokens" in lines[-1]


def test_cli_sweeps_on_synthetic_questions_labelled_as_such():
    """`sweep --auto-queries N` was "No such option" while `eval` and the app take it."""
    args = (
        "sweep",
        GUIDE,
        "-s",
        "markdown",
        "--size",
        "400,800",
        "--overlap",
        "0",
        "--auto-queries",
        "12",
        "--workers",
        "1",
    )
    code, out, err = run(*args, "--format", "json")
    data = json.loads(out)
    assert code == 0 and (data["synthetic"], data["seed"]) == (True, 0)
    doc = load_document(GUIDE)
    alone = sweep(doc, ["markdown"], [400, 800], [0], workers=1, queries=auto_queries(doc.text, 12, 0))
    assert [(c["recall"], c["iou"]) for c in data["cells"]] == [(c.recall, c.iou) for c in alone.cells]
    assert err == (
        "chunktui: warning: --auto-queries: recall and iou are over 12 synthetic questions made from "
        "guide.md's own sentences (seed 0): a smoke test, not a benchmark\n"
    )
    code, out, _ = run(*args, "--seed", "3")
    assert code == 0 and "synthetic questions (--auto-queries, seed 3; a smoke test, not a benchmark)" in out
    code, out, err = run(*args, "--queries", GUIDE_Q)
    assert (code, out) == (2, "") and "give a queries file or --auto-queries N" in err


def test_rank_by_retrieval_needs_queries_and_bad_queries_stop_the_sweep(tmp_path):
    code, out, err = run("sweep", GUIDE, "-s", "lines", "--size", "20", "--rank-by", "recall")
    assert (code, out, err) == (2, "", "chunktui: error: --rank-by: recall needs --queries or --auto-queries\n")
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"question": "what", "references": [{"content": "Harbor"}]}\n')
    code, out, err = run("sweep", GUIDE, "-s", "lines", "--size", "20", "--queries", str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"chunktui: error: {bad}: query 1 ('what'): reference 1: content is ambiguous")
