"""Time the app on a generated 20 MB markdown file: first screen, first chunks, and scrolling.

Scrolling is also timed on a 0.2 MB file of the same shape; the ratio shows whether the
view's per-page cost grows with the document (it should not: only visible lines render).

    .venv/bin/python -m bench.app_open [--mb 20] [--strategy lines]
    .venv/bin/python -m bench.app_open --pdf /usr/share/doc/valgrind/valgrind_manual.pdf.gz

With --pdf (a `.gz` is unpacked to a temporary file first), a PDF is opened as a user opens
it, with an empty extraction cache (a temporary XDG_CACHE_HOME, so it is extracted afresh): the
first screen (the app drawn, the reading progress in its status line), the extracted text shown,
the first chunks, a size change (`]`) re-chunked, and reopening the file (from the disk cache).

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


async def measure_pdf(path: Path) -> dict[str, float]:
    """Seconds from the app's start to each step of opening a PDF (see the module docstring)."""
    started = time.perf_counter()
    app = ChunktuiApp(path=path)
    times: dict[str, float] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        while app.doc is None and time.perf_counter() - started < 120:
            if "first screen" not in times and app.reading is not None:
                times["first screen"] = time.perf_counter() - started  # drawn, the read's progress shown
            await pilot.pause(0.01)
        times["text shown"] = time.perf_counter() - started
        await app.wait_idle()
        await pilot.pause()
        times["first chunks"] = time.perf_counter() - started
        before = app.chunkset
        tune = time.perf_counter()
        await pilot.press("]")
        await app.wait_idle()
        while app.chunkset is before and time.perf_counter() - tune < 60:
            await pilot.pause(0.01)
        times["size change re-chunked"] = time.perf_counter() - tune
        pages, chunks = app.doc.extraction.page_count, len(app.chunkset.chunks)
    print(f"{path.name}: {pages} pages, {len(app.doc.text):,} characters, {chunks:,} chunks ({app.chunkset.strategy})")
    return times


def main_pdf(source: Path) -> None:
    import gzip
    import os
    import shutil

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # nothing extracted before
        path = Path(tmp) / source.name.removesuffix(".gz")
        with gzip.open(source) if source.suffix == ".gz" else open(source, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        for label in ("fresh", "reopened (disk cache)"):
            times = asyncio.run(measure_pdf(path))
            print(f"  {label}: " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--strategy", default=None, help="default: the app's default for markdown")
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--pdf", type=Path, default=None, help="time opening this PDF instead")
    args = parser.parse_args()
    if args.pdf is not None:
        main_pdf(args.pdf)
        return
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
