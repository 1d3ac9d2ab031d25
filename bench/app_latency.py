"""Time the app from a parameter change to updated stats, and the longest event-loop stall meanwhile.

Under `run_test(size=(160, 48))` the app opens a 1 MB and a 10 MB markdown file made of
real markdown (bench.corpus), presses `]` (one step up on the size parameter) N times and
times each press until the stats panel is drawn with the new chunking (the compositor
renders its lines, not just receives them). A task in
the app's own event loop ticks every 10 ms; the longest gap between two ticks while
re-chunking is the longest the loop was blocked (what a user feels as a frozen screen).

    .venv/bin/python -m bench.app_latency [--sizes 1m 10m] [--steps 6] [--debounce 0.001] [--strategy markdown]

The debounce is 1 ms by default so the numbers are the app's own work; the app adds its
debounce (0.15 s) on top when a user types. Each press waits for the app's background work
of the previous one (the quality assessment, a thread) to finish, so every press starts from
a quiet app; a user stepping faster shares the CPU with that thread. Results go to
bench/app_results.json.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from textual import events

from bench.corpus import SIZES, corpus
from bench.system import store_app_results
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.widgets.stats_panel import StatsPanel
from chunktui.ui.compat import send_to_driver

TICK = 0.010


class StallMeter:
    """Ticks every 10 ms in the app's loop; `worst` is the longest gap since the last `reset`."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._last = time.perf_counter()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def reset(self) -> None:
        self.worst, self._last = 0.0, time.perf_counter()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            self.worst = max(self.worst, now - self._last - TICK)
            self._last = now

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(path: Path, steps: int, debounce: float, strategy: str | None) -> dict:
    opened = time.perf_counter()
    app = ChunktuiApp(path=path, strategy=strategy, debounce=debounce)
    shown: list[float] = []
    async with app.run_test(size=(160, 48)) as pilot:
        stats = app.query_one("#stats", StatsPanel)
        show, render_lines = stats.show, stats.render_lines
        updated = [False]

        def timed_show(value):  # the panel receives new stats...
            show(value)
            updated[0] = True

        def timed_render_lines(crop):  # ...and the compositor draws them: that is when a user sees them
            if updated[0]:
                updated[0] = False
                shown.append(time.perf_counter())
            return render_lines(crop)

        stats.show, stats.render_lines = timed_show, timed_render_lines
        await app.wait_idle()
        await pilot.pause()
        first = time.perf_counter() - opened
        meter = StallMeter()
        meter.start()
        latencies, idle_latencies, stalls, counts = [], [], [], []
        size_param = app.controls.strategy.size_param
        for _ in range(steps):
            await app.workers.wait_for_complete()  # the last result's quality assessment: each press starts quiet
            await pilot.pause()
            before = app.chunkset
            shown.clear()
            meter.reset()
            pressed = time.perf_counter()
            # the key goes in as the terminal driver would deliver it; pilot.press would also wait for
            # the process to look idle, and that polling shares the loop being measured
            key = events.Key("right_square_bracket", "]")
            key.set_sender(app)
            send_to_driver(app, key)
            while app.chunkset is before or not shown:  # the press, the debounce, the worker, the redraw
                await asyncio.sleep(0.001)
            await app.wait_idle()
            await pilot.pause()
            idle = time.perf_counter()
            latencies.append(shown[0] - pressed)
            idle_latencies.append(idle - pressed)
            stalls.append(meter.worst)
            counts.append(len(app.chunkset.chunks))
        meter.stop()
        doc = app.doc
        result = {
            "file": path.name,
            "chars": len(doc.text),
            "lines": doc.line_count,
            "strategy": app.chunkset.strategy,
            "size_param": size_param,
            "size_values": app.chunkset.params.get(size_param),
            "chunks": counts,
            "open_to_first_chunks_s": first,
            "debounce_s": debounce,
            "latency_median_ms": 1000 * statistics.median(latencies),
            "latency_p95_ms": 1000 * percentile(latencies, 0.95),
            "to_idle_median_ms": 1000 * statistics.median(idle_latencies),
            "max_stall_ms": 1000 * max(stalls),
            "stall_median_ms": 1000 * statistics.median(stalls),
            "latencies_ms": [round(1000 * v, 1) for v in latencies],
            "stalls_ms": [round(1000 * v, 1) for v in stalls],
        }
    return result


TARGETS_MS = {"1m": 100, "10m": 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1m", "10m"], choices=list(SIZES))
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--debounce", type=float, default=0.001, help="seconds (Textual timers need > 0)")
    parser.add_argument("--strategy", default="markdown", help="'auto' for the app's own pick")
    parser.add_argument("--label", default="current", help="key the results are stored under")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"corpus-{size}.md"
            path.write_text(corpus("markdown", SIZES[size]), encoding="utf-8")
            results[size] = asyncio.run(measure(path, args.steps, args.debounce, args.strategy))
    print(
        f"{'file':8} {'chars':>11} {'strategy':>9} {'chunks':>7} {'median':>9} {'p95':>9} "
        f"{'to idle':>9} {'stall max':>10} {'target':>8}"
    )
    for size, r in results.items():
        target = TARGETS_MS.get(size)
        verdict = (
            ""
            if target is None
            else ("meets" if r["latency_median_ms"] <= target and r["max_stall_ms"] <= 50 else "MISSES")
        )
        print(
            f"{size:8} {r['chars']:>11,} {r['strategy']:>9} {r['chunks'][-1]:>7,} "
            f"{r['latency_median_ms']:>7.0f}ms {r['latency_p95_ms']:>7.0f}ms {r['to_idle_median_ms']:>7.0f}ms "
            f"{r['max_stall_ms']:>8.0f}ms {verdict:>8}"
        )
    store_app_results("latency", args.label, results)


if __name__ == "__main__":
    main()
