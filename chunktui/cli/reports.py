"""What `chunktui sweep`, `chunktui compare`, `chunk --facts` and the dry-run quality line print.

Kept apart from commands.py so the click wiring there stays thin; nothing here imports
textual, and rich only for the sweep's progress bar on stderr.
"""

from __future__ import annotations

import csv
import io
import json

from chunktui.engine.core.errors import ChunktuiError, ParamError

SHOWN_LINES = 12  # boundary lines listed per side in `compare`


def quality_line(cs, budget: int) -> str:
    """The dry-run plan's quality line: score, warning flag counts, flagged share, spread."""
    from chunktui.engine.analysis.quality import assess

    return f"  quality    {assess(cs, budget).summary()}"


def facts_lines(cs, phrases) -> list[str]:
    from chunktui.engine.analysis.facts import check_facts

    return [f.line() for f in check_facts(cs, phrases)]


def parse_strategies(values) -> list[str]:
    """`-s a -s b` and `-s a,b` both give [a, b], canonical names, no repeats."""
    from chunktui.engine import get_strategy

    names: list[str] = []
    for value in values:
        for part in str(value).split(","):
            if part.strip():
                name = get_strategy(part.strip()).name
                if name not in names:
                    names.append(name)
    return names


def run_sweep(
    path,
    strategies,
    size_spec,
    overlap_spec,
    *,
    base_params,
    budget,
    min_tokens,
    tokenizer,
    workers,
    progress=None,
    queries=(None, 1000),
    auto_queries=(None, 0),
    context_header="none",
    reader_options=None,
):
    """Load the document (a PDF, HTML or DOCX file with `reader_options`), check the grid and run
    it; bad input raises a ChunktuiError. With `queries` = (a queries file, retrieve tokens), or
    `auto_queries` = (N, seed) for N synthetic questions instead of the file, each cell also gets
    recall and IoU."""
    from chunktui.engine import get_strategy, load_document
    from chunktui.engine.analysis.sweep import parse_range, resolve_strategies, sweep

    sizes = parse_range(size_spec, "size") if size_spec else [None]
    overlaps = parse_range(overlap_spec, "overlap") if overlap_spec else [None]
    doc = load_document(path, reader_options=reader_options)
    queries_path, retrieve_tokens = queries
    auto_n, seed = auto_queries
    if queries_path is not None or auto_n is not None:
        from chunktui.cli.eval import load_questions

        queries = load_questions(doc, queries_path, auto_n, seed)
    else:
        queries = None
    names, _ = resolve_strategies(doc, strategies)
    strats = [get_strategy(s) for s in names]
    for key in base_params:
        if not any(s.param(key) for s in strats):
            raise ParamError(key, f"not a parameter of {', '.join(s.name for s in strats)}")
    result = sweep(
        doc,
        list(strategies),
        sizes,
        overlaps,
        base_params=base_params,
        tokenizer=tokenizer,
        budget=budget,
        min_tokens=min_tokens,
        workers=workers,
        progress=progress,
        queries=queries,
        retrieve_tokens=retrieve_tokens,
        context_header=context_header,
    )
    if auto_n is not None and queries:
        from chunktui.cli.plan import plural

        result.notes.append(
            f"--auto-queries: recall and iou are over {plural(len(queries), 'synthetic question')} "
            f"made from {doc.name}'s own sentences (seed {seed}): a smoke test, not a benchmark"
        )
    if not result.cells:
        first = result.skipped[0].reason if result.skipped else "empty grid"
        if size_spec and not overlap_spec and first.startswith("--overlap"):
            first += "; the strategy's default overlap: give overlaps with --overlap"
        raise ChunktuiError(f"{doc.name}: no valid cell in the sweep grid ({first})")
    result.cells = [_with_defaults(c, base_params) for c in result.cells]
    return doc, result


def _with_defaults(cell, base_params: dict):
    """`cell` with a size or overlap that came from the strategy's default shown as that default
    (in the unit `base_params` set when the cell sets no size), not None."""
    from dataclasses import replace

    from chunktui.engine import get_strategy
    from chunktui.engine.analysis.sweep import cell_params

    strat = get_strategy(cell.strategy)
    given = {k: v for k, v in base_params.items() if strat.param(k) is not None}
    defaults = strat.defaults(given | cell_params(strat.name, cell.size, cell.overlap))
    filled = {}
    for key, pname in (("size", strat.size_param), ("overlap", strat.overlap_param)):
        if getattr(cell, key) is None and pname:
            filled[key] = defaults[pname]
    return replace(cell, **filled)


# the recommendation's reason: retrieval metrics, where there are queries, lead the score
RANK_NOTES = {
    "recall": "ranked by recall: what retrieves leads, the score and its flags explain",
    "iou": "ranked by IoU: what retrieves leads, the score and its flags explain",
    "score": "ranked by the score of structural flags (--rank-by recall ranks by what retrieves)",
    "no queries": "no queries, so the score of structural flags ranks (--queries adds recall, which then leads)",
}


def sweep_output(result, fmt: str, rank_by: str = "score", synthetic_seed: int | None = None) -> str:
    """The sweep as JSON (`{"cells": [...]}`), CSV (flag_<name> columns) or an aligned table;
    ranked by `rank_by` (best first) unless that is the score, which keeps the grid order.
    `synthetic_seed`: the questions were --auto-queries' with that seed, which the JSON (its
    `synthetic` and `seed`) and the table's last line say (and, in every format, `run_sweep`'s note)."""
    from chunktui.engine.analysis.quality import FLAG_NAMES

    rows = [c.to_dict() for c in result.cells]
    retrieval = "recall" in rows[0]
    if rank_by != "score":
        if not retrieval:
            raise ChunktuiError(f"--rank-by: {rank_by} needs --queries or --auto-queries")
        rows.sort(key=lambda r: -r[rank_by])  # stable: equals keep their grid order
    if fmt == "json":
        labels = {"synthetic": True, "seed": synthetic_seed} if synthetic_seed is not None else {}
        return json.dumps({"cells": rows, **labels}, indent=2)
    columns = ["strategy", "size", "overlap", "count", "median_tokens", "p95_tokens", "over_budget_pct", "score"]
    columns += ["recall", "iou"] if retrieval else []
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns + [f"flag_{f}" for f in FLAG_NAMES])
        for r in rows:
            writer.writerow([r[k] for k in columns] + [r["flags"][f] for f in FLAG_NAMES])
        return out.getvalue().rstrip("\n")
    flags = [f for f in FLAG_NAMES if any(r["flags"][f] for r in rows)]
    best = max(r[rank_by] for r in rows)
    star = lambda r, key, text: text + (" *" if key == rank_by and r[key] == best else "")
    head = (
        ["strategy", "size", "overlap", "chunks", "median", "p95", "over%", "score"]
        + (["recall", "iou"] if retrieval else [])
        + ["overlap_off" if f == "overlap" else f for f in flags]
    )
    table = [head]
    for r in rows:
        table.append(
            [
                r["strategy"],
                _num(r["size"]),
                _num(r["overlap"]),
                str(r["count"]),
                _num(r["median_tokens"]),
                _num(r["p95_tokens"]),
                f"{r['over_budget_pct']:.1f}",
                star(r, "score", f"{r['score']:.1f}"),
            ]
            + ([star(r, k, f"{r[k]:.3f}") for k in ("recall", "iou")] if retrieval else [])
            + [str(r["flags"][f]) for f in flags]
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in table
    ]
    lines.append(
        f"* best {rank_by}; "
        + RANK_NOTES[rank_by if retrieval else "no queries"]
        + "; tokens are embedded tokens, median/p95 per chunk; flag columns count warnings"
        + (
            f"; recall and iou: means over the {_questions(synthetic_seed)} of the top chunks within "
            f"{result.retrieve_tokens:,} embedded tokens (BM25, characters)"
            if retrieval
            else ""
        )
    )
    return "\n".join(lines)


def _questions(synthetic_seed: int | None) -> str:
    """What the recall and IoU are over, synthetic questions labelled as such."""
    if synthetic_seed is None:
        return "queries"
    return f"synthetic questions (--auto-queries, seed {synthetic_seed}; a smoke test, not a benchmark)"


def _num(v) -> str:
    if v is None:
        return "-"
    return f"{v:g}" if isinstance(v, float) else str(v)


def compare_lines(
    path,
    profile_a,
    profile_b,
    budget: int,
    as_json: bool = False,
    context_header: str | None = None,
    reader_options: dict | None = None,
) -> list[str]:
    """Run both profiles on the document (a PDF, HTML or DOCX file with `reader_options`) and
    describe where their boundaries differ; `context_header`, when given, is both runs' (else
    each profile's)."""
    from chunktui.engine import chunk_document, load_document
    from chunktui.engine.analysis.compare import compare
    from chunktui.engine.analysis.quality import FLAG_NAMES
    from chunktui.formats.profiles import load_profile

    pa, pb = load_profile(profile_a), load_profile(profile_b)
    doc = load_document(path, reader_options=reader_options)
    a = chunk_document(
        doc, pa.strategy, pa.params, tokenizer=pa.tokenizer, context_header=context_header or pa.context_header
    )
    b = chunk_document(
        doc, pb.strategy, pb.params, tokenizer=pb.tokenizer, context_header=context_header or pb.context_header
    )
    cmp = compare(a, b, budget)
    if as_json:
        summary = lambda s: {
            "config": s.name,
            "stats": s.stats.to_dict(),
            "score": s.quality.score.score,
            "flags": s.quality.score.counts,
            "boundaries": s.boundaries,
        }
        return [
            json.dumps(
                {
                    "a": summary(cmp.a),
                    "b": summary(cmp.b),
                    "boundaries": [
                        {"offset": x.offset, "line": x.line, "side": x.side, "cut": x.cut} for x in cmp.boundaries
                    ],
                },
                indent=2,
            )
        ]
    rows = [("config", cmp.a.name, cmp.b.name), ("tokenizer", a.tokenizer, b.tokenizer)]
    for label, get in (
        ("chunks", lambda s: s.stats.count),
        ("median tokens", lambda s: f"{s.stats.tokens_median:g}"),
        ("p95 tokens", lambda s: f"{s.stats.tokens_p95:g}"),
        (f"over {budget}", lambda s: s.stats.over_budget),
        ("coverage", lambda s: f"{s.stats.coverage:.1%}"),
        ("boundaries", lambda s: s.boundaries),
        ("score", lambda s: f"{s.quality.score.score:g}"),
    ):
        rows.append((label, str(get(cmp.a)), str(get(cmp.b))))
    for name in FLAG_NAMES:
        ca, cb = cmp.a.quality.score.counts[name], cmp.b.quality.score.counts[name]
        if ca or cb:
            rows.append((f"  {name}", str(ca), str(cb)))
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines = [f"{doc.path or doc.name}: A = {profile_a}, B = {profile_b}"]
    lines += [f"  {r[0].ljust(w0)}  {r[1].ljust(w1)}  {r[2]}" for r in rows]
    for title, side in (("only in A", "a"), ("only in B", "b"), ("in both", "both")):
        marks = sorted({x.cut for x in cmp.boundaries if x.side == side})  # the lines of its cuts
        count = cmp.cuts(side)
        more = f" … (+{len(marks) - SHOWN_LINES})" if len(marks) > SHOWN_LINES else ""
        lines.append(
            f"  {title + ':':<11}{count:>4} boundaries"
            + (f" at lines {', '.join(map(str, marks[:SHOWN_LINES]))}{more}" if marks else "")
        )
    lines.append(cmp.summary())
    return lines
