"""Retrieval evaluation speed: one configuration over 1 MB of real docs with 100 questions,
against the chunking of that document (target: evaluation at most 3x the chunking).

    python -m bench.retrieval [--size 1m] [--strategy recursive] [--questions 100] [--repeat 3]

The evaluation time covers what `chunktui eval` adds to a chunking: the embedded texts' token
counts, the FTS5 index, 100 searches and every metric. The questions are synthetic
(`auto_queries`, seed 0): they are here for their cost, not their scores.
"""

from __future__ import annotations

import argparse

from chunktui.engine import Document, chunk_document
from chunktui.engine.analysis.retrieval import auto_queries, embedded_tokens, evaluate_retrieval

from .corpus import SIZES, corpus
from .timing import median_time, timed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1m", choices=sorted(SIZES))
    ap.add_argument("--strategy", default="recursive")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    text = corpus("docs", SIZES[args.size])
    doc = Document.from_text(text, path="corpus.md")
    queries = auto_queries(text, args.questions)
    chunking = median_time(lambda: chunk_document(doc, args.strategy), args.repeat)
    cs = chunk_document(doc, args.strategy)

    def evaluate():
        return evaluate_retrieval(cs, queries, tokens=embedded_tokens(cs.chunks))

    evaluation = median_time(evaluate, args.repeat)
    report = timed(evaluate)[1]
    means = report.means()
    print(f"{args.strategy} on {len(text) / 1e6:.2f} MB docs, {len(cs.chunks):,} chunks, {len(queries)} synthetic "
          f"questions: chunking {chunking * 1000:.0f} ms, evaluation {evaluation * 1000:.0f} ms "
          f"(median of {args.repeat})")
    print(f"ratio evaluation/chunking: {evaluation / chunking:.2f} (target <= 3); "
          f"recall@5 {means['recall@5']:.3f}, recall@1000 tokens {means['recall@budget']:.3f}")


if __name__ == "__main__":
    main()
