"""`log-records` on a generated big log, the engine alone in one thread: CPU and wall time of the run,
of `derive_all` and of the app's `prepare` (what the app's chunking worker does), first run and
re-chunks, and the longest gap of a thread that ticks every 10 ms meanwhile (the longest the
worker held the GIL, as the app's event loop would feel it, plus scheduling on a loaded machine).

    .venv/bin/python -m bench.log_records_engine [--mb 100] [--runs 3]

The token index is built first and not timed (the app builds it in the background). CPU time is
the worker thread's own (`time.thread_time`), which the machine's load inflates far less than wall
time. Run it from an exported older tree (PYTHONPATH) for a before figure on the same file.
Results go to bench/app_results.json under "log_records_engine".
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import threading
import time
from pathlib import Path

from bench.app_big_log import generate
from bench.system import store_app_results


class Ticker(threading.Thread):
    """Wakes every 10 ms; each wake records how late it came."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.gaps: list[tuple[float, float]] = []  # (lateness, when)
        self.running = True

    def run(self) -> None:
        last = time.perf_counter()
        while self.running:
            time.sleep(0.01)
            now = time.perf_counter()
            self.gaps.append((now - last - 0.01, now))
            last = now

    def worst(self, since: float, until: float) -> float:
        return max((g for g, at in self.gaps if since <= at <= until), default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--label", default="current", help="key the results are stored under")
    args = parser.parse_args()
    from chunktui.engine import chunk_document, load_document
    from chunktui.engine.core.tokens import TiktokenCounter
    from chunktui.ui.prepared import prepare

    gc.disable()  # as the app does while it works (ui/gc_pacing.py)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "service-big.log"
        generate(path, args.mb)
        doc = load_document(path)
        TiktokenCounter("cl100k_base").span_index(doc.text)  # kept for the runs, as the app keeps it
        ticker = Ticker()
        ticker.start()
        for _ in range(args.runs):
            load, marks = os.getloadavg()[0], [(time.perf_counter(), time.thread_time())]
            cs = chunk_document(doc, "log-records", {})
            marks.append((time.perf_counter(), time.thread_time()))
            cs.derive_all()
            marks.append((time.perf_counter(), time.thread_time()))
            prepared = prepare(cs, 512)
            marks.append((time.perf_counter(), time.thread_time()))
            freed = time.perf_counter()
            del cs, prepared
            freed = time.perf_counter() - freed
            run: dict[str, float] = {"load_1min": load}
            for name, (a, b) in zip(("chunk", "derive", "prepare"), zip(marks, marks[1:])):
                run[f"{name}_s"], run[f"{name}_cpu_s"], run[f"{name}_gap_s"] = (
                    b[0] - a[0],
                    b[1] - a[1],
                    ticker.worst(a[0], b[0]),
                )
            run["total_s"], run["total_cpu_s"] = marks[-1][0] - marks[0][0], marks[-1][1] - marks[0][1]
            run["free_s"] = freed
            runs.append(run)
            print(
                f"{'first' if len(runs) == 1 else 're-chunk':8} wall {run['total_s']:6.2f} s, CPU {run['total_cpu_s']:5.2f} s "
                f"(chunk {run['chunk_cpu_s']:.2f}, derive {run['derive_cpu_s']:.2f}, prepare {run['prepare_cpu_s']:.2f}); "
                f"longest tick gap {1000 * max(run[f'{n}_gap_s'] for n in ('chunk', 'derive', 'prepare')):.0f} ms; "
                f"freeing it {1000 * freed:.0f} ms; load {load:.1f}"
            )
        ticker.running = False
    store_app_results("log_records_engine", args.label, {"mb": args.mb, "lines": doc.line_count, "runs": runs})


if __name__ == "__main__":
    main()
