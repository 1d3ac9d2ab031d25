"""PDF text extraction: pypdfium2 (chunktui's reader) against pypdf, pages per second, one run.

The document is the PDFs Debian installs with libtasn1-doc and shared-mime-info, concatenated
(pdfTeX and DocBook output) until it has 106 pages. Each library reads every page's text; the
two take turns, five rounds, and the median round counts. `python -m bench.extraction` prints
the figures that bench/READERS.md keeps by hand.
"""

from __future__ import annotations

import io
import statistics
import time
from importlib.metadata import version

SOURCES = ("/usr/share/doc/libtasn1-doc/libtasn1.pdf", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")
ROUNDS = 5


def document(pages: int = 106) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    while len(writer.pages) < pages:
        for source in SOURCES:
            for page in PdfReader(source).pages:
                if len(writer.pages) < pages:
                    writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_pdfium(data: bytes) -> int:
    from chunktui.engine.readers.pdf import read_pdf

    return read_pdf("bench.pdf", data).page_count


def with_pypdf(data: bytes) -> int:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages)


def main() -> None:
    data = document()
    times = {"pypdfium2": [], "pypdf": []}
    for _ in range(ROUNDS):
        for name, read in (("pypdfium2", with_pdfium), ("pypdf", with_pypdf)):
            start = time.perf_counter()
            pages = read(data)
            times[name].append(time.perf_counter() - start)
    rate = {name: pages / statistics.median(t) for name, t in times.items()}
    print(f"{pages} pages, {len(data) / 1e6:.2f} MB, median of {ROUNDS} alternating rounds")
    for name, taken in times.items():
        print(f"  {name} {version(name)}: {statistics.median(taken):.3f} s, {rate[name]:,.0f} pages/s")
    print(f"  pypdfium2 / pypdf: {rate['pypdfium2'] / rate['pypdf']:.1f}x the pages per second")


if __name__ == "__main__":
    main()
