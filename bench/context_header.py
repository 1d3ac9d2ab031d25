"""The context header's cost: chunking 10 MB of real docs with `--context-header title|path`
against the same chunking without one, token index warm (as a re-chunk in the app or a sweep
finds it), in one process, the three taking turns.

    python -m bench.context_header [--size 10m] [--strategy markdown] [--repeat 3]

A header changes every chunk's embedded text, whose exact token count each chunk then needs.
"""

from __future__ import annotations

import argparse
import statistics

from chunktui.engine import Document, chunk_document

from .corpus import SIZES, corpus
from .timing import timed

HEADERS = ("none", "title", "path")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="10m", choices=sorted(SIZES))
    ap.add_argument("--strategy", default="markdown")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = corpus("markdown", SIZES[args.size])
    doc = Document.from_text(text, path="corpus.md")
    chunk_document(doc, args.strategy)  # the token index, kept: every run below re-chunks
    times: dict[str, list[float]] = {h: [] for h in HEADERS}
    for _ in range(args.repeat):
        for header in HEADERS:
            seconds, cs = timed(lambda: chunk_document(doc, args.strategy, context_header=header))
            times[header].append(seconds)
    base = statistics.median(times["none"])
    print(
        f"{args.strategy} on {len(text) / 1e6:.1f} MB markdown, {len(cs.chunks):,} chunks, "
        f"median of {args.repeat}, token index warm:"
    )
    for header in HEADERS:
        t = statistics.median(times[header])
        print(f"  --context-header {header:5}: {t:6.2f} s  ({t / base:.2f}x none)")


if __name__ == "__main__":
    main()
