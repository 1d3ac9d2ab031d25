"""How many `code` chunks of real source files fit max_chunk_size (issue 16).

    python -m bench.code_fit [--size 1500] [--unit bytes] [--show 5]

A chunk fits when its own lines (the overlap borrowed from the previous chunk left out) are
within the limit. One that does not must be flagged `oversized`; the script counts those that
are not (it should print 0) and shows the biggest oversized ones, to be read by hand: each
should be one statement with no body, block or field list inside that could be cut.
The corpus is what this machine has: the standard library's top-level modules, npm's own
JavaScript and that of the packages it bundles, C/C++/Go/Rust/Java/C# examples under /usr/share/doc and site-packages, shell
scripts under /usr/share, and every sample in tests/code_samples and sample_docs.
"""

from __future__ import annotations

import argparse
import sysconfig
from collections import defaultdict
from pathlib import Path

from chunktui.engine import chunk_document, load_document
from chunktui.engine.code.languages import EXTENSIONS
from chunktui.engine.core.errors import ChunktuiError

ROOT = Path(__file__).resolve().parent.parent
_PER_LANGUAGE = 250  # files at most per language and root, in sorted order: the run stays short


def corpus() -> list[Path]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    npm = Path("/usr/lib/node_modules/npm")
    roots = [
        (lib, "*.py", False),
        (npm / "lib", "*.js", True),
        (npm / "node_modules", "*.js", True),
        (Path("/usr/share/doc"), "*.[ch]", True),
        (Path("/usr/share/doc"), "*.go", True),
        (Path("/usr/share/doc"), "*.rs", True),
        (Path("/usr/share/doc"), "*.cpp", True),
        (lib / "site-packages", "*.c", True),
        (lib / "site-packages", "*.cpp", True),
        (Path("/usr/share"), "*.sh", True),
    ]
    files: list[Path] = []
    for root, pattern, deep in roots:
        found = sorted((root.rglob if deep else root.glob)(pattern)) if root.is_dir() else []
        files += [p for p in found if p.is_file()][:_PER_LANGUAGE]
    for folder in (ROOT / "tests" / "code_samples", ROOT / "sample_docs"):
        files += sorted(p for p in folder.iterdir() if p.suffix.lower() in EXTENSIONS)
    return files


def measure(size: int, unit: str, show: int) -> dict:
    per = defaultdict(lambda: [0, 0, 0, 0])  # language -> files, chunks, fitting, oversized unflagged
    biggest = []
    for path in corpus():
        try:
            doc = load_document(path)
            cs = chunk_document(doc, "code", {"max_chunk_size": size, "unit": unit})
        except ChunktuiError as e:  # a file the loader refuses (binary, not UTF-8) is not code to measure
            print(f"skipped {path}: {e}")
            continue
        if not cs.chunks:
            continue
        stats = per[cs.chunks[0].metadata["language"]]
        stats[0] += 1
        for c in cs.chunks:
            own = doc.text[doc.line_start(c.metadata["core_start_line"]) : c.end]
            n = {"bytes": len(own.encode()), "chars": len(own)}.get(unit) or c.tokens
            stats[1] += 1
            if n <= size:
                stats[2] += 1
            else:
                stats[3] += not c.metadata.get("oversized")
                biggest.append((n, str(path), c.metadata["core_start_line"], c.metadata["core_end_line"]))
    total = [sum(s[i] for s in per.values()) for i in range(4)]
    print(
        f"code at {size} {unit}: {total[0]} files, {total[1]} chunks, {total[2] / total[1]:.2%} fit, "
        f"{total[1] - total[2]} over the limit ({total[3]} of them not flagged oversized)"
    )
    for lang, (f, c, ok, unflagged) in sorted(per.items()):
        print(f"  {lang:<11} {f:>4} files {c:>6} chunks {ok / c:8.2%} fit  {c - ok:>4} over ({unflagged} unflagged)")
    for n, path, a, b in sorted(biggest, reverse=True)[:show]:
        print(f"  oversized: {n:,} {unit} {path}:{a}-{b}")
    return {"files": total[0], "chunks": total[1], "fit": total[2], "unflagged": total[3]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1500)
    ap.add_argument("--unit", default="bytes", choices=("bytes", "chars", "tokens"))
    ap.add_argument("--show", type=int, default=5, help="list this many of the biggest oversized chunks")
    args = ap.parse_args()
    measure(args.size, args.unit, args.show)


if __name__ == "__main__":
    main()
