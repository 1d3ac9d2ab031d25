"""Where the bundled sample documents live (for `chunktui demo`)."""

from __future__ import annotations

from pathlib import Path

import chunktui

SAMPLE_DIR_NAME = "sample_docs"
# the order the demo visits them in: one of each kind
DEMO_ORDER = (
    "guide.md",
    "essay.txt",
    "inventory.py",
    "auth_middleware.ts",
    "service.log",
    "events.jsonl",
    "orders.csv",
    "orders.tsv",
    "talk.vtt",
    "talk.srt",
    "threads.mbox",
    "notes.md",
)


def find_sample_docs(cwd: Path | None = None) -> Path | None:
    """sample_docs/ beside the package (a source checkout), else under the current folder."""
    package_root = Path(chunktui.__file__).resolve().parent.parent
    for candidate in (package_root / SAMPLE_DIR_NAME, (cwd or Path.cwd()) / SAMPLE_DIR_NAME):
        if candidate.is_dir():
            return candidate
    return None


def demo_files(folder: Path) -> list[Path]:
    """Sample files in demo order; files not in the list follow alphabetically."""
    present = [folder / name for name in DEMO_ORDER if (folder / name).is_file()]
    rest = sorted(p for p in folder.iterdir() if p.is_file() and p.name not in DEMO_ORDER and p.name != "README.md")
    return present + rest


DEMO_MIN_CHUNKS = 3  # a demo step must show its strategy cutting, not one chunk for the whole sample


def demo_params(doc, name: str) -> dict | None:
    """Parameters that make strategy `name` cut the sample `doc` into at least DEMO_MIN_CHUNKS
    chunks: its defaults, with its size halved while it gives fewer (adaptive's defaults made one
    chunk of all of guide.md's 207 lines). None when the strategy has no size to shrink."""
    from chunktui.engine import chunk_document, get_strategy
    from chunktui.engine.core.errors import ChunktuiError

    strategy = get_strategy(name)
    size = strategy.param(strategy.size_param) if strategy.size_param else None
    params = strategy.defaults()
    if size is None or not isinstance(params.get(size.name), int) or params[size.name] <= 0:
        return None
    overlap = strategy.param(strategy.overlap_param) if strategy.overlap_param else None
    for _ in range(10):
        try:
            if len(chunk_document(doc, name, params).chunks) >= DEMO_MIN_CHUNKS:
                return params
        except ChunktuiError:
            return None
        smaller = max(int(size.min or 1), params[size.name] // 2)
        if smaller == params[size.name]:
            break
        params = {**params, size.name: smaller}
        if overlap is not None and isinstance(params.get(overlap.name), int) and params[overlap.name] >= smaller:
            params[overlap.name] = smaller // 10
    return params
