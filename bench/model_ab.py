"""Chunk building and whole runs at 10 MB, another revision's model and run against this tree's,
alternated in one process (same corpus, same spans).

    python -m bench.model_ab 844e063            # recursive 512 and markdown 512, median of 9
    python -m bench.model_ab 844e063 --repeat 5

The other revision's `engine/core/model.py` and `engine/run.py` are loaded from `git show` beside
this tree's engine (its strategies, tokens and documents are this tree's). Three figures per
strategy, CPU time: build_chunkset on the same spans; the whole run with the collector on (a
library caller's default); the whole run with the collector off (what the app and the command
line do around a run).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chunktui.engine import Document
from chunktui.engine.core.model import build_chunkset
from chunktui.engine.run import chunk_document
from chunktui.engine.strategies import Context, get_strategy

from .corpus import corpus

ROOT = Path(__file__).resolve().parent.parent
CASES = (
    ("recursive", "docs", "prose", {"size": 512, "unit": "chars", "overlap": 0}),
    ("markdown", "markdown", "markdown", {"max_char": 512, "min_char": 256, "chunk_overlap": 0}),
)


def load_revision(rev: str):
    """(build_chunkset, chunk_document) of `rev`, imported as chunktui.engine.core._ab_model and
    chunktui.engine._ab_run. A revision from before the layout move (engine/model.py) has its
    relative imports pointed at the modules' homes in this tree."""
    folder = Path(tempfile.mkdtemp(prefix="model_ab_"))
    moved = _exists(rev, "chunktui/engine/core/model.py")
    model = _load(
        rev,
        "chunktui/engine/core/model.py" if moved else "chunktui/engine/model.py",
        "chunktui.engine.core._ab_model",
        folder,
        lambda s: s if moved else _to_this_layout(s),
    )
    run = _load(
        rev,
        "chunktui/engine/run.py",
        "chunktui.engine._ab_run",
        folder,
        lambda s: _to_this_layout(
            re.sub(r"from \.(core\.)?model import", "from chunktui.engine.core._ab_model import", s)
        ),
    )
    return model.build_chunkset, run.chunk_document


# where the modules a pre-move model.py or run.py imports relatively live now
_HOMES = {
    "documents": "readers",
    "errors": "core",
    "tokens": "core",
    "options": "core",
    "stats": "core",
    "derived": "core",
    "token_index": "core",
    "model": "core",
}


def _to_this_layout(source: str) -> str:
    return re.sub(
        r"from \.(\w+) import",
        lambda m: f"from chunktui.engine.{_HOMES[m[1]]}.{m[1]} import" if m[1] in _HOMES else m[0],
        source,
    )


def _exists(rev: str, path: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{rev}:{path}"], cwd=ROOT, capture_output=True).returncode == 0


def _load(rev: str, path: str, name: str, folder: Path, edit):
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    (folder / f"{name.rpartition('.')[2]}.py").write_text(edit(source))
    spec = importlib.util.spec_from_file_location(name, folder / f"{name.rpartition('.')[2]}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def alternated(old, new, repeat: int, collecting: bool) -> tuple[float, float]:
    """Median CPU seconds of each, turns alternating (the order flips each repetition)."""
    times: tuple[list, list] = ([], [])
    for r in range(repeat):
        for k in (0, 1) if r % 2 == 0 else (1, 0):
            gc.collect()
            if not collecting:
                gc.disable()
            t0 = time.process_time()
            (old, new)[k]()
            times[k].append(time.process_time() - t0)
            gc.enable()
    return statistics.median(times[0]), statistics.median(times[1])


def compare(strategy: str, kind: str, doc_kind: str, params: dict, rev: str, old_build, old_run, repeat: int) -> None:
    doc = Document.from_text(corpus(kind, 10_000_000), kind=doc_kind)
    spec = get_strategy(strategy)
    values = spec.validate(params)
    spans = spec.run(doc, values, Context(tokenizer="chars")).spans

    def build(fn):
        return lambda: fn(doc, spans, strategy=strategy, params=values, tokenizer="chars")

    def run(fn):
        return lambda: fn(doc, strategy, params, tokenizer="chars")

    for what, old, new, collecting in (
        ("build", build(old_build), build(build_chunkset), True),
        ("run, collector on", run(old_run), run(chunk_document), True),
        ("run, collector off", run(old_run), run(chunk_document), False),
    ):
        o, n = alternated(old, new, repeat, collecting)
        print(
            f"{strategy} 512, 10 MB, {what}: {rev} {o * 1e3:.1f} ms, this tree {n * 1e3:.1f} ms "
            f"(CPU, median of {repeat}): {n / o:.2f}x",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", help="the revision to compare with, e.g. a commit before the change")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    old_build, old_run = load_revision(args.rev)
    for case in CASES:
        compare(*case, args.rev, old_build, old_run, args.repeat)


if __name__ == "__main__":
    main()
