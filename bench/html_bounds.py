"""HTML reading time against page size and structure: where trafilatura is super-linear.

Each hostile page is generated at doubling sizes (deep nesting, many siblings, huge tables,
long text, nested lists and tables, ...) and read by chunktui's HTML reader in main mode and
in whole mode, and by trafilatura alone with and without its fallbacks (readability and
jusText, `fast=True` turns them off). A case stops growing once a read passes `CAP` seconds.
Peak memory is the process's (ru_maxrss), so it only grows from row to row.
`python -m bench.html_bounds [kinds] [sizes]` prints the figures bench/READERS.md keeps by hand.
"""

from __future__ import annotations

import resource
import sys
import time

CAP = 20.0
SIZES = (2_000, 8_000, 32_000)


def _page(body: str) -> bytes:
    return f"<html><body>{body}</body></html>".encode()


def deep(n: int) -> bytes:
    """n divs nested in each other, a paragraph at each level (libxml2 stops past 2,048)."""
    return _page("<div><p>word text here</p>" * n + "</div>" * n)


def deep_stacks(n: int, depth: int = 100) -> bytes:
    """Stacks of 100 nested divs side by side, a paragraph at each level."""
    return _page(("<div><p>word text here and more words</p>" * depth + "</div>" * depth) * max(1, n // depth))


def siblings(n: int) -> bytes:
    return _page("<div>" + "".join(f"<p>paragraph number {i} with some words in it</p>" for i in range(n)) + "</div>")


def table(n: int) -> bytes:
    rows = "".join(f"<tr><td>cell {i}</td><td>value {i * 2}</td><td>more {i}</td></tr>" for i in range(n))
    return _page(f"<h1>T</h1><table>{rows}</table>")


def long_text(n: int) -> bytes:
    """One paragraph of 10n words."""
    return _page("<article><h1>Title</h1><p>" + " ".join(f"word{i}" for i in range(10 * n)) + "</p></article>")


def links(n: int) -> bytes:
    return _page("<div>" + "".join(f'<a href="/x{i}">link {i}</a> ' for i in range(n)) + "</div>")


def nested_lists(n: int, depth: int = 50) -> bytes:
    """Lists nested 50 deep, side by side: every item short."""
    return _page(("<ul><li>item words here" * depth + "</li></ul>" * depth) * max(1, n // depth))


def nested_tables(n: int, depth: int = 20) -> bytes:
    return _page(("<table><tr><td>cell words" * depth + "</td></tr></table>" * depth) * max(1, n // depth))


def headings(n: int) -> bytes:
    return _page("".join(f"<h2>Head {i}</h2><p>text {i} para words</p>" for i in range(n)))


KINDS = {
    f.__name__: f for f in (deep, deep_stacks, siblings, table, long_text, links, nested_lists, nested_tables, headings)
}


def _trafilatura(data: bytes, fast: bool) -> str:
    import trafilatura

    from chunktui.engine.readers.html import TRAFILATURA_OPTIONS

    return trafilatura.extract(data.decode(), **TRAFILATURA_OPTIONS, fast=fast) or ""


def _chunktui(data: bytes, mode: str) -> str:
    from chunktui.engine.core.errors import DocumentError
    from chunktui.engine.readers.html import read_html

    try:
        return read_html("bench.html", data, mode).text
    except DocumentError as exc:
        return f"refused: {exc.problem}"


READS = {
    "main": lambda d: _chunktui(d, "main"),
    "whole": lambda d: _chunktui(d, "whole"),
    "trafilatura": lambda d: _trafilatura(d, False),
    "trafilatura fast": lambda d: _trafilatura(d, True),
}


def elements(data: bytes) -> int:
    import lxml.html

    return sum(1 for _ in lxml.html.document_fromstring(data).iter())


def main(kinds=tuple(KINDS), sizes=SIZES, reads=tuple(READS)) -> None:
    import trafilatura  # noqa: F401 - imported once, before any timing

    print("kind | n | KB | elements | read | s | peak MB | out")
    for kind in kinds:
        for read in reads:
            for n in sizes:
                data = KINDS[kind](n)
                start = time.perf_counter()
                out = READS[read](data)
                taken = time.perf_counter() - start
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
                shown = out if out.startswith("refused") else f"{len(out):,} chars"
                print(
                    f"{kind} | {n:,} | {len(data) // 1000:,} | {elements(data):,} | {read} | {taken:.2f} | {peak} | "
                    f"{shown}",
                    flush=True,
                )
                if taken > CAP:
                    break


if __name__ == "__main__":
    args = sys.argv[1:]
    main(
        tuple(args[0].split(",")) if args else tuple(KINDS),
        tuple(int(s) for s in args[1].split(",")) if len(args) > 1 else SIZES,
        tuple(args[2].split(",")) if len(args) > 2 else tuple(READS),
    )
