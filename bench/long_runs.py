"""Long runs without spaces: 1 MB and 10 MB of `a`, of DNA and of CJK, and how time scales.

No word, sentence or token-index anchor falls inside such a run, and tiktoken reads each as one
pre-tokenizer piece. Each kind of run is chunked with the default strategy (`auto`, which picks
`prose` for a .txt) and with `fixed` in tokens, in CPU time (the machine is shared), with the
token index rebuilt each run, and against the floor: tiktoken encoding it once. The scaling exponent between the two sizes is
log(t_large / t_small) / log(size ratio); the target is at most 1.1.

    .venv/bin/python -m bench.long_runs [--sizes 1m,10m] [--repeat 1]

Results go to bench/long_runs.json; bench/LONG_RUNS.md (kept by hand) says what they mean.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}  # bytes of UTF-8
# "encode" is the floor: tiktoken's own encoding of the run, which the token index starts from
CONFIGS = (("auto", None), ("fixed tokens 512", {"unit": "tokens", "size": 512}), ("encode", None))
TARGET = 1.1


def long_run(kind: str, nbytes: int) -> str:
    """About `nbytes` of UTF-8: one letter, ACGT repeated, or random CJK ideographs (3 bytes each)."""
    if kind == "a":
        return "a" * nbytes
    if kind == "dna":
        return ("ACGT" * (nbytes // 4 + 1))[:nbytes]
    rng = random.Random(19)
    return "".join(map(chr, (rng.randint(0x4E00, 0x9FA5) for _ in range(nbytes // 3))))


def case(text: str, strategy: str, params: dict | None):
    """The call timed: tiktoken encoding the text (the floor), or chunking it as a .txt file."""
    from chunktui.engine import Document, chunk_document
    from chunktui.engine.core.tokens import get_encoding

    if strategy == "encode":
        encode = get_encoding("cl100k_base").encode_ordinary
        return lambda: encode(text)
    doc = Document.from_text(text, path="run.txt")
    return lambda: chunk_document(doc, strategy.split()[0], params)


def cpu_seconds(text: str, strategy: str, params: dict | None, repeat: int) -> float:
    """Median CPU time of the case, the token index built afresh each time."""
    from chunktui.engine.core import token_index

    times = []
    for _ in range(repeat):
        token_index.clear_cache()
        call = case(text, strategy, params)
        t0 = time.process_time()
        call()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def exponent(t_small: float, t_large: float, n_small: int, n_large: int) -> float:
    return math.log(t_large / t_small) / math.log(n_large / n_small)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.long_runs", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1m,10m", help=f"two of {', '.join(SIZES)}")
    p.add_argument("--repeat", type=int, default=1, help="runs a case (median)")
    args = p.parse_args(argv)
    small, large = args.sizes.split(",")
    cpu_seconds("warm-up: the encodings load once", "auto", None, 1)
    rows = []
    for kind in ("a", "dna", "cjk"):
        texts = {key: long_run(kind, SIZES[key]) for key in (small, large)}
        for strategy, params in CONFIGS:
            t = {key: cpu_seconds(texts[key], strategy, params, args.repeat) for key in (small, large)}
            k = exponent(t[small], t[large], len(texts[small]), len(texts[large]))
            rows.append({"run": kind, "strategy": strategy, small: round(t[small], 3), large: round(t[large], 3),
                         "exponent": round(k, 2), "met": k <= TARGET})
            print(f"{kind:4} {strategy:17} {small} {t[small]:7.3f} s  {large} {t[large]:7.3f} s  "
                  f"exponent {k:.2f} ({'met' if k <= TARGET else 'missed'}: <= {TARGET})", flush=True)
    (ROOT / "bench" / "long_runs.json").write_text(json.dumps({"sizes": [small, large], "repeat": args.repeat,
                                                               "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
