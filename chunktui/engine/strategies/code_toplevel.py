"""`code-toplevel`: one chunk per top-level definition (autowiki); the preamble joins the first."""

from __future__ import annotations

from . import Strategy, register
from .code import CONTEXT_MODE, LANGUAGE, SIBLING_DETAIL


def run(doc, params, ctx):
    from ..code.chunker import run_code

    return run_code(doc, params, ctx, toplevel=True)


register(Strategy(
    name="code-toplevel",
    summary="One chunk per top-level function or class; imports, constants and the module docstring "
            "stay with the first chunk.",
    params=(SIBLING_DETAIL, CONTEXT_MODE, LANGUAGE),
    run=run,
    kinds=("code",),
    size_param=None,
    overlap_param=None,
))
