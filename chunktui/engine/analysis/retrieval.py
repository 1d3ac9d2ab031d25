"""Retrieval evaluation: do questions with known answers find the chunks that hold them?

A queries file gives each question its references: character ranges of the document
(the `{content, start_index, end_index}` of published chunking-evaluation datasets such
as Chroma's). Every chunk's embedded text goes into a BM25 index; each question
retrieves a ranked list of chunks, and the metrics compare the characters those chunks
cover with the reference characters, from exact offsets: recall, precision and IoU at
k and at a budget of embedded tokens, hit@k and MRR.

Optional dense retrieval (`DenseIndex`) ranks by the cosine of model2vec embeddings from a
local model folder, never a download.

The default retriever is BM25 exactly as SQLite's FTS5 ranks with `bm25()` (Porter stemming,
Unicode words): an FTS5 table for the first chunking of a document (`bm25.Fts5Index`), then, from
the second chunking of it on, `bm25.BM25Index`, the same scores computed in Python over the
document's tokens kept from one chunking to the next, so that a sweep cell or the app's live
recall re-tokenizes only what is not a span of the document (a word cut by a chunk's edge, a
context header, a context text). tests/test_bm25.py compares every score with FTS5's. bm25s was 1.8x slower than FTS5 with another ranking (no stemming, Lucene's idf).
Figures in docs/retrieval.md (Speed).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import ChunktuiError
from .bm25 import BM25Index, Fts5Index, bm25_index
from .bm25 import fts5_query as fts5_query  # where formats/sqlite.py and the tests import it

KS = (1, 3, 5, 10)
TOKEN_BUDGET = 1000  # embedded tokens retrieved for the budget metrics
_WORD = re.compile(r"\w+")


def embedded_text(chunk) -> str:
    """What an embedding model receives for `chunk` (its embed_text: the context text where the
    strategy makes one, else its text, after the run's context header). Everything here
    retrieves and counts over this."""
    return chunk.embed_text


class QueryFileError(ChunktuiError):
    """A queries file cannot be used: the message names the file, the query and the problem."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


@dataclass(frozen=True)
class Reference:
    """A character range [start, end) of the document that answers a question."""

    start: int
    end: int

    def to_dict(self, text: str) -> dict:
        return {"content": text[self.start : self.end], "start_index": self.start, "end_index": self.end}


@dataclass(frozen=True)
class Query:
    question: str
    references: tuple[Reference, ...]
    synthetic: bool = False


# --- queries files -----------------------------------------------------------------------------


def load_queries(path, text: str) -> list[Query]:
    """Read a CSV or JSONL queries file against the document text; any problem raises
    QueryFileError naming the file and the query (1-based, in file order)."""
    from ..readers.documents import read_file_bytes
    from ..core.errors import DocumentError

    p = Path(path)
    try:  # the reader every file goes through: a FIFO or a device is refused, not waited on
        raw = read_file_bytes(p, what="a queries file").decode("utf-8-sig")
    except DocumentError as exc:
        raise QueryFileError(p, exc.problem) from None
    except UnicodeDecodeError as exc:
        raise QueryFileError(p, f"cannot be read ({type(exc).__name__})") from None
    rows = _rows(p, raw)
    if not rows:
        raise QueryFileError(p, "no queries in the file (empty)")
    return [_query(p, n, row, text) for n, row in enumerate(rows, 1)]


def _rows(path: Path, raw: str) -> list[dict]:
    """CSV by its suffix; else a JSON array when the text starts with `[`, else JSON lines
    (by suffix, or when the text starts with `{`); anything else is read as CSV."""
    head = raw.lstrip()[:1]
    if path.suffix.lower() == ".csv":
        return _csv_rows(path, raw)
    if head == "[":
        return _json_array_rows(path, raw)
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json") or head == "{":
        return _jsonl_rows(path, raw)
    return _csv_rows(path, raw)


def _json_array_rows(path: Path, raw: str) -> list[dict]:
    try:
        rows = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise QueryFileError(path, f"line {exc.lineno}: not JSON ({exc.msg})") from None
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise QueryFileError(path, f"query {n}: a query is a JSON object with question and references")
    return rows


def _jsonl_rows(path: Path, raw: str) -> list[dict]:
    rows = []
    for line_no, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QueryFileError(path, f"line {line_no}: not JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise QueryFileError(path, f"line {line_no}: a query is a JSON object with question and references")
        rows.append(row)
    return rows


def _csv_rows(path: Path, raw: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(raw))
    if not raw.strip():
        return []
    missing = [c for c in ("question", "references") if c not in (reader.fieldnames or [])]
    if missing:
        raise QueryFileError(path, f"the CSV header lacks {' and '.join(missing)} (columns: question, references)")
    rows = []
    for n, row in enumerate(reader, 1):
        refs = row.get("references") or ""
        try:
            row["references"] = json.loads(refs)
        except json.JSONDecodeError:
            raise QueryFileError(path, f"query {n}: references is not a JSON list ({refs[:40]!r})") from None
        rows.append(row)
    return rows


def _query(path: Path, n: int, row: dict, text: str) -> Query:
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise QueryFileError(path, f"query {n}: no question")
    refs = row.get("references")
    if not isinstance(refs, list) or not refs:
        raise QueryFileError(path, f"query {n} ({_short(question)}): references must be a non-empty list")
    where = f"query {n} ({_short(question)})"
    return Query(
        question, tuple(_reference(path, f"{where}: reference {i}", ref, text) for i, ref in enumerate(refs, 1))
    )


def _reference(path: Path, where: str, ref, text: str) -> Reference:
    if not isinstance(ref, dict):
        raise QueryFileError(path, f"{where}: not an object with content, start_index, end_index")
    content = ref.get("content")
    start, end = ref.get("start_index"), ref.get("end_index")
    if start is None and end is None:
        return _locate(path, where, content, text)
    if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
        raise QueryFileError(path, f"{where}: start_index and end_index must both be whole numbers")
    if not 0 <= start < end <= len(text):
        raise QueryFileError(
            path, f"{where}: offsets {start}..{end} lie outside the file (0..{len(text)} characters) or are empty"
        )
    if content is not None and text[start:end] != content:
        raise QueryFileError(
            path, f"{where}: content does not match the text at {start}..{end} ({_short(text[start:end])} in the file)"
        )
    return Reference(start, end)


def _locate(path: Path, where: str, content, text: str) -> Reference:
    """A reference given by content alone: it must occur exactly once."""
    if not isinstance(content, str) or not content:
        raise QueryFileError(path, f"{where}: neither offsets nor content")
    first = text.find(content)
    if first < 0:
        raise QueryFileError(path, f"{where}: content not found in the file ({_short(content)})")
    if text.find(content, first + 1) >= 0:
        raise QueryFileError(
            path,
            f"{where}: content is ambiguous, found {text.count(content)} times "
            f"({_short(content)}); give start_index and end_index",
        )
    return Reference(first, first + len(content))


def _short(s: str, width: int = 40) -> str:
    """A quoted, one-line excerpt (repr escapes newlines) for an error message."""
    return repr(s if len(s) <= width else s[: width - 1] + "…")


# --- synthetic questions -----------------------------------------------------------------------

# a sentence ends at . ! or ? before a space or the end, or at a blank line ("harbor.yaml" goes on)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?!\s|$)|\n(?![ \t]*\n))+(?:[.!?](?=\s|$))?")


def auto_queries(text: str, n: int, seed: int = 0) -> list[Query]:
    """`n` synthetic questions: a sentence of 8 to 60 words (no sentence twice) is the
    reference, and the question is a seeded random half of its words longer than three
    letters, in order. They test whether chunks keep a sentence whole and findable; they are
    no benchmark."""
    candidates = []
    for m in _SENTENCE.finditer(text):
        body = m.group()
        words = _WORD.findall(body)
        if 8 <= len(words) <= 60:
            lead, trail = len(body) - len(body.lstrip()), len(body) - len(body.rstrip())
            candidates.append((m.start() + lead, m.end() - trail, words))
    rng = random.Random(seed)
    picked = rng.sample(candidates, min(n, len(candidates)))
    picked.sort(key=lambda c: c[0])
    out = []
    for start, end, words in picked:
        content = [w for w in words if len(w) > 3] or words
        keep = sorted(rng.sample(range(len(content)), max(1, len(content) // 2)))
        out.append(Query(" ".join(content[i] for i in keep), (Reference(start, end),), synthetic=True))
    return out


# --- the retriever -----------------------------------------------------------------------------


class DenseIndex:
    """Cosine similarity of model2vec embeddings (the optional `dense` extra) of the chunks'
    embedded texts. The model is loaded from a local folder only: a name that is not a folder
    is refused rather than looked up on the Hugging Face hub. Ties go to the earlier chunk."""

    def __init__(self, chunks, model):
        """`model`: what `load_model` gives."""
        self.keys = [(c.start, c.end) for c in chunks]
        self.model = model
        self.vectors = self.model.encode([embedded_text(c) for c in chunks]) if chunks else None

    def search(self, question: str) -> list[tuple[int, float]]:
        """Every chunk, best first: a dense retriever ranks them all."""
        if self.vectors is None:
            return []
        scores = (self.vectors @ self.model.encode([question])[0]).tolist()
        keys = self.keys
        return sorted(((i, s) for i, s in enumerate(scores)), key=lambda hit: (-hit[1], keys[hit[0]]))

    def close(self) -> None:
        pass


def load_model(model_path):
    """A model2vec StaticModel from a local folder (normalized vectors, so dot = cosine)."""
    path = Path(model_path)
    if not path.is_dir():
        raise ChunktuiError(f"--model: {path}: no such folder (a local model2vec model; nothing is downloaded)")
    try:
        from model2vec import StaticModel
    except ImportError:
        raise ChunktuiError("--model: dense retrieval needs model2vec (pip install 'chunktui[dense]')") from None
    try:
        return StaticModel.from_pretrained(str(path), normalize=True)
    except Exception as exc:  # whatever a broken folder raises (missing file, bad JSON, bad tensors)
        raise ChunktuiError(f"--model: {path}: not a readable model2vec model ({type(exc).__name__})") from None


# --- metrics ----------------------------------------------------------------------------------


def merge(spans) -> list[tuple[int, int]]:
    """The union of half-open ranges as sorted, disjoint ranges."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _length(merged) -> int:
    return sum(e - s for s, e in merged)


def _overlap(a, b) -> int:
    """Characters in both unions (each sorted and disjoint)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_metrics(retrieved, references) -> dict:
    """recall, precision, IoU and hit of retrieved character ranges against reference ranges,
    all over characters: recall = |R ∩ G| / |G|, precision = |R ∩ G| / |R|, IoU = |R ∩ G| / |R ∪ G|
    with R the union of retrieved spans and G the union of reference spans."""
    r, g = merge(retrieved), merge(references)
    both, rl, gl = _overlap(r, g), _length(r), _length(g)
    union = rl + gl - both
    return {
        "recall": both / gl if gl else 0.0,
        "precision": both / rl if rl else 0.0,
        "iou": both / union if union else 0.0,
        "hit": 1.0 if both else 0.0,
    }


def reciprocal_rank(retrieved, references) -> float:
    """1 / the rank of the first retrieved span holding any reference character, else 0."""
    g = merge(references)
    for rank, span in enumerate(retrieved, 1):
        if _overlap([span], g):
            return 1.0 / rank
    return 0.0


def within_budget(tokens, budget: int) -> int:
    """How many of the ranked chunks fit in `budget` embedded tokens, taken in rank order and
    stopping at the first that would pass it (a first chunk over the budget retrieves nothing)."""
    used = 0
    for n, t in enumerate(tokens):
        if used + t > budget:
            return n
        used += t
    return len(tokens)


# --- evaluation -------------------------------------------------------------------------------


@dataclass
class QueryResult:
    query: Query
    ranked: list[tuple[int, float]]  # (chunk position, score), best first, as many as the metrics read
    metrics: dict  # "recall@5", "iou@budget", "mrr", ...


@dataclass
class RetrievalReport:
    ks: tuple[int, ...]
    budget: int
    results: list[QueryResult] = field(default_factory=list)

    def names(self) -> list[str]:
        suffixes = [f"@{k}" for k in self.ks] + ["@budget"]
        return [f"{m}{s}" for m in ("recall", "precision", "iou", "hit") for s in suffixes] + ["mrr"]

    def means(self) -> dict:
        """Each metric averaged over the questions (macro mean)."""
        n = len(self.results)
        return {name: (sum(r.metrics[name] for r in self.results) / n if n else 0.0) for name in self.names()}


def embedded_tokens(chunks) -> list[int]:
    """Each chunk's exact token count of its embedded text, counted by the run (embed_tokens)."""
    return [c.embed_tokens for c in chunks]


def chunks_key(chunks) -> bytes:
    """A digest of the chunks' spans and embedded texts, for chunkings of one document: two with
    the same key retrieve alike, so a sweep evaluates the second one's cell from the first. A
    span's text is the document's, so only the embedded texts that are not their span's go in
    (hashing every text cost a sweep of 1 MB 3.5 ms a cell)."""
    digest = hashlib.sha256(array("q", [len(chunks)]).tobytes())
    digest.update(array("q", [x for c in chunks for x in (c.start, c.end)]).tobytes())
    for i, c in enumerate(chunks):
        embedded = embedded_text(c)
        if embedded is not c.text and embedded != c.text:
            digest.update(f"{i}:{len(embedded)}:".encode())
            digest.update(embedded.encode("utf-8", "surrogatepass"))
    return digest.digest()


def evaluate_retrieval(
    chunkset,
    queries,
    ks=KS,
    budget: int = TOKEN_BUDGET,
    index: BM25Index | Fts5Index | DenseIndex | None = None,
    tokens: list[int] | None = None,
) -> RetrievalReport:
    """Retrieve for every query over `chunkset`'s embedded texts and measure against its references."""
    chunks = list(chunkset.chunks)
    ks = tuple(sorted(set(ks)))
    own = index is None
    index = index or bm25_index(chunks, chunkset.document.text)
    tokens = tokens if tokens is not None else embedded_tokens(chunks)
    report = RetrievalReport(ks, budget)
    if isinstance(index, BM25Index):
        index.prepare(q.question for q in queries)
    try:
        for q in queries:
            ranked = _ranked(index.search(q.question), tokens, max(ks), budget)
            report.results.append(QueryResult(q, ranked, _metrics(chunks, tokens, ranked, q, ks, budget)))
    finally:
        if own:
            index.close()
    return report


def _ranked(hits, tokens, k_max: int, budget: int) -> list[tuple[int, float]]:
    """The head of the ranking the metrics need: k_max chunks, and on until the budget is spent."""
    out: list[tuple[int, float]] = []
    used = 0
    for pos, score in hits:
        if len(out) >= k_max and used + tokens[pos] > budget:
            break
        out.append((pos, score))
        used += tokens[pos]
    return out


def _metrics(chunks, tokens, ranked, q: Query, ks, budget: int) -> dict:
    spans = [(chunks[p].start, chunks[p].end) for p, _ in ranked]
    refs = [(r.start, r.end) for r in q.references]
    out = {}
    cut = within_budget([tokens[p] for p, _ in ranked], budget)
    for suffix, n in [(f"@{k}", k) for k in ks] + [("@budget", cut)]:
        for name, value in span_metrics(spans[:n], refs).items():
            out[name + suffix] = value
    out["mrr"] = reciprocal_rank(spans[: max(ks)], refs)
    return out
