"""Open a 100 MB log in the app: time to the first screen, time to the first chunks, peak memory.

The log (service lines at several levels, request ids, a Python or Java stack trace now and
then) is generated in a temporary folder. The app runs in a child process so that its peak
RSS (getrusage ru_maxrss) is the app's alone, reported as a multiple of the file size.

    .venv/bin/python -m bench.app_big_log [--mb 100] [--strategy log]

Results go to bench/app_results.json under "big_log".
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.system import store_app_results

SERVICES = ("api", "auth", "billing", "search", "worker", "scheduler")
LEVELS = ("DEBUG",) * 3 + ("INFO",) * 8 + ("WARN",) * 2 + ("ERROR",)
MESSAGES = (
    "GET /v1/orders/{n} 200 in {ms} ms",
    "POST /v1/checkout 201 in {ms} ms",
    "cache miss for user:{n}",
    "retrying upstream call to payments (attempt {a}/5)",
    "job {n} finished in {ms} ms",
    "connection pool at {a}0% ({n} waiting)",
    "token refreshed for session {n}",
    "slow query on orders_by_customer took {ms} ms",
    "user {n} logged in from 10.0.{a}.{a}",
)
PY_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/handlers.py", line 212, in handle\n    result = service.charge(order)\n'
    '  File "/srv/app/billing.py", line 88, in charge\n    raise PaymentError(resp.reason)\n'
    "billing.PaymentError: card declined (order {n})\n"
)
JAVA_TRACE = (
    "java.lang.IllegalStateException: queue {n} closed\n"
    "\tat com.example.worker.Queue.take(Queue.java:141)\n"
    "\tat com.example.worker.Runner.loop(Runner.java:77)\n"
    "\tat java.base/java.lang.Thread.run(Thread.java:833)\n"
)


def generate(path: Path, megabytes: float, seed: int = 11) -> None:
    """Timestamped service lines; about one line in 400 is followed by a stack trace."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    size, second = 0, 1_700_000_000
    with open(path, "w", encoding="utf-8") as fh:
        while size < target:
            lines = []
            for _ in range(2000):
                second += rng.random() * 0.05
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)) + f".{int(second % 1 * 1000):03d}Z"
                n, ms, a = rng.randrange(10**6), rng.randrange(1, 3000), rng.randrange(1, 10)
                level = rng.choice(LEVELS)
                msg = rng.choice(MESSAGES).format(n=n, ms=ms, a=a)
                lines.append(f"{stamp} {level:5} [{rng.choice(SERVICES)}] req={n:06x} {msg}\n")
                if level == "ERROR" and rng.random() < 0.2:
                    lines.append((PY_TRACE if rng.random() < 0.5 else JAVA_TRACE).format(n=n))
            block = "".join(lines)
            fh.write(block)
            size += len(block)


CHILD = r"""
import asyncio, json, resource, sys, time
started = time.perf_counter()
from chunktui.ui.app import ChunktuiApp
imported = time.perf_counter()

async def main(path, strategy):
    app = ChunktuiApp(path=path, strategy=strategy or None)
    out = {"import_s": imported - started}
    drawn = []
    async with app.run_test(size=(160, 48)) as pilot:
        view = app.view
        render_line = view.render_line

        def timed(y):  # the first row of the document drawn is the first screen
            if view.document is not None and not drawn:
                drawn.append(time.perf_counter())
            return render_line(y)

        view.render_line = timed
        while not drawn:
            await asyncio.sleep(0.005)
        out["first_screen_s"] = drawn[0] - started
        out["rss_at_first_screen_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        await app.wait_idle()
        await pilot.pause()
        out["first_chunks_s"] = time.perf_counter() - started
        out["chunks"] = len(app.chunkset.chunks) if app.chunkset else 0
        out["strategy"] = app.chunkset.strategy if app.chunkset else None
        out["chars"] = len(app.doc.text)
        out["lines"] = app.doc.line_count
        out["screen_row"] = app.view.render_line(0).text.strip()[:80]
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--strategy", default="", help="default: the app's own pick (auto)")
    parser.add_argument("--label", default="current", help="key the results are stored under")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "service-big.log"
        t = time.perf_counter()
        generate(path, args.mb)
        size_mb = path.stat().st_size / 2**20
        print(f"generated {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), args.strategy],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        if done.returncode:
            sys.exit(done.stderr[-3000:])
        result = json.loads(done.stdout.strip().splitlines()[-1])
    result["file_mb"] = size_mb
    result["peak_rss_x_file"] = result["peak_rss_mb"] / size_mb
    print(f"file {size_mb:.0f} MiB, {result['lines']:,} lines; {result['strategy']} -> {result['chunks']:,} chunks")
    print(
        f"first screen  {result['first_screen_s']:.2f} s (imports {result['import_s']:.2f} s)  target 2 s: "
        f"{'meets' if result['first_screen_s'] <= 2 else 'MISSES'}"
    )
    print(f"first chunks  {result['first_chunks_s']:.2f} s")
    print(
        f"peak RSS      {result['peak_rss_mb']:.0f} MiB = {result['peak_rss_x_file']:.2f}x the file "
        f"(at first screen {result['rss_at_first_screen_mb']:.0f} MiB)  target 4x: "
        f"{'meets' if result['peak_rss_x_file'] <= 4 else 'MISSES'}"
    )
    store_app_results("big_log", args.label, result)


if __name__ == "__main__":
    main()
