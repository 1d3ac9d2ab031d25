"""What showing one many-chunk result costs the app's event loop, call by call, in CPU time.

A log is generated (`bench.app_big_log`) and opened under `log-records` with a size so small that
every record is a chunk (10 MB: 110,000 chunks); the size is then stepped once, and every event-loop
handler that shows the new result (stats, histogram, table, document view, detail pane, flags) is
timed. The figure is the CPU time of the event loop's thread inside each call (time.thread_time), so
it does not grow when other processes take the cores (the wall time does, and is printed beside it);
the longest stall of the 10 ms ticker is printed too, as the app's other benches measure it.

    .venv/bin/python -m bench.app_result_cost [--mb 10]

Results go to bench/app_results.json under "result_cost".
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.app_big_log import generate
from bench.system import store_app_results

CHILD = r"""
import asyncio, functools, json, sys, time
from bench.app_latency import StallMeter
from chunktui.ui.app import ChunktuiApp
from chunktui.ui import quality_actions
from chunktui.ui.widgets import chunk_detail, chunk_table, document_view, flag_histogram, histogram, stats_panel

calls = {}

def timed(cls, name):
    method = getattr(cls, name)

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            seen = calls.setdefault(f"{cls.__name__}.{name}", [0.0, 0.0])
            seen[0] = max(seen[0], time.thread_time() - cpu)
            seen[1] = max(seen[1], time.perf_counter() - wall)
    setattr(cls, name, wrapper)

for cls, names in ((ChunktuiApp, ("on_chunks_ready", "_show_views", "_show_selection")),
                   (quality_actions.QualityMixin, ("on_quality_ready",)),
                   (chunk_table.ChunkTable, ("show", "render_line")), (histogram.SizeHistogram, ("show",)),
                   (flag_histogram.FlaggedHistogram, ("mark_flagged",)),
                   (document_view.DocumentView, ("set_chunkset", "render_line")),
                   (stats_panel.StatsPanel, ("show",)), (chunk_detail.ChunkDetail, ("show",))):
    for name in names:
        timed(cls, name)

async def main(path):
    app = ChunktuiApp(path=path, strategy="log-records", params={"size": 1})
    async with app.run_test(size=(160, 48)) as pilot:
        await app.wait_idle()
        await app.workers.wait_for_complete()
        await pilot.pause()
        meter = StallMeter()
        meter.start()
        calls.clear()
        before = app.chunkset
        app.controls.field("size").set_value(2)
        while app.chunkset is before:
            await asyncio.sleep(0.01)
        await app.wait_idle()
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        meter.stop()
        print(json.dumps({"chunks": len(app.chunkset.chunks), "stall_s": meter.worst, "calls": calls}))

asyncio.run(main(sys.argv[1]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10.0)
    parser.add_argument("--label", default="current", help="key the results are stored under")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "service.log"
        generate(path, args.mb)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        if done.returncode:
            sys.exit(done.stderr[-3000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"{args.mb:g} MB log, log-records size 1 -> 2: {result['chunks']:,} chunks; longest stall "
        f"{1000 * result['stall_s']:.0f} ms"
    )
    for name, (cpu, wall) in sorted(result["calls"].items(), key=lambda item: -item[1][0]):
        print(f"  {name:36} cpu {1000 * cpu:7.1f} ms   wall {1000 * wall:7.1f} ms")
    store_app_results("result_cost", args.label, result)


if __name__ == "__main__":
    main()
