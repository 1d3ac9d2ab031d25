"""Retrieval evaluation speed: one configuration over 1 MB of real docs with 100 questions,
against the chunking of that document (target: evaluation at most 3x the chunking), and a
20-configuration sweep with those questions against 20 single evaluations.

    python -m bench.retrieval [--size 1m] [--strategy recursive] [--questions 100] [--repeat 3] [--sweep]

The evaluation time covers what `chunktui eval` adds to a chunking: the BM25 index, 100 searches
and every metric. The chunking is timed two ways: first (token index cleared, as `chunktui eval
FILE` chunks a file it has not seen, and as BENCHMARKS.md's chunking tables count it) and again (the
token index kept, as a sweep or the app re-chunks); the evaluation likewise: first (the document's
BM25 tokens and the memory of having seen it cleared: an FTS5 table, as `chunktui eval` pays), a
second time (the document's tokens made and kept, once per document) and again (kept, as a
sweep's next cell or the app's next re-chunk). The peer, on the same chunks and questions:
`Fts5Index` for every chunking (the engine's retriever before bm25.BM25Index, the same scores).
`--sweep` also times `sweep` over 20 configurations (sizes 200-2000 by 200, overlap 0 and 100) with
the questions, in-process (one worker, so CPU is compared with CPU; and in the default 2 worker
processes, the wall time a user waits), against 20x the single
configuration's re-chunk + evaluation, the same sweep without questions, and the sweep's 20 cells
evaluated one by one (what the questions would cost with no sharing between cells). The questions are
synthetic (`auto_queries`, seed 0): they are here for their cost, not their scores. Everything in
one process, taking turns; medians of CPU time (`time.process_time`), but for the sweep in 2 worker
processes, timed on the wall clock.
"""

from __future__ import annotations

import argparse
import statistics

from chunktui.engine import Document, chunk_document
from chunktui.engine.analysis import bm25
from chunktui.engine.analysis.bm25 import Fts5Index
from chunktui.engine.analysis.retrieval import TOKEN_BUDGET, auto_queries, embedded_tokens, evaluate_retrieval
from chunktui.engine.analysis import sweep as sweep_module
from chunktui.engine.analysis.sweep import plan_grid, sweep
from chunktui.engine.core import token_index

from .corpus import SIZES, corpus
from .timing import cpu_timed, timed

SWEEP_SIZES = list(range(200, 2001, 200))
SWEEP_OVERLAPS = [0, 100]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1m", choices=sorted(SIZES))
    ap.add_argument("--strategy", default="recursive")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sweep", action="store_true", help="also time a 20-configuration sweep with the questions")
    args = ap.parse_args()
    text = corpus("docs", SIZES[args.size])
    queries = auto_queries(text, args.questions)
    doc = Document.from_text(text, path="corpus.md")
    cs = chunk_document(doc, args.strategy)
    times: dict[str, list[float]] = {}

    def run(name, fn, clock=cpu_timed):
        seconds, out = clock(fn)
        times.setdefault(name, []).append(seconds)
        return out

    def first_chunking():
        token_index.clear_cache()
        return chunk_document(Document.from_text(text, path="corpus.md"), args.strategy)

    def evaluate():
        return evaluate_retrieval(cs, queries, tokens=embedded_tokens(cs.chunks))

    def first_evaluation():
        """A document not seen before: an FTS5 table (what `chunktui eval FILE` pays)."""
        forget()
        return evaluate()

    def forget():
        bm25.forget()

    def evaluate_fts5():
        return evaluate_retrieval(cs, queries, tokens=embedded_tokens(cs.chunks), index=Fts5Index(cs.chunks))

    def grid(with_queries: bool, workers: int = 1):
        return sweep(
            doc,
            [args.strategy],
            SWEEP_SIZES,
            SWEEP_OVERLAPS,
            workers=workers,
            queries=queries if with_queries else None,
        )

    def grid_fts5():
        """The one-worker sweep with every cell evaluated by the FTS5 peer (in this process)."""
        engine = sweep_module.evaluate_retrieval
        sweep_module.evaluate_retrieval = lambda cs, *a, **kw: engine(cs, *a, index=Fts5Index(cs.chunks), **kw)
        try:
            return grid(True)
        finally:
            sweep_module.evaluate_retrieval = engine

    def grid_evaluations():
        """The sweep's own cells evaluated one by one, as 20 `chunktui eval` runs would (re-chunk
        untimed): what the sweep's retrieval columns cost without any sharing."""
        total = 0.0
        for _, _, _, params in plan_grid([args.strategy], SWEEP_SIZES, SWEEP_OVERLAPS)[0]:
            cell = chunk_document(doc, args.strategy, params)
            total += cpu_timed(lambda: evaluate_retrieval(cell, queries, ks=(1,), budget=TOKEN_BUDGET))[0]
        return total

    for _ in range(args.repeat):
        run("first chunking", first_chunking)
        run("re-chunking", lambda: chunk_document(doc, args.strategy))
        run("first evaluation", first_evaluation)
        run("second evaluation", evaluate)  # the document tokenized, for the next chunkings
        report = run("evaluation", evaluate)
        peer = run("evaluation with FTS5", evaluate_fts5)
        assert [r.ranked for r in peer.results] == [r.ranked for r in report.results], "not FTS5's ranking"
        if args.sweep:
            forget()  # as a sweep of a new document pays it
            cells = run("sweep with questions", lambda: grid(True)).cells
            fts5_cells = run("sweep with questions, FTS5", grid_fts5).cells
            assert [c.recall for c in fts5_cells] == [c.recall for c in cells], "not FTS5's results"
            run("sweep without questions", lambda: grid(False))
            run("sweep with questions, 2 workers", lambda: grid(True, workers=2), clock=timed)
            times.setdefault("grid evaluations", []).append(grid_evaluations())
    t = {name: statistics.median(v) for name, v in times.items()}
    means = report.means()
    print(
        f"{args.strategy} on {len(text) / 1e6:.2f} MB docs, {len(cs.chunks):,} chunks, {len(queries)} synthetic "
        f"questions, median of {args.repeat}: first chunking {t['first chunking'] * 1000:.0f} ms, re-chunking "
        f"{t['re-chunking'] * 1000:.0f} ms, evaluation {t['evaluation'] * 1000:.0f} ms"
    )
    print(
        f"first evaluation (FTS5 table) {t['first evaluation'] * 1000:.0f} ms, second (document tokenized) "
        f"{t['second evaluation'] * 1000:.0f} ms; FTS5 peer "
        f"{t['evaluation with FTS5'] * 1000:.0f} ms (same rankings; FTS5 / evaluation "
        f"{t['evaluation with FTS5'] / t['evaluation']:.2f}x)"
    )
    print(
        f"ratio first evaluation/first chunking: {t['first evaluation'] / t['first chunking']:.2f}, "
        f"evaluation/re-chunking: {t['evaluation'] / t['re-chunking']:.2f} (target <= 3; FTS5 "
        f"{t['evaluation with FTS5'] / t['re-chunking']:.2f}); recall@5 {means['recall@5']:.3f}, "
        f"recall@1000 tokens {means['recall@budget']:.3f}"
    )
    if args.sweep:
        single = t["re-chunking"] + t["evaluation"]
        print(
            f"sweep of {len(cells)} configurations, one worker: with questions {t['sweep with questions']:.2f} s, "
            f"without {t['sweep without questions']:.2f} s; 20 x evaluation {20 * t['evaluation']:.2f} s, ratio "
            f"{t['sweep with questions'] / (20 * t['evaluation']):.2f} (the target's plain reading, <= 1); "
            f"20 x (re-chunking + evaluation) {20 * single:.2f} s; "
            f"ratio sweep/(20 x single) {t['sweep with questions'] / (20 * single):.2f} (target <= 1); with the "
            f"FTS5 peer {t['sweep with questions, FTS5']:.2f} s (ratio "
            f"{t['sweep with questions, FTS5'] / (20 * single):.2f})"
        )
        added = t["sweep with questions"] - t["sweep without questions"]
        print(
            f"what the questions add to the sweep {added:.2f} s, against its {len(cells)} cells evaluated one by one "
            f"{t['grid evaluations']:.2f} s (ratio {added / t['grid evaluations']:.2f}); the sweep with questions in "
            f"2 worker processes (the default) {t['sweep with questions, 2 workers']:.2f} s wall "
            f"(ratio {t['sweep with questions, 2 workers'] / (20 * single):.2f})"
        )


if __name__ == "__main__":
    main()
