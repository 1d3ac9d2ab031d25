"""`code` and `code-toplevel`: chunks cut at syntax boundaries of a tree-sitter parse.

The package holds the code chunker they share (languages, parse, entities, scope, chunker) and
registers both strategies, so one module is named "code" in the engine; the strategy registry
imports it with the modules of strategies/. The semantic strategy, `auto` and the quality flags
read its languages and parser too."""

from __future__ import annotations

from ..strategies import Param, Strategy, register
from .languages import LANGUAGE_NAMES

LANGUAGE = Param(
    "language",
    "choice",
    "auto",
    "Grammar to parse with; auto picks it from the file extension.",
    choices=("auto",) + LANGUAGE_NAMES,
)
CONTEXT_MODE = Param(
    "context_mode",
    "choice",
    "full",
    "Text for the embedding model: none (raw code), minimal (file and scope chain), "
    "full (also signatures, siblings and imports used).",
    choices=("none", "minimal", "full"),
)
SIBLING_DETAIL = Param(
    "sibling_detail",
    "choice",
    "signatures",
    "How neighbouring definitions are listed in each chunk.",
    choices=("none", "names", "signatures"),
)


def run(doc, params, ctx):
    from .chunker import run_code

    return run_code(doc, params, ctx)


register(
    Strategy(
        name="code",
        summary="Splits source code at function, class and statement boundaries of its syntax tree, "
        "with scope chains, entities, siblings and imports per chunk.",
        params=(
            Param(
                "size",
                "int",
                1200,
                "Largest chunk, in --unit; whole definitions that fit stay together.",
                min=16,
                max=10_000_000,
                step=100,
                aliases=("max_chunk_size",),
            ),
            Param(
                "unit",
                "choice",
                "bytes",
                "What size counts: bytes, chars or tokens (the run's tokenizer).",
                choices=("bytes", "chars", "tokens"),
            ),
            Param(
                "overlap_lines",
                "int",
                10,
                "Lines repeated from the previous chunk (shrunk to stay within the limit).",
                min=0,
                max=10_000,
                step=1,
            ),
            SIBLING_DETAIL,
            Param(
                "filter_imports",
                "bool",
                False,
                "Leave import statements out of the chunks (each chunk still lists the imports it uses).",
            ),
            CONTEXT_MODE,
            LANGUAGE,
        ),
        run=run,
        kinds=("code",),
        aliases=("ast",),
        size_param="size",
        overlap_param="overlap_lines",
        overlap_at_most=True,
        max_size=lambda p: (p["unit"], p["size"]),
    )
)


# `code-toplevel`: one chunk per top-level definition (autowiki); the preamble joins the first
def run_toplevel(doc, params, ctx):
    from .chunker import run_code

    return run_code(doc, params, ctx, toplevel=True)


register(
    Strategy(
        name="code-toplevel",
        summary="One chunk per top-level function or class; imports, constants and the module docstring "
        "stay with the first chunk.",
        params=(SIBLING_DETAIL, CONTEXT_MODE, LANGUAGE),
        run=run_toplevel,
        kinds=("code",),
        size_param=None,
        overlap_param=None,
    )
)
