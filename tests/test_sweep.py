"""A sweep runs the grid in worker processes and reports what the engine reports cell by cell."""

import pytest

from chunktui.engine import Document, ParamError, chunk_document
from chunktui.engine.analysis.quality import assess
from chunktui.engine.analysis import sweep as sweep_module
from chunktui.engine.analysis.sweep import evaluate, parse_range, plan_grid, sweep

TEXT = "".join(
    f"## Part {i}\n\nParagraph {i} talks about chunking, boundaries and budgets at some length.\n"
    f"```\ncode line {i}\nmore code {i}\n```\n\n"
    for i in range(80)
)


@pytest.fixture(scope="module")
def doc():
    return Document.from_text(TEXT, path="parts.md")


def test_parse_range_forms():
    assert parse_range("200:1000:200") == [200, 400, 600, 800, 1000]
    assert parse_range("0,50,100") == [0, 50, 100]
    assert parse_range("7") == [7]
    for bad in ("a:b", "10:5:1", "1:10:0", "", "1:2:3:4"):
        with pytest.raises(ParamError):
            parse_range(bad)


def test_parallel_cells_equal_the_engine_run_one_by_one(doc, monkeypatch):
    pools = []

    class SpyPool(sweep_module.ProcessPoolExecutor):
        def __init__(self, *a, **kw):
            pools.append(kw["max_workers"])
            super().__init__(*a, **kw)

    monkeypatch.setattr(sweep_module, "ProcessPoolExecutor", SpyPool)
    monkeypatch.setattr(sweep_module, "SMALL_WORK", 0)  # this short document would otherwise run in-process
    result = sweep(doc, ["lines"], [5, 8, 12], [0, 1, 3], budget=150, min_tokens=8, workers=2)
    assert pools == [2]
    assert [(c.size, c.overlap) for c in result.cells] == [(s, o) for s in (5, 8, 12) for o in (0, 1, 3)]
    for cell in result.cells:
        cs = chunk_document(doc, "lines", {"size": cell.size, "overlap": cell.overlap})
        stats = cs.stats(150)
        q = assess(cs, 150, 8)
        assert cell.count == stats.count == len(cs.chunks)
        assert cell.median_tokens == stats.tokens_median
        assert cell.p95_tokens == pytest.approx(stats.tokens_p95, abs=0.005)
        assert cell.over_budget_pct == pytest.approx(100 * stats.over_budget / stats.count, abs=0.005)
        assert cell.flags == q.score.counts
        assert cell.score == q.score.score
    assert result.cells == sweep(doc, ["lines"], [5, 8, 12], [0, 1, 3], budget=150, min_tokens=8, workers=1).cells


def test_invalid_cells_are_skipped_with_a_reason(doc):
    result = sweep(doc, ["lines"], [2, 4], [0, 2, 3], workers=1)
    assert [(c.size, c.overlap) for c in result.cells] == [(2, 0), (4, 0), (4, 2), (4, 3)]
    assert [(s.size, s.overlap) for s in result.skipped] == [(2, 2), (2, 3)]
    assert all("overlap" in s.reason for s in result.skipped)


def test_grid_maps_size_and_overlap_to_the_strategy_params():
    cells, skipped = plan_grid(["lines"], [10], [1], base_params={"size": 99})
    assert cells == [("lines", 10, 1, {"chunk_lines": 10, "overlap_lines": 1})] and skipped == []


def test_cells_serialise_to_the_documented_json(doc):
    cell = evaluate(doc, "lines", 10, 2, {"size": 10, "overlap": 2})
    d = cell.to_dict()
    assert list(d) == [
        "strategy",
        "size",
        "overlap",
        "count",
        "median_tokens",
        "p95_tokens",
        "over_budget_pct",
        "flags",
        "score",
    ]
    assert d["strategy"] == "lines" and d["count"] > 0 and isinstance(d["flags"], dict)


def test_progress_and_cancel(doc):
    seen = []
    sweep(doc, ["lines"], [5, 10], [0, 1], workers=2, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (4, 4) and len(seen) == 4
    from chunktui.engine import Cancelled

    with pytest.raises(Cancelled):
        sweep(doc, ["lines"], [5, 10], [0, 1], workers=2, is_cancelled=lambda: True)


def test_cancel_returns_without_waiting_for_the_cells_running_in_workers(doc, monkeypatch):
    """Escape in the app cancels the sweep; it must not wait for every running cell to finish
    (a cell on a big file runs for seconds) before handing control back."""
    from concurrent.futures import Future

    from chunktui.engine import Cancelled

    waits = []

    class StuckPool:  # cells that never finish, like long ones still running
        def __init__(self, *a, **kw):
            pass

        def submit(self, fn, *args):
            return Future()

        def shutdown(self, wait=True, cancel_futures=False):
            waits.append(wait)

    monkeypatch.setattr(sweep_module, "ProcessPoolExecutor", StuckPool)
    monkeypatch.setattr(sweep_module, "SMALL_WORK", 0)
    calls = iter([False, False, True])
    with pytest.raises(Cancelled):
        sweep(doc, ["lines"], [5, 10], [0, 1], workers=2, is_cancelled=lambda: next(calls, True))
    assert waits == [False]


def test_auto_is_swept_as_the_strategy_it_picks():
    from chunktui.engine.strategies.auto import pick_strategy

    doc = Document.from_text(TEXT, path="parts.md")
    picked = pick_strategy(doc)[0]
    result = sweep(doc, ["auto", picked], [1500, 2500], [None], workers=1)
    assert {c.strategy for c in result.cells} == {picked}
    assert [c.size for c in result.cells] == [1500, 2500]  # one row per size: auto and its pick are the same
    assert any(note.startswith(f"auto: sweeping {picked}") for note in result.notes)
