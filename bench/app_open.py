"""Time the app on a generated 20 MB markdown file: first screen, first chunks, and scrolling.

Scrolling is also timed on a 0.2 MB file of the same shape; the ratio shows whether the
view's per-page cost grows with the document (it should not: only visible lines render).

    .venv/bin/python -m bench.app_open [--mb 20] [--strategy lines]

Prints the times; nothing is asserted (timings vary with the machine and its load).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from chunktui.ui.app import ChunktuiApp

WORDS = (
    "chunk overlap token budget retrieval index embedding vector source offset boundary heading "
    "section paragraph sentence strategy document window query answer context"
).split()


def generate(path: Path, megabytes: float, seed: int = 7) -> None:
    """Markdown with headings, paragraphs and code fences, about `megabytes` MB."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    size, n = 0, 0
    with open(path, "w", encoding="utf-8") as fh:
        while size < target:
            n += 1
            block = [f"## Section {n}\n\n"]
            for _ in range(rng.randint(2, 6)):
                block.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 90))) + ".\n\n")
            if n % 7 == 0:
                block.append("```python\ndef f(x):\n    return x * 2\n```\n\n")
            text = "".join(block)
            fh.write(text)
            size += len(text)


async def measure(path: Path, strategy: str | None, pages: int) -> float:
    started = time.perf_counter()
    app = ChunktuiApp(path=path, strategy=strategy)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        first_screen = time.perf_counter() - started
        await app.wait_idle()
        await pilot.pause()
        chunked = time.perf_counter() - started
        app.view.focus()
        scroll_start = time.perf_counter()
        for _ in range(pages):
            await pilot.press("pagedown")
        await pilot.pause()
        scrolled = time.perf_counter() - scroll_start
        mid = app.doc.line_count // 2
        app.view.scroll_to(y=mid, animate=False)
        jump_start = time.perf_counter()
        await pilot.pause()
        jumped = time.perf_counter() - jump_start
        print(f"document: {len(app.doc.text) / 1e6:.1f} M chars, {app.doc.line_count:,} lines")
        print(f"first screen (document drawn): {first_screen:.2f} s")
        print(f"first chunks shown ({app.chunkset.strategy}, {len(app.chunkset.chunks):,} chunks): {chunked:.2f} s")
        print(f"{pages} page-downs: {scrolled:.2f} s ({scrolled / pages * 1000:.1f} ms a page)")
        print(f"jump to the middle and redraw: {jumped * 1000:.1f} ms")
        return scrolled / pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--strategy", default=None, help="default: the app's default for markdown")
    parser.add_argument("--pages", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        per_page = {}
        for megabytes in (0.2, args.mb):
            path = Path(tmp) / f"big-{megabytes}.md"
            t = time.perf_counter()
            generate(path, megabytes)
            print(f"\ngenerated {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")
            per_page[megabytes] = asyncio.run(measure(path, args.strategy, args.pages))
        print(f"\npage-down cost, {args.mb:g} MB vs 0.2 MB: {per_page[args.mb] / per_page[0.2]:.2f}x")


if __name__ == "__main__":
    main()
