"""Which chunker retrieves best: chunktui's strategies and the peers' splitters through the same
retrieval evaluation, on the hand-written sample queries.

    python -m bench.retrieval_peers [--write]   # --write: bench/RETRIEVAL_BENCHMARKS.md

Every contender chunks the same document at the same sizes in characters (`prose` counts
tokens: it gets a quarter of the size), no overlap; each
peer's chunks are placed by the offsets the peer itself reports (LangChain's start_index,
chonkie's start_index, semchunk's offsets), and a chunk whose text is not the document's text
at its offset is counted and left out. Then the same BM25 index over the chunks' texts, the same
questions and the same metrics (chunktui.engine.analysis.retrieval) for all. Peers missing from the
environment are listed as skipped (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace

from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis.retrieval import evaluate_retrieval, load_queries
from chunktui.engine.core.tokens import get_counter, get_encoding

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"
DATA = (("guide.md", "queries/guide.jsonl"), ("essay.txt", "queries/essay.csv"))
SIZES = (400, 800, 1600)  # characters
BUDGET = 300  # embedded tokens: a third to a sixth of these documents
TOKENIZER = "cl100k_base"
COLUMNS = ("recall@1", "recall@3", "iou@3", "recall@budget", "iou@budget", "mrr")


def ours(strategy: str, params):
    def run(text: str, path: str, size: int):
        doc = load_document(path)
        cs = chunk_document(doc, strategy, params(size), tokenizer=TOKENIZER)
        return [(c.start, c.text) for c in cs.chunks]

    return run


def langchain_recursive(text, path, size):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0, add_start_index=True)
    return [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def chonkie_recursive(text, path, size):
    from chonkie import RecursiveChunker

    return [(c.start_index, c.text) for c in RecursiveChunker(tokenizer="character", chunk_size=size).chunk(text)]


def semchunk_chunker(text, path, size):
    import semchunk

    chunks, offsets = semchunk.chunkerify(len, size)(text, offsets=True)
    return [(a, c) for c, (a, _b) in zip(chunks, offsets)]


CONTENDERS = (
    ("chunktui recursive", ours("recursive", lambda n: {"size": n, "overlap": 0, "unit": "chars"})),
    ("chunktui markdown", ours("markdown", lambda n: {"max_char": n, "min_char": n // 2, "chunk_overlap": 0})),
    # prose counts tokens: a quarter of the size in characters, about as much text
    ("chunktui prose (max_tokens = size / 4)", ours("prose", lambda n: {"max_tokens": n // 4, "min_tokens": n // 8})),
    ("LangChain RecursiveCharacterTextSplitter", langchain_recursive),
    ("chonkie RecursiveChunker", chonkie_recursive),
    ("semchunk", semchunk_chunker),
)


def placed_chunks(pairs, text: str):
    """Chunk stand-ins at their reported offsets; pairs whose text is not there are dropped and counted."""
    count = get_counter(TOKENIZER).count
    chunks, misplaced = [], 0
    for start, chunk_text in pairs:
        if start is None or text[start : start + len(chunk_text)] != chunk_text:
            misplaced += 1
            continue
        tokens = count(chunk_text)
        chunks.append(
            SimpleNamespace(
                start=start,
                end=start + len(chunk_text),
                text=chunk_text,
                context_text=None,
                tokens=tokens,
                embed_text=chunk_text,
                embed_tokens=tokens,
            )
        )
    return chunks, misplaced


def measure():
    get_encoding(TOKENIZER)
    rows, skipped = [], []
    for doc_name, queries_name in DATA:
        path = SAMPLES / doc_name
        text = load_document(path).text
        queries = load_queries(SAMPLES / queries_name, text)
        for name, run in CONTENDERS:
            if name == "chunktui markdown" and not doc_name.endswith(".md"):
                continue
            for size in SIZES:
                try:
                    pairs = run(text, str(path), size)
                except ImportError as exc:
                    if (name, exc.name) not in skipped:
                        skipped.append((name, exc.name))
                    continue
                chunks, misplaced = placed_chunks(pairs, text)
                cs = SimpleNamespace(chunks=chunks, tokenizer=TOKENIZER)
                means = evaluate_retrieval(cs, queries, ks=(1, 3), budget=BUDGET).means()
                rows.append((doc_name, len(queries), name, size, len(chunks), misplaced, means))
    return rows, skipped


def render(rows, skipped) -> str:
    out = [
        "## Retrieval on the sample queries (chunktui and peers)",
        "",
        (
            "Written by `python -m bench.retrieval_peers --write`. BM25 (SQLite FTS5) over each chunk's text, "
            "the hand-written questions of `sample_docs/queries/`, chunk sizes in characters, no overlap; "
            "each peer's chunks at the offsets it reports. Metrics in characters (docs/retrieval.md); "
            f"@budget = top chunks within {BUDGET} cl100k tokens. Best recall@budget per document in bold. "
            "Two small documents and 23 questions: one question moves recall by 0.08-0.09, so this says which "
            "chunkers keep these answers whole, not which is better in general."
        ),
        "",
    ]
    for doc_name in dict.fromkeys(r[0] for r in rows):
        mine = [r for r in rows if r[0] == doc_name]
        best = max(r[6]["recall@budget"] for r in mine)
        out += [
            f"### {doc_name} ({mine[0][1]} questions)",
            "",
            "| chunker | size | chunks | misplaced | " + " | ".join(COLUMNS) + " |",
            "|---|---:|---:|---:|" + "---:|" * len(COLUMNS),
        ]
        for _, _, name, size, n, misplaced, means in mine:
            cells = [f"{means[c]:.3f}" for c in COLUMNS]
            if means["recall@budget"] == best:
                cells[3] = f"**{cells[3]}**"
            out.append(f"| {name} | {size} | {n} | {misplaced} | " + " | ".join(cells) + " |")
        out += [
            "",
            "Best by recall@budget, then IoU@budget: "
            + _best(mine, ours=True)
            + "; best peer: "
            + _best(mine, ours=False)
            + ".",
            "",
        ]
    out += [f"Skipped (not installed): {', '.join(f'{n} ({m})' for n, m in skipped)}.", ""] if skipped else []
    return "\n".join(out)


def _best(rows, ours: bool) -> str:
    """The row ranking first by recall, then IoU, at the token budget, among chunktui's or the peers'."""
    pick = [r for r in rows if r[2].startswith("chunktui") == ours]
    if not pick:
        return "none ran"
    r = max(pick, key=lambda r: (r[6]["recall@budget"], r[6]["iou@budget"]))
    return f"{r[2]} {r[3]} (recall {r[6]['recall@budget']:.3f}, IoU {r[6]['iou@budget']:.3f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="write bench/RETRIEVAL_BENCHMARKS.md")
    args = ap.parse_args()
    text = render(*measure())
    print(text)
    if args.write:
        (ROOT / "bench" / "RETRIEVAL_BENCHMARKS.md").write_text(text)


if __name__ == "__main__":
    main()
