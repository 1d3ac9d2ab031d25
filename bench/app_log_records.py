"""Switch a big log to `log-records` in the app, then press `[` and PageDown: how long each re-chunk
takes and the longest event-loop stall meanwhile (issue 15's 100 MB log: 85 s, then 9.5 s frozen).

The log is `bench.app_big_log`'s generated service log; the app runs in a child process with the
stall meter of `bench.app_latency` (a task ticking every 10 ms in the app's loop). The app builds
the log's token index in the background once the first chunks show; by default the switch waits
for it (a user reading the first screen), `--at-once` switches as soon as the first chunks show.
`index_s` is the time from the first chunks to the index being ready.

    .venv/bin/python -m bench.app_log_records [--mb 100] [--at-once]

Results go to bench/app_results.json under "log_records".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.app_big_log import generate
from bench.system import store_app_results

CHILD = r"""
import asyncio, json, sys, time
from textual import events
from textual.widgets import Select
from bench.app_latency import StallMeter
from chunktui.engine.core.token_index import cached_index
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.compat import send_to_driver

async def rechunk(app, meter, change):
    '''Apply `change`, wait for the new chunk set and an idle app: (seconds, longest stall).'''
    before = app.chunkset
    meter.reset()
    started = time.perf_counter()
    change()
    while app.chunkset is before:
        await asyncio.sleep(0.01)
    took = time.perf_counter() - started
    await app.wait_idle()
    return took, meter.worst

def press(app, key, char):
    event = events.Key(key, char)
    event.set_sender(app)
    send_to_driver(app, event)

async def main(path, at_once):
    app = ChunktuiApp(path=path)
    out = {}
    async with app.run_test(size=(160, 48)) as pilot:
        await app.wait_idle()
        shown = time.perf_counter()
        meter = StallMeter()
        meter.start()
        if not at_once:
            while cached_index(app.doc.text, "cl100k_base") is None:
                await asyncio.sleep(0.05)
            out["index_s"], out["index_stall_s"] = time.perf_counter() - shown, meter.worst
        await app.workers.wait_for_complete([w for w in app.workers if w.group != "token-index"])
        await pilot.pause()
        out["switch_s"], out["switch_stall_s"] = await rechunk(
            app, meter, lambda: setattr(app.query_one("#strategy", Select), "value", "log-records"))
        out["chunks"] = len(app.chunkset.chunks)
        await app.workers.wait_for_complete()
        meter.reset()
        out["smaller_s"], out["smaller_stall_s"] = await rechunk(
            app, meter, lambda: press(app, "left_square_bracket", "["))
        meter.reset()
        press(app, "pagedown", None)
        await pilot.pause()
        await app.wait_idle()
        out["pagedown_stall_s"] = meter.worst
        meter.stop()
        out["chars"], out["lines"] = len(app.doc.text), app.doc.line_count
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2] == "at-once"))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--label", default="current", help="key the results are stored under")
    parser.add_argument("--at-once", action="store_true", help="switch as soon as the first chunks show")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "service-big.log"
        generate(path, args.mb)
        load_before = os.getloadavg()[0]  # the machine is shared: the load says how comparable a run is
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), "at-once" if args.at_once else "wait"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        if done.returncode:
            sys.exit(done.stderr[-3000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["child_s"] = time.perf_counter() - t
        result["load_1min"] = [load_before, os.getloadavg()[0]]
    result["file_mb"] = path_mb = result["chars"] / 1e6
    print(f"{path_mb:.0f} MB, {result['lines']:,} lines; log-records -> {result['chunks']:,} chunks")
    if "index_s" in result:
        print(
            f"index    {result['index_s']:7.2f} s  longest stall {1000 * result['index_stall_s']:7.0f} ms"
            "  (built in the background after the first chunks)"
        )
    result["at_once"] = args.at_once
    for step in ("switch", "smaller"):
        print(f"{step:8} {result[step + '_s']:7.2f} s  longest stall {1000 * result[step + '_stall_s']:7.0f} ms")
    print(f"pagedown           longest stall {1000 * result['pagedown_stall_s']:7.0f} ms  (target: every stall 100 ms)")
    print(
        f"load     {result['load_1min'][0]:.1f} at the start, {result['load_1min'][1]:.1f} at the end (1-minute average)"
    )
    store_app_results("log_records", args.label, result)


if __name__ == "__main__":
    main()
