"""`make bench`: chunktui against its peers on the same real text, in one process.

    python -m bench.run                 # sizes 100k,1m,10m, median of 5, writes BENCHMARKS.md
    python -m bench.run --quick         # 100k and 1m, median of 3, four modes (about a minute)
    python -m bench.run --sizes 1m --repeat 7 --modes "chars 512"

Every contender runs on one thread; within a mode and size the contenders take
turns (the order rotates each repetition) so a noisy neighbour slows everyone
alike; each time is the median of the repetitions. Results go to
bench/results.json and, rendered, to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from .checks import check
from .contenders import CONTENDERS, Mode, Skip
from .corpus import SIZES, corpus
from .report import write_benchmarks
from .repeated import repeated_text_probe
from .system import machine, versions
from .timing import median_time, timed
from .token_counts import token_count_bench

ROOT = Path(__file__).resolve().parent.parent

# the tokenizers' Rust thread pools must not outnumber the one thread everyone gets
os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def all_modes() -> list[Mode]:
    modes = [
        Mode("text", unit, size, frac) for unit in ("chars", "tokens") for size in (512, 4096) for frac in (0.0, 0.1)
    ]
    modes += [Mode("markdown", "chars", size, frac) for size in (512, 4096) for frac in (0.0, 0.1)]
    modes += [Mode("lines", "lines", 50, frac) for frac in (0.0, 0.1)]
    modes += [Mode("code", "chars", size, 0.0) for size in (512, 4096)]
    return modes


QUICK_MODES = (
    "chars 512 overlap 0%",
    "tokens 512 overlap 10%",
    "markdown chars 4096 overlap 0%",
    "lines 50 overlap 10%",
)


def floors(kind: str, text: str, repeat: int) -> dict:
    """The least any splitter must do: find delimiters, encode once, parse once."""
    from chunktui.engine.core.tokens import get_encoding

    line = re.compile("\n")
    encode = get_encoding("cl100k_base").encode_ordinary

    def find_scan() -> int:
        find, n, pos = text.find, 0, text.find("\n\n")
        while pos != -1:
            n += 1
            pos = find("\n\n", pos + 2)
        return n

    out = {
        "scan": median_time(lambda: [m.start() for m in line.finditer(text)], repeat),
        "find": median_time(find_scan, repeat),
        "encode": median_time(lambda: len(encode(text)), repeat),
    }
    if kind == "code":
        import tree_sitter
        import tree_sitter_python

        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))
        source = text.encode("utf-8")
        out["parse"] = median_time(lambda: parser.parse(source), repeat)
    return out


def bench_mode(
    mode: Mode, size_key: str, text: str, repeat: int, max_seconds: float, log, previous: dict | None = None
) -> dict:
    """Every contender of the mode's family on `text`, turn by turn.

    `previous` is this mode's result at the next smaller size: a contender whose time
    there, scaled by its own growth (at least linear), would exceed `max_seconds` here is
    skipped with that estimate instead of holding the benchmark up for minutes.
    """
    contenders = [c for c in CONTENDERS if mode.family in c.families]
    results: dict[str, dict] = {}
    for c in contenders:
        try:
            c.make(mode, text)
            results[c.name] = {"ours": c.ours, "times": [], "check": None}
        except Skip as exc:
            results[c.name] = {"ours": c.ours, "skip": str(exc)}
            continue
        estimate = _estimate(previous, c.name, len(text))
        if estimate is not None and estimate > max_seconds:
            before = previous["results"][c.name]["median"]
            results[c.name] = {
                "ours": c.ours,
                "skip": f"too slow to repeat here: {before:.1f} s at "
                f"{previous['size']}, so at least {estimate:.0f} s at {size_key}",
            }
    for rep in range(repeat):
        live = [c for c in contenders if "skip" not in results[c.name] and not results[c.name].get("stopped")]
        if not live:
            break
        shift = rep % len(live)
        for c in live[shift:] + live[:shift]:
            entry = results[c.name]
            runner = c.make(mode, text)
            seconds, out = timed(runner)
            entry["times"].append(seconds)
            if entry["check"] is None:
                entry["check"] = check(text, out, mode)
            if seconds > max_seconds:
                entry["stopped"] = f"one run took {seconds:.0f} s (> {max_seconds:.0f} s): not repeated"
            log(f"  {mode.name:34} {size_key:>4} {c.name:42} {seconds * 1000:10.1f} ms")
    for entry in results.values():
        if entry.get("times"):
            entry["median"] = statistics.median(entry["times"])
    return results


def _estimate(previous: dict | None, name: str, chars: int) -> float | None:
    """Time at `chars` from the smaller size, growing as fast as it did before (at least linearly)."""
    if not previous or not previous["results"].get(name, {}).get("median"):
        return None
    seconds, growth = previous["results"][name]["median"], max(1.0, previous.get("exponents", {}).get(name, 1.0))
    return seconds * (chars / previous["chars"]) ** growth


def _exponents(smaller: dict | None, larger: dict, chars_small: int, chars_large: int) -> dict:
    import math

    out = {}
    for name, r in larger.items():
        before = (smaller or {}).get(name, {}).get("median")
        if before and r.get("median"):
            out[name] = math.log(r["median"] / before) / math.log(chars_large / chars_small)
    return out


def warm_up(modes: list[Mode], log) -> None:
    """One untimed run of every contender on a little text, so imports and grammar loading
    are not counted in anybody's first timed run."""
    text = corpus("docs", 5_000)
    for mode in modes:
        for c in CONTENDERS:
            if mode.family in c.families:
                try:
                    c.make(mode, text)()
                except Skip:
                    pass
    log("warmed up")


def merge(old: dict, new: dict) -> dict:
    """The earlier results with this run's modes (and token counts, if measured) replacing theirs."""
    rerun = {m["mode"] for m in new["modes"]}
    merged = dict(old)
    merged["modes"] = [m for m in old["modes"] if m["mode"] not in rerun] + new["modes"]
    order = [m.name for m in all_modes()]
    merged["modes"].sort(key=lambda m: order.index(m["mode"]) if m["mode"] in order else len(order))
    for key in ("tokens", "repeated"):
        if new[key]:
            merged[key] = new[key]
    merged["command"] = old["command"] + " ; then " + new["command"]
    merged["machine"]["load_at_merge"] = new["machine"]["load_at_start"]
    merged["seconds"] = old.get("seconds", 0) + new["seconds"]
    return merged


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="100k and 1m, median of 3, a subset of modes")
    p.add_argument("--sizes", help=f"comma-separated among {', '.join(SIZES)}")
    p.add_argument("--repeat", type=int, help="runs per contender (median); default 5, quick 3")
    p.add_argument("--modes", help="only modes whose name contains one of these comma-separated strings")
    p.add_argument("--skip", help="leave out modes whose name contains one of these comma-separated strings")
    p.add_argument(
        "--max-seconds",
        type=float,
        help="stop repeating a contender slower than this, and skip it at "
        "a bigger size where it would be (default 20; quick 5)",
    )
    p.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md and results.json")
    p.add_argument("--merge", action="store_true", help="replace only the modes run now in bench/results.json")
    p.add_argument("--no-extras", action="store_true", help="skip the repeated-text probe and token-count timing")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sizes = (args.sizes or ("100k,1m" if args.quick else ",".join(SIZES))).split(",")
    for key in sizes:
        if key not in SIZES:
            raise SystemExit(f"unknown size {key!r} (known: {', '.join(SIZES)})")
    repeat = args.repeat or (3 if args.quick else 5)
    max_seconds = args.max_seconds or (5.0 if args.quick else 20.0)
    modes = all_modes()
    if args.modes:
        modes = [m for m in modes if any(w.strip() in m.name for w in args.modes.split(","))]
    elif args.quick:
        modes = [m for m in modes if m.name in QUICK_MODES]
    if args.skip:
        modes = [m for m in modes if not any(w.strip() in m.name for w in args.skip.split(","))]

    def log(msg: str) -> None:
        print(msg, flush=True)

    started = time.time()
    data = {
        "machine": machine(),
        "versions": versions(),
        "repeat": repeat,
        "sizes": sizes,
        "command": "python -m bench.run " + " ".join(sys.argv[1:] if argv is None else argv),
        "floors": {},
        "modes": [],
        "repeated": [],
        "tokens": [],
    }
    for key in sizes:
        for kind in sorted({m.corpus for m in modes} | {"docs"}):
            text = corpus(kind, SIZES[key])
            data["floors"].setdefault(kind, {})[key] = {
                "chars": len(text),
                "bytes": len(text.encode()),
                **floors(kind, text, repeat),
            }
            log(f"floors {kind} {key}: {data['floors'][kind][key]}")
    warm_up(modes, log)
    for mode in modes:
        entry = {
            "mode": mode.name,
            "family": mode.family,
            "unit": mode.unit,
            "size": mode.size,
            "overlap": mode.overlap,
            "corpus": mode.corpus,
            "by_size": {},
            "floors": {key: data["floors"][mode.corpus][key] for key in sizes},
        }
        previous = None
        for key in sizes:
            text = corpus(mode.corpus, SIZES[key])
            results = bench_mode(mode, key, text, repeat, max_seconds, log, previous)
            exponents = (
                _exponents(previous and previous["results"], results, previous["chars"] if previous else 0, len(text))
                if previous
                else {}
            )
            entry["by_size"][key] = results
            previous = {"size": key, "chars": len(text), "results": results, "exponents": exponents}
        data["modes"].append(entry)
    if not args.no_extras:
        data["repeated"] = repeated_text_probe(log)
        for key in sizes:
            data["tokens"].append(token_count_bench(key, corpus("docs", SIZES[key]), repeat, log))
    data["seconds"] = round(time.time() - started)
    # a long run on a shared machine can start quiet and end busy: say both, and when it ended
    data["machine"]["load_at_end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    data["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if not args.no_write:
        path = ROOT / "bench" / "results.json"
        if args.merge and path.exists():
            data = merge(json.loads(path.read_text()), data)
        path.write_text(json.dumps(data, indent=1) + "\n")
        write_benchmarks(data)
        log(f"wrote BENCHMARKS.md and bench/results.json in {data['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
