"""Parameter sweep: run a grid of strategy x size x overlap and score every cell.

Cells run in worker processes (tokenizing a large document is CPU-bound, threads would
share one core); the document crosses to each worker once, through the pool
initializer, instead of being pickled with every cell. Small jobs (few cells, or a
short document) run in-process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from ..readers.documents import Document
from ..core.errors import Cancelled, ChunktuiError, ParamError
from .quality import DEFAULT_BUDGET, DEFAULT_MIN_TOKENS, FLAG_NAMES, Structure, assess, scan_structure
from .bm25 import document_tokens
from .retrieval import TOKEN_BUDGET, chunks_key, evaluate_retrieval
from ..run import chunk_document
from ..strategies import get_strategy, parse_int
from ..core.tokens import DEFAULT_TOKENIZER

DEFAULT_WORKERS = 2
IN_PROCESS_BELOW = 4  # cells; fewer than this run without a pool
SMALL_WORK = 2_000_000  # document chars x cells below which starting workers costs more than it saves


@dataclass(frozen=True)
class Cell:
    """One configuration's outcome, in the shape of `chunktui sweep --format json`."""

    strategy: str
    size: int | float | None
    overlap: int | float | None
    count: int
    median_tokens: float
    p95_tokens: float
    over_budget_pct: float
    flags: dict[str, int]
    score: float
    recall: float | None = None  # retrieval means at the token budget, when the sweep has queries
    iou: float | None = None

    def to_dict(self) -> dict:
        out = {
            "strategy": self.strategy,
            "size": self.size,
            "overlap": self.overlap,
            "count": self.count,
            "median_tokens": self.median_tokens,
            "p95_tokens": self.p95_tokens,
            "over_budget_pct": self.over_budget_pct,
            "flags": dict(self.flags),
            "score": self.score,
        }
        if self.recall is not None:
            out.update(recall=self.recall, iou=self.iou)
        return out

    def params(self) -> dict:
        """The size/overlap values this cell set, keyed by the strategy's own param names."""
        return cell_params(self.strategy, self.size, self.overlap)


@dataclass(frozen=True)
class Skipped:
    strategy: str
    size: int | float | None
    overlap: int | float | None
    reason: str


@dataclass
class SweepResult:
    cells: list[Cell] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    retrieve_tokens: int = TOKEN_BUDGET  # the budget of the cells' recall and iou, when they have them

    def best(self, by: str = "score") -> Cell | None:
        """The cell with the highest `by` (score, recall or iou); the first of equals."""
        return max(self.cells, key=lambda c: getattr(c, by), default=None)


MAX_VALUES = 1_000  # values in one --size or --overlap range
MAX_CELLS = 2_000  # configurations in one sweep: each chunks the whole document


def parse_range(spec: str, name: str = "size") -> list[int]:
    """`200:2000:200` (inclusive), `200,400,800`, or a single number -> sorted unique ints.

    Numbers are ASCII digits with an optional sign, as every parameter takes them; a range is
    counted before it is built, so `1:100000000:1` is refused without making its values.
    """
    spec = str(spec)
    try:
        if ":" in spec:
            parts = [parse_int(p) for p in spec.split(":")]
            if len(parts) not in (2, 3):
                raise ValueError
            lo, hi = parts[0], parts[1]
            step = parts[2] if len(parts) == 3 else max(1, (hi - lo) // 9 or 1)
            if step <= 0 or hi < lo:
                raise ParamError(name, f"range {spec!r} needs start <= stop and a positive step")
            values: Sequence[int] = range(lo, hi + 1, step)
        else:
            values = [parse_int(p) for p in spec.split(",") if p]
    except ValueError:
        raise ParamError(name, f"expected START:STOP[:STEP] or comma-separated whole numbers, got {spec!r}") from None
    if not values:
        raise ParamError(name, f"no values in {spec!r}")
    if len(values) > MAX_VALUES:
        raise ParamError(name, f"{spec!r} makes {len(values):,} values; at most {MAX_VALUES:,}")
    return sorted(set(values))


def count_cells(strategies, sizes, overlaps) -> int:
    """How many configurations the grid holds, counted before any is planned."""
    total = 0
    for name in strategies:
        strat = get_strategy(name)
        total += (len(sizes) if strat.size_param else 1) * (len(overlaps) if strat.overlap_param else 1)
    return total


def cell_params(strategy: str, size, overlap) -> dict:
    strat = get_strategy(strategy)
    out = {}
    if strat.size_param and size is not None:
        out[strat.size_param] = size
    if strat.overlap_param and overlap is not None:
        out[strat.overlap_param] = overlap
    return out


def resolve_strategies(doc: Document, names) -> tuple[list[str], list[str]]:
    """Canonical names with `auto` replaced by the strategy it picks for `doc` (auto has no size
    or overlap to sweep), and notes saying so."""
    from ..strategies.auto import pick_strategy

    out, notes = [], []
    for name in names:
        strat = get_strategy(name)
        if strat.delegates:
            picked, why = pick_strategy(doc)
            notes.append(f"auto: sweeping {picked} (auto picks it because {why})")
            strat = get_strategy(picked)
        if strat.name not in out:
            out.append(strat.name)
    return out, notes


def plan_grid(strategies, sizes, overlaps, base_params: dict | None = None):
    """(strategy, size, overlap, params) for every valid cell, and the skipped ones with why."""
    cells, skipped = [], []
    for name in strategies:
        strat = get_strategy(name)
        size_values = sizes if strat.size_param else [None]
        overlap_values = overlaps if strat.overlap_param else [None]
        for size in size_values:
            for overlap in overlap_values:
                params = strat.canonical({k: v for k, v in (base_params or {}).items() if strat.param(k) is not None})
                params.update(cell_params(strat.name, size, overlap))
                try:
                    strat.validate(params)
                except ParamError as exc:
                    skipped.append(Skipped(strat.name, size, overlap, str(exc)))
                    continue
                cells.append((strat.name, size, overlap, params))
    return cells, skipped


def evaluate(
    doc: Document,
    strategy: str,
    size,
    overlap,
    params: dict,
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    budget: int = DEFAULT_BUDGET,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    structure: Structure | None = None,
    is_cancelled=None,
    queries=None,
    retrieve_tokens: int = TOKEN_BUDGET,
    memo: dict | None = None,
    context_header: str = "none",
) -> Cell:
    """Chunk and assess one configuration: exactly what a sweep cell holds. With `queries`, the
    cell also holds mean recall and IoU over the top chunks within `retrieve_tokens` embedded
    tokens (a budget, so that bigger chunks cannot buy recall with size). `memo` keeps them by
    the chunks' spans and embedded texts, so cells that chunk alike are evaluated once."""
    cs = chunk_document(
        doc, strategy, params, tokenizer=tokenizer, is_cancelled=is_cancelled, context_header=context_header
    )
    stats = cs.stats(budget)
    quality = assess(cs, budget, min_tokens, structure)
    retrieval = _retrieval(cs, queries, retrieve_tokens, {} if memo is None else memo) if queries else {}
    return Cell(
        strategy=strategy,
        size=size,
        overlap=overlap,
        count=stats.count,
        median_tokens=stats.tokens_median,
        p95_tokens=round(stats.tokens_p95, 2),
        over_budget_pct=round(100.0 * stats.over_budget / stats.count, 2) if stats.count else 0.0,
        flags={name: quality.score.counts[name] for name in FLAG_NAMES},
        score=quality.score.score,
        **retrieval,
    )


def _retrieval(cs, queries, retrieve_tokens: int, memo: dict) -> dict:
    """Mean recall and IoU at the token budget, evaluated once per distinct chunking in `memo`."""
    key = chunks_key(cs.chunks)
    if key not in memo:
        means = evaluate_retrieval(cs, queries, ks=(1,), budget=retrieve_tokens).means()
        memo[key] = {"recall": round(means["recall@budget"], 4), "iou": round(means["iou@budget"], 4)}
    return memo[key]


# --- worker side: the document arrives once, through the initializer -----------------------

_worker: dict = {}


def _init_worker(
    text,
    path,
    kind,
    language,
    sha256,
    tokenizer,
    budget,
    min_tokens,
    queries,
    retrieve_tokens,
    context_header,
    extraction=None,
    keep_tokens=False,
):
    """The document again in the worker; a PDF, HTML or DOCX one with its extraction, whose pages
    and gaps (a page without a text layer) every chunking there needs as much as the text."""
    if extraction is None:
        doc = Document(text=text, path=path, kind=kind, language=language, sha256=sha256)
    else:
        from ..readers import ExtractedDocument

        doc = ExtractedDocument(
            text=text, path=path, kind=kind, language=language, sha256=sha256, extraction=extraction
        )
    _set_worker(doc, tokenizer, budget, min_tokens, queries, retrieve_tokens, context_header, keep_tokens)


def _set_worker(
    doc,
    tokenizer,
    budget,
    min_tokens,
    queries=None,
    retrieve_tokens=TOKEN_BUDGET,
    context_header="none",
    keep_tokens=False,
):
    """The worker's settings. `keep_tokens`: tokenize the document for ranking now, when this
    process will rank two chunkings or more: the first would otherwise be an FTS5 table (what a
    one-off evaluation pays) and the second tokenize the document all the same."""
    if keep_tokens:
        document_tokens(doc.text)
    _worker.update(
        doc=doc,
        tokenizer=tokenizer,
        budget=budget,
        min_tokens=min_tokens,
        structure=scan_structure(doc),
        queries=queries,
        retrieve_tokens=retrieve_tokens,
        memo={},
        context_header=context_header,
    )


def _run_cell(job):
    strategy, size, overlap, params = job
    w = _worker
    try:
        return evaluate(
            w["doc"],
            strategy,
            size,
            overlap,
            params,
            tokenizer=w["tokenizer"],
            budget=w["budget"],
            min_tokens=w["min_tokens"],
            structure=w["structure"],
            queries=w["queries"],
            retrieve_tokens=w["retrieve_tokens"],
            memo=w["memo"],
            context_header=w["context_header"],
        )
    except ChunktuiError as exc:
        return Skipped(strategy, size, overlap, str(exc))


def _context():
    """fork is fastest (the tokenizer is already loaded) but unsafe once threads exist (the app)."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def sweep(
    doc: Document,
    strategies,
    sizes,
    overlaps,
    *,
    base_params: dict | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    budget: int = DEFAULT_BUDGET,
    min_tokens: int = DEFAULT_MIN_TOKENS,
    workers: int = DEFAULT_WORKERS,
    progress=None,
    is_cancelled=None,
    queries=None,
    retrieve_tokens: int = TOKEN_BUDGET,
    context_header: str = "none",
) -> SweepResult:
    """Every valid cell of the grid, in grid order; `progress(done, total)` after each cell.
    `context_header` is every cell's (see `chunk_document`).
    With `queries` (retrieval.Query), each cell also holds recall and IoU (see `evaluate`).

    Raises Cancelled when `is_cancelled()` turns true; pending cells are dropped.
    """
    strategies, notes = resolve_strategies(doc, strategies)
    for name in strategies:
        strat = get_strategy(name)
        for what, values, pname in (("size", sizes, strat.size_param), ("overlap", overlaps, strat.overlap_param)):
            if pname is None and any(v is not None for v in values):
                notes.append(f"{name} has no {what} parameter: its cells use the other values only")
    cells = count_cells(strategies, sizes, overlaps)
    if cells > MAX_CELLS:
        raise ParamError(
            "size",
            f"the grid has {cells:,} configurations ({len(strategies)} strategies x "
            f"{len(sizes)} sizes x {len(overlaps)} overlaps); at most {MAX_CELLS:,}",
        )
    jobs, skipped = plan_grid(strategies, sizes, overlaps, base_params)
    results: list = [None] * len(jobs)
    total = len(jobs)

    def check():
        if is_cancelled is not None and is_cancelled():
            raise Cancelled()

    done_count = 0

    def finished(i, r):
        nonlocal done_count
        results[i] = r
        done_count += 1
        if progress:
            progress(done_count, total)

    if workers > 1 and total >= IN_PROCESS_BELOW and len(doc.text) * total >= SMALL_WORK:
        pool = ProcessPoolExecutor(
            max_workers=min(workers, total),
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(
                doc.text,
                doc.path,
                doc.kind,
                doc.language,
                doc.sha256,
                tokenizer,
                budget,
                min_tokens,
                queries,
                retrieve_tokens,
                context_header,
                getattr(doc, "extraction", None),
                bool(queries) and total >= 2 * min(workers, total),
            ),
        )
        cancelled = False
        try:
            futures = {pool.submit(_run_cell, job): i for i, job in enumerate(jobs)}
            pending = set(futures)
            while pending:
                if is_cancelled is not None and is_cancelled():
                    cancelled = True
                    raise Cancelled()
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done:
                    finished(futures[fut], fut.result())
        except BrokenProcessPool:
            pass  # workers could not start (e.g. no importable __main__): finish in-process
        finally:
            # cancelled (Escape in the app): return now; the cells already running finish in
            # their processes, which then exit, instead of holding the caller until they do
            pool.shutdown(wait=not cancelled, cancel_futures=True)
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        # in-process: the caller's Document, its line index and scans
        _set_worker(
            doc,
            tokenizer,
            budget,
            min_tokens,
            queries,
            retrieve_tokens,
            context_header,
            bool(queries) and len(todo) >= 2,
        )
        try:
            for i in todo:
                check()
                finished(i, _run_cell(jobs[i]))
        finally:
            _worker.clear()
    out = SweepResult(skipped=list(skipped), notes=notes, retrieve_tokens=retrieve_tokens)
    for r in results:
        (out.cells if isinstance(r, Cell) else out.skipped).append(r)
    return out
