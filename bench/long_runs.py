"""Long runs without spaces: 1 MB and 10 MB of `a`, of DNA and of CJK, and how time scales.

No word, sentence or token-index anchor falls inside such a run, and tiktoken reads each as one
pre-tokenizer piece. Each kind of run is chunked with the default strategy (`auto`, which picks
`prose` for a .txt) and with `fixed` in tokens, in CPU time (the machine is shared), with the
token index rebuilt each run, and against tiktoken encoding it once. The scaling exponent between
the two sizes is log(t_large / t_small) / log(size ratio); the target is at most 1.1.

`--strategies` instead chunks 100 KB, 400 KB and 1.6 MB of one punctuation character (`=`, `-`,
`.`, `*`, `#`), of spaces and line feeds, of line feeds, of spaces and of digits with every
strategy that takes plain text, with its defaults, and prints the exponent from 100 KB to 1.6 MB.

    .venv/bin/python -m bench.long_runs [--sizes 1m,10m] [--repeat 1] [--kinds a,dna,cjk]
    .venv/bin/python -m bench.long_runs --strategies

Results go to bench/long_runs.json (bench/long_runs_strategies.json); BENCHMARKS.md says what they mean.
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
# "tiktoken encode" is tiktoken's own encoding of the run (one piece BPE-encoded whole); "windowed
# encode" is chunktui's (long_pieces.py: the same tokens, the piece in 32 KB windows), which the
# token index starts from
CONFIGS = (
    ("auto", None),
    ("fixed tokens 512", {"unit": "tokens", "size": 512}),
    ("tiktoken encode", None),
    ("windowed encode", None),
)
TARGET = 1.1


# one character, or a few, repeated: the alphabets of the strategies' sweep
REPEATED = {
    "=": "=",
    "-": "-",
    ".": ".",
    "*": "*",
    "#": "#",
    "spaces+lf": " \n",
    "lf": "\n",
    "spaces": " ",
    "digits": "0123456789",
}
# strategies that take plain text, with the file name that gives each what it reads
PLAIN_TEXT = (
    ("adaptive", "run.txt"),
    ("auto", "run.txt"),
    ("auto", "run.md"),
    ("auto", "run.log"),
    ("data", "run.txt"),
    ("data-rows", "run.txt"),
    ("fixed", "run.txt"),
    ("lines", "run.txt"),
    ("log", "run.log"),
    ("log-records", "run.log"),
    ("markdown", "run.md"),
    ("prose", "run.txt"),
    ("recursive", "run.txt"),
    ("semantic", "run.txt"),
    ("split", "run.txt"),
)


def long_run(kind: str, nbytes: int) -> str:
    """About `nbytes` of UTF-8: one letter, ACGT repeated, random CJK ideographs (3 bytes each), or
    one of REPEATED."""
    if kind == "a":
        return "a" * nbytes
    if kind == "dna":
        return ("ACGT" * (nbytes // 4 + 1))[:nbytes]
    if kind in REPEATED:
        return (REPEATED[kind] * (nbytes // len(REPEATED[kind]) + 1))[:nbytes]
    rng = random.Random(19)
    return "".join(map(chr, (rng.randint(0x4E00, 0x9FA5) for _ in range(nbytes // 3))))


def case(text: str, strategy: str, params: dict | None):
    """The call timed: tiktoken encoding the text (the floor), or chunking it as a .txt file."""
    from chunktui.engine import Document, chunk_document
    from chunktui.engine.core.tokens import encode_ordinary, get_encoding

    if strategy == "tiktoken encode":
        encode = get_encoding("cl100k_base").encode_ordinary
        return lambda: encode(text)
    if strategy == "windowed encode":
        return lambda: encode_ordinary("cl100k_base", text)
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


def strategies_sweep() -> list[dict]:
    """Every plain-text strategy on each REPEATED run of 100 KB, 400 KB and 1.6 MB, CPU seconds."""
    from chunktui.engine import Document, chunk_document
    from chunktui.engine.core import token_index

    sizes = (100_000, 400_000, 1_600_000)
    rows = []
    for strategy, path in PLAIN_TEXT:
        for kind in REPEATED:
            t = []
            for n in sizes:
                doc = Document.from_text(long_run(kind, n), path=path)
                token_index.clear_cache()
                t0 = time.process_time()
                chunk_document(doc, strategy, None)
                t.append(time.process_time() - t0)
            k = exponent(t[0], t[2], sizes[0], sizes[2])  # over the whole range: one run a size is noisy
            rows.append(
                {
                    "strategy": strategy,
                    "file": path,
                    "run": kind,
                    "seconds": [round(x, 3) for x in t],
                    "exponent": round(k, 2),
                    "met": k <= TARGET,
                }
            )
            print(
                f"{strategy:12} {path:8} {kind:9} " + " ".join(f"{x:7.2f}" for x in t) + f"  exponent {k:.2f}",
                flush=True,
            )
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.long_runs", description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1m,10m", help=f"two of {', '.join(SIZES)}")
    p.add_argument("--repeat", type=int, default=1, help="runs a case (median)")
    p.add_argument("--kinds", default="a,dna,cjk", help=f"runs: a, dna, cjk, {', '.join(REPEATED)}")
    p.add_argument("--cases", default=",".join(name for name, _ in CONFIGS), help="which of the cases")
    p.add_argument("--strategies", action="store_true", help="the sweep of every plain-text strategy instead")
    args = p.parse_args(argv)
    if args.strategies:
        rows = strategies_sweep()
        (ROOT / "bench" / "long_runs_strategies.json").write_text(json.dumps({"rows": rows}, indent=1) + "\n")
        return 0
    small, large = args.sizes.split(",")
    cpu_seconds("warm-up: the encodings load once", "auto", None, 1)
    rows = []
    for kind in args.kinds.split(","):
        texts = {key: long_run(kind, SIZES[key]) for key in (small, large)}
        for strategy, params in (c for c in CONFIGS if c[0] in args.cases.split(",")):
            t = {key: cpu_seconds(texts[key], strategy, params, args.repeat) for key in (small, large)}
            k = exponent(t[small], t[large], len(texts[small]), len(texts[large]))
            rows.append(
                {
                    "run": kind,
                    "strategy": strategy,
                    small: round(t[small], 3),
                    large: round(t[large], 3),
                    "exponent": round(k, 2),
                    "met": k <= TARGET,
                }
            )
            print(
                f"{kind:4} {strategy:17} {small} {t[small]:7.3f} s  {large} {t[large]:7.3f} s  "
                f"exponent {k:.2f} ({'met' if k <= TARGET else 'missed'}: <= {TARGET})",
                flush=True,
            )
    store(ROOT / "bench" / "long_runs.json", [small, large], args.repeat, rows)
    return 0


def store(path: Path, sizes: list[str], repeat: int, rows: list[dict]) -> None:
    """Write the rows, keeping the stored rows of other runs and cases measured at the same sizes."""
    old = json.loads(path.read_text()) if path.exists() else {}
    measured = {(r["run"], r["strategy"]) for r in rows}
    kept = [r for r in old.get("rows", []) if old.get("sizes") == sizes and (r["run"], r["strategy"]) not in measured]
    path.write_text(json.dumps({"sizes": sizes, "repeat": repeat, "rows": kept + rows}, indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
