"""Sweep speed: a 30-cell grid over 1 MB of real markdown, in-process vs the 2-worker pool.

    python -m bench.sweep [--size 1m] [--strategy recursive]

The ratio (pool time / serial time) is what the parallel design buys; both times
include tokenizing every chunk of every cell and assessing its quality.
"""

from __future__ import annotations

import argparse
import time

from chunktui.engine import Document
from chunktui.engine.analysis.sweep import parse_range, sweep

from .corpus import SIZES, corpus

GRIDS = {  # strategy -> (sizes, overlaps, fixed params): 10 sizes x 3 overlaps = 30 cells
    "recursive": ("200:2000:200", "0,50,100", {"unit": "chars"}),
    "lines": ("20:200:20", "0,2,5", {}),
    "fixed": ("400:4000:400", "0,50,100", {"unit": "chars"}),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1m", choices=sorted(SIZES))
    ap.add_argument("--strategy", default="recursive", choices=sorted(GRIDS))
    args = ap.parse_args()
    text = corpus("markdown", SIZES[args.size])
    doc = Document.from_text(text, path="corpus.md")
    sizes, overlaps, base = GRIDS[args.strategy]
    grid = ([args.strategy], parse_range(sizes), parse_range(overlaps, "overlap"))
    times = {}
    for workers in (1, 2):
        start = time.perf_counter()
        result = sweep(doc, *grid, base_params=base, workers=workers)
        times[workers] = time.perf_counter() - start
        print(
            f"{args.strategy} on {len(text) / 1e6:.2f} MB markdown, {len(result.cells)} cells "
            f"({len(result.skipped)} skipped), workers={workers}: {times[workers]:.2f} s"
        )
    print(f"ratio pool/serial: {times[2] / times[1]:.2f}")


if __name__ == "__main__":
    main()
