"""The whole-document encode on one thread, and cut into blocks encoded on every core (issue 20).

The blocks are the token index's own (`token_index.blocks`: cut at anchors, positions where the
text's pieces are those before followed by those after), one per core, encoded on threads
(tiktoken releases the GIL); the token index does the same for the cores the load leaves free.
Each round encodes the same text both ways, alternated, in wall time and CPU time, and checks that the tokens are the
same. The texts: bench/cli_process.py's 6 MB corpus and bench/app_big_log.py's generated
service log (100 MB by default).

    .venv/bin/python -m bench.encode_blocks [--log-mb 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from pathlib import Path

from bench.app_big_log import generate
from bench.cli_process import build_corpus


def timed(call) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def on_threads(encode, text: str, workers: int) -> bytes:
    from chunktui.engine.core.token_index import blocks

    with ThreadPoolExecutor(workers) as pool:
        return b"".join(pool.map(encode, blocks(text, "cl100k_base", workers), repeat(set())))


def compare(label: str, text: str, rounds: int, workers: int) -> None:
    from chunktui.engine.core.tokens import get_encoding

    whole = get_encoding("cl100k_base")._core_bpe.encode_to_tiktoken_buffer
    rows = {"one thread": [], f"{workers} blocks": []}
    for _ in range(rounds):
        w1, c1, one = timed(lambda: whole(text, set()))
        w2, c2, split = timed(lambda: on_threads(whole, text, workers))
        assert bytes(one) == split, "blocks differ from the whole encode"
        del one, split
        rows["one thread"].append((w1, c1))
        rows[f"{workers} blocks"].append((w2, c2))
    base = statistics.median(w for w, _ in rows["one thread"])
    for name, times in rows.items():
        wall, cpu = statistics.median(w for w, _ in times), statistics.median(c for _, c in times)
        print(f"{label:10} {name:11} wall {wall:6.2f} s  cpu {cpu:6.2f} s  wall ratio {wall / base:.2f}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.encode_blocks", description=__doc__.split("\n\n")[0])
    p.add_argument("--log-mb", type=float, default=100.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    args = p.parse_args(argv)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores, {args.workers} workers")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = build_corpus(Path(tmp)).read_text(encoding="utf-8")
        compare(f"{len(corpus) / 1e6:.1f} MB", corpus, args.rounds, args.workers)
        del corpus
        log = Path(tmp) / "service.log"
        generate(log, args.log_mb)
        text = log.read_text(encoding="utf-8")
    compare(f"{len(text) / 1e6:.0f} MB log", text, args.rounds, args.workers)
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
