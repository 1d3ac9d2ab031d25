"""The whole-document encode on one thread, and cut into blocks encoded on every core (issue 20).

The token index encodes a document once, on one thread. The blocks here are cut at anchors (the
token index's `split_finders`: positions where the text's pieces are those before followed by
those after), one per core, and encoded on threads (tiktoken releases the GIL). Each round encodes
the same text both ways, alternated, in wall time and CPU time, and checks that the tokens are the
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


def blocks(text: str, parts: int) -> list[str]:
    """The text cut at the first anchor after each 1/parts of it."""
    from chunktui.engine.core.token_index import split_finders

    first_after = split_finders("cl100k_base")[1]
    cuts = [0]
    for i in range(1, parts):
        a = first_after(text, i * len(text) // parts, min(len(text), i * len(text) // parts + 4096))
        if a is not None and a > cuts[-1]:
            cuts.append(a)
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts, cuts[1:])]


def on_threads(encode, text: str, workers: int) -> bytes:
    with ThreadPoolExecutor(workers) as pool:
        return b"".join(pool.map(encode, blocks(text, workers), repeat(set())))


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
