"""Time the app's live recall: from the new chunks on screen to recall and IoU drawn under them.

Under `run_test(size=(160, 48))` the app opens the 1 MB markdown file of bench/app_latency.py
(real markdown, bench.corpus) with 100 synthetic questions (`--auto-queries 100`: the corpus has
no hand-written ones), presses `]` N times, and for each press notes when the compositor draws the
stats panel with the new chunking and when it draws the panel's recall line for that chunking
(the query pane's retrieval worker: an FTS5 index of the chunks' embedded texts, the 100 questions,
the metrics at k and at the 1,000-token budget). Target (issue 13): the recall within 300 ms of the new chunks.

The peer, in the same process and on the same chunking: `evaluate_retrieval` alone, called
directly (index, 100 searches, metrics at k and the budget), so the ratio says what the app adds to the engine's
own work (the thread hand-off, the marks, the redraw) and the figure what a user waits.
`--with-fts5` then runs the whole measure again in the same process with the app's retriever
replaced by an FTS5 table for every chunking (bm25.Fts5Index, the same scores),
stored under the label + "-fts5": the before and after at the same load.

    .venv/bin/python -m bench.app_query_latency [--steps 6] [--questions 100] [--label current] [--with-fts5]

Results go to bench/app_results.json under "query_latency".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from textual import events

from bench.app_latency import percentile
from bench.corpus import SIZES, corpus
from bench.system import store_app_results
from chunktui.engine.analysis.bm25 import Fts5Index
from chunktui.engine.analysis.retrieval import TOKEN_BUDGET, evaluate_retrieval
from chunktui.ui import query_pane
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.compat import send_to_driver
from chunktui.ui.widgets.stats_panel import StatsPanel

TARGET_MS = 300


def engine_alone(app: ChunktuiApp, repeats: int = 3) -> float:
    """Seconds `evaluate_retrieval` takes on the chunking shown, as the app calls it (best of `repeats`)."""
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        evaluate_retrieval(
            app.chunkset,
            app.queries,
            ks=(app.query_k,),
            budget=TOKEN_BUDGET,
            index=query_pane.bm25_index(app.chunkset.chunks, app.chunkset.document.text),
        )
        best = min(best, time.perf_counter() - began)
    return best


async def measure(path: Path, steps: int, questions: int) -> dict:
    app = ChunktuiApp(path=path, strategy="markdown", debounce=0.001, auto_queries=questions)
    drawn: dict[str, list[float]] = {"chunks": [], "recall": []}
    async with app.run_test(size=(160, 48)) as pilot:
        stats = app.query_one("#stats", StatsPanel)
        show, show_retrieval, render_lines = stats.show, stats.show_retrieval, stats.render_lines
        pending: set[str] = set()
        recall_drawn = asyncio.Event()  # waited on, not polled: a poll every 1 ms takes the GIL from the worker

        def timed_show(value):  # new chunks: their stats...
            show(value)
            pending.add("chunks")

        def timed_show_retrieval(line):  # ...and, later, their recall (not the "…" drawn meanwhile)
            show_retrieval(line)
            if line is not None and not line.plain.endswith("…"):
                pending.add("recall")

        def timed_render_lines(crop):  # the compositor draws them: that is when a user sees them
            now = time.perf_counter()
            for what in list(pending):
                drawn[what].append(now)
            if "recall" in pending:
                recall_drawn.set()
            pending.clear()
            return render_lines(crop)

        stats.show, stats.show_retrieval, stats.render_lines = timed_show, timed_show_retrieval, timed_render_lines
        while app.query_report is None:  # the questions are made and the first chunking evaluated
            await asyncio.sleep(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause()
        latencies, engine, counts = [], [], []
        for _ in range(steps):
            await app.workers.wait_for_complete()
            await pilot.pause()
            before = app.chunkset
            drawn["chunks"].clear()
            drawn["recall"].clear()
            recall_drawn.clear()
            key = events.Key("right_square_bracket", "]")  # as the terminal driver delivers it (app_latency.py)
            key.set_sender(app)
            send_to_driver(app, key)
            while app.chunkset is before or not drawn["chunks"] or not drawn["recall"] or app.query_report is None:
                await recall_drawn.wait()
                recall_drawn.clear()
            latencies.append(drawn["recall"][0] - drawn["chunks"][0])
            await app.workers.wait_for_complete()
            engine.append(engine_alone(app))
            counts.append(len(app.chunkset.chunks))
        doc = app.doc
        result = {
            "file": path.name,
            "chars": len(doc.text),
            "strategy": app.chunkset.strategy,
            "questions": len(app.queries),
            "k": app.query_k,
            "chunks": counts,
            "recall_after_chunks_median_ms": 1000 * statistics.median(latencies),
            "recall_after_chunks_p95_ms": 1000 * percentile(latencies, 0.95),
            "engine_alone_median_ms": 1000 * statistics.median(engine),
            "latencies_ms": [round(1000 * v, 1) for v in latencies],
            "engine_alone_ms": [round(1000 * v, 1) for v in engine],
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--label", default="current", help="key the results are stored under")
    parser.add_argument("--with-fts5", action="store_true", help="then measure again with the FTS5 peer")
    args = parser.parse_args()
    runs = [(args.label, query_pane.bm25_index)] + ([(args.label + "-fts5", _fts5)] if args.with_fts5 else [])
    for label, index in runs:
        query_pane.bm25_index = index
        report(label, args)


def _fts5(chunks, text=None):
    """The FTS5 peer with the engine index's signature (it has no use for the document)."""
    return Fts5Index(chunks)


def report(label: str, args) -> None:
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus-1m.md"
        path.write_text(corpus("markdown", SIZES["1m"]), encoding="utf-8")
        r = asyncio.run(measure(path, args.steps, args.questions))
    ratio = r["recall_after_chunks_median_ms"] / r["engine_alone_median_ms"]
    verdict = "meets" if r["recall_after_chunks_median_ms"] <= TARGET_MS else "MISSES"
    print(
        f"{label}: {r['chars']:,} chars, {r['strategy']}, {r['chunks'][-1]:,} chunks, {r['questions']} questions, k={r['k']}"
    )
    print(
        f"new chunks -> recall drawn: median {r['recall_after_chunks_median_ms']:.0f} ms, "
        f"p95 {r['recall_after_chunks_p95_ms']:.0f} ms ({verdict} {TARGET_MS} ms); "
        f"evaluate_retrieval alone {r['engine_alone_median_ms']:.0f} ms (app / engine {ratio:.2f}x)"
    )
    r["load_at_start"] = load  # the machine entry is shared with the other app benches
    store_app_results("query_latency", label, r)


if __name__ == "__main__":
    main()
