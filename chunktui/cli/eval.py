"""`chunktui eval`: retrieval metrics of one configuration on questions with known answers.

Registered by commands.py (`cli.add_command`); the retrieval itself is chunktui/engine/analysis/retrieval.py.
Nothing here imports textual or rich.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from chunktui.cli.commands import (
    CONTEXT_HEADER,
    HTML_MODE,
    PASSWORD,
    TOKENIZERS,
    SYNTHETIC_QUERIES,
    StrategyParamsCommand,
    resolve_configuration,
    warn_line,
)
from chunktui.engine.core.errors import ChunktuiError

EMBEDS = "over each chunk's embedded text"
RETRIEVER = f"BM25 (SQLite FTS5 bm25(), Porter stemming) {EMBEDS}"
UNITS = "recall, precision and IoU count characters of the union of retrieved spans against the references'"


def parse_ks(values) -> tuple[int, ...]:
    """`-k 1 -k 5` and `-k 1,3,5` both give (1, 3, 5); each a whole number >= 1, in ASCII digits
    as every number flag takes it (`²` crashed int(), `١` was read as 1)."""
    from chunktui.engine.strategies import parse_int

    ks = set()
    for value in values:
        for part in str(value).split(","):
            if not part.strip():
                continue
            try:
                k = parse_int(part.strip())
            except ValueError:
                k = 0
            if k < 1:
                raise ChunktuiError(f"-k: expected whole numbers of at least 1, got {part.strip()!r}")
            ks.add(k)
    return tuple(sorted(ks))


def resolve_config(strategy_name, profile, tokenizer, flags, context_header=None) -> tuple[str, dict, str, str]:
    """Strategy, params, tokenizer and context header from flags over a profile over the defaults,
    as `chunk` takes them."""
    name, params, tokenizer, prof = resolve_configuration(strategy_name, profile, tokenizer, flags)
    return name, params, tokenizer, context_header or (prof.context_header if prof else "none")


def load_questions(doc, queries_path, auto_n: int | None, seed: int):
    """The questions of the queries file, or `auto_n` synthetic ones; exactly one of the two."""
    from chunktui.engine.analysis.retrieval import auto_queries, load_queries

    if (queries_path is None) == (auto_n is None):
        raise ChunktuiError("--queries: give a queries file or --auto-queries N (one of the two)")
    if auto_n is None:  # then the queries file is given
        return load_queries(queries_path, doc.text)
    found = auto_queries(doc.text, auto_n, seed)
    if not found:
        raise ChunktuiError(f"--auto-queries: {doc.name} has no sentence of 8 to 60 words to ask about")
    if len(found) < auto_n:
        from chunktui.cli.plan import plural

        warn_line(f"--auto-queries: {doc.name} has only {plural(len(found), 'sentence')} of 8 to 60 words")
    return found


@click.command("eval", cls=StrategyParamsCommand)
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--queries",
    "queries_path",
    type=click.Path(path_type=Path),
    metavar="Q.jsonl|Q.csv",
    help=(
        "Questions with references ({content, start_index, end_index}, character offsets into FILE, "
        "or into the text extracted from a PDF, HTML or DOCX file)."
    ),
)
@SYNTHETIC_QUERIES
@click.option("--strategy", "-s", "strategy_name", metavar="NAME", help="Chunking strategy (default: auto).")
@click.option("--profile", type=click.Path(path_type=Path), help="YAML profile; flags override it.")
@click.option(
    "--encoding",
    "tokenizer",
    type=click.Choice(TOKENIZERS),
    default=None,
    help="Tokenizer for sizes and the token budget. [default: cl100k_base]",
)
@click.option("-k", "k_values", multiple=True, metavar="N[,N]", help="Ranks to report. [default: 1,3,5,10]")
@click.option(
    "--retrieve-tokens",
    "budget",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Budget of embedded tokens for the @budget metrics: top chunks until it is spent.",
)
@click.option(
    "--model",
    "model_path",
    type=click.Path(path_type=Path),
    metavar="FOLDER",
    help="Dense retrieval with this local model2vec model instead of BM25 (needs chunktui[dense]).",
)
@click.option("--json", "as_json", is_flag=True, help="Per-query results: retrieved chunks, spans, scores, references.")
@HTML_MODE
@PASSWORD
@CONTEXT_HEADER
def eval_command(
    file,
    queries_path,
    auto_n,
    seed,
    strategy_name,
    profile,
    tokenizer,
    k_values,
    budget,
    model_path,
    as_json,
    html_mode,
    password,
    context_header,
    **flags,
):
    """Chunk FILE, retrieve for each question with BM25 and measure against its known answers."""
    from chunktui.engine import chunk_document, load_document
    from chunktui.engine.analysis.retrieval import KS, DenseIndex, embedded_tokens, evaluate_retrieval, load_model

    ks = parse_ks(k_values) if k_values else KS
    strategy, params, tokenizer, context_header = resolve_config(
        strategy_name, profile, tokenizer, flags, context_header
    )
    model = load_model(model_path) if model_path is not None else None  # a bad model fails before any work
    doc = load_document(file, reader_options={"html": html_mode, "password": password})
    queries = load_questions(doc, queries_path, auto_n, seed)
    cs = chunk_document(doc, strategy, params, tokenizer=tokenizer, context_header=context_header)
    tokens = embedded_tokens(cs.chunks)
    index = DenseIndex(cs.chunks, model) if model is not None else None
    report = evaluate_retrieval(cs, queries, ks, budget, index=index, tokens=tokens)
    retriever = RETRIEVER if model is None else f"dense: cosine of model2vec embeddings ({model_path}) {EMBEDS}"
    if as_json:
        click.echo(json.dumps(report_json(cs, report, tokens, retriever), indent=2, ensure_ascii=False, default=str))
    else:
        click.echo("\n".join(report_lines(cs, report, auto_n is not None, seed, retriever)))


def report_json(cs, report, tokens, retriever: str = RETRIEVER) -> dict:
    """Everything a reader needs to recompute each number: spans, scores, token counts, references."""
    text = cs.document.text
    chunks = cs.chunks
    synthetic = any(r.query.synthetic for r in report.results)
    return {
        "file": cs.document.path or cs.document.name,
        "strategy": cs.strategy,
        "params": cs.params,
        "tokenizer": cs.tokenizer,
        "context_header": cs.context_header,
        "chunks": len(chunks),
        "retriever": retriever,
        "units": UNITS,
        "ks": list(report.ks),
        "retrieve_tokens": report.budget,
        "synthetic": synthetic,
        "means": report.means(),
        "queries": [
            {
                "question": r.query.question,
                "synthetic": r.query.synthetic,
                "references": [ref.to_dict(text) for ref in r.query.references],
                "retrieved": [
                    {
                        "id": chunks[p].id,
                        "start": chunks[p].start,
                        "end": chunks[p].end,
                        "score": score,
                        "embedded_tokens": tokens[p],
                    }
                    for p, score in r.ranked
                ],
                "metrics": r.metrics,
            }
            for r in report.results
        ],
    }


def report_lines(cs, report, synthetic: bool, seed: int, retriever: str = RETRIEVER) -> list[str]:
    """The metrics' means as a table: one row per metric, one column per k and the budget."""
    from chunktui.cli.plan import plural

    means = report.means()
    n = len(report.results)
    what = (
        f"{plural(n, 'synthetic question')} (--auto-queries, seed {seed}; a smoke test, not a benchmark)"
        if synthetic
        else plural(n, "question")
    )
    cols = [f"@{k}" for k in report.ks] + ["@budget"]
    head = ["", *[f"k={k}" for k in report.ks], f"{report.budget:,} tok"]
    rows = [head] + [
        [name, *[f"{means[name + c]:.3f}" for c in cols]] for name in ("recall", "precision", "iou", "hit")
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        f"{cs.document.name}: {cs.strategy} ({_params(cs.params)}), {len(cs.chunks):,} chunks, {what}",
        f"  retriever: {retriever}",
    ]
    lines += [
        "  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows
    ]
    lines.append(f"  MRR@{max(report.ks)} {means['mrr']:.3f}")
    lines.append(
        f"  means over the questions; {UNITS}; hit = any reference character retrieved; "
        f"{report.budget:,} tok = top chunks until {report.budget:,} embedded {cs.tokenizer} tokens"
    )
    return lines


def _params(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"
