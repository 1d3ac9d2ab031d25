"""The typed strategy contract: every registered `run` takes (doc, params, ctx) and proposes
spans, on each sample document its kinds accept."""

from __future__ import annotations

import inspect
from pathlib import Path

from chunktui.engine import load_document
from chunktui.engine.core.model import Span, SpanTable
from chunktui.engine.strategies import Context, Proposal, RunContext, all_strategies

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"


def test_the_engine_context_is_a_run_context():
    assert isinstance(Context(), RunContext)


def test_every_run_takes_doc_params_ctx_and_proposes_spans():
    docs = [load_document(p) for p in sorted(SAMPLES.iterdir()) if p.is_file()]
    for strategy in all_strategies():
        inspect.signature(strategy.run).bind(docs[0], strategy.defaults(), Context())
        doc = next(d for d in docs if not strategy.kinds or d.kind in strategy.kinds)
        proposal = strategy.run(doc, strategy.validate({}), Context())
        assert isinstance(proposal, Proposal), strategy.name
        assert isinstance(proposal.spans, (list, SpanTable)), strategy.name
        assert all(isinstance(s, Span) for s in proposal.spans), strategy.name
