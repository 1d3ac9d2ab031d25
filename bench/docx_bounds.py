"""DOCX reading time and peak memory against the size of the body (word/document.xml).

A document is generated from python-docx's default template (164 styles): a pattern of 50
blocks (a heading, body paragraphs of three runs without a style, a "List Bullet" item, a
paragraph numbered through Word numbering, a hyperlink, a small table) repeated to the number
of paragraphs asked, then read by chunktui's DOCX reader. Time is the process's CPU time for the
read alone; peak memory is that of a process that only reads (ru_maxrss): each size is generated
once into the temporary folder and read in a process of its own.
`python -m bench.docx_bounds 10000 50000` prints the figures bench/READERS.md keeps by hand.
"""

from __future__ import annotations

import copy
import io
import resource
import sys
import time
import zipfile
from pathlib import Path

WORDS = "chunking keeps offsets exact, overlap measured and never assumed, gaps named".split()


def generate(paragraphs: int) -> bytes:
    """A .docx of about `paragraphs` body blocks, built by copying one pattern of 50 blocks."""
    import docx
    from docx.oxml.ns import qn
    from docx.oxml.parser import parse_xml

    d = docx.Document()
    pattern = []
    for i in range(50):
        if i == 0:
            p = d.add_heading("Section on chunking", level=1 + i % 3)
        elif i % 9 == 0:
            p = d.add_paragraph("an item kept with its list " + " ".join(WORDS[:5]), style="List Bullet")
        elif i % 11 == 0:
            p = d.add_paragraph("a step numbered by Word " + " ".join(WORDS[:6]))
            p._p.get_or_add_pPr().append(
                parse_xml(
                    '<w:numPr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                    '<w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'
                )
            )
        elif i == 25:
            t = d.add_table(rows=3, cols=3)
            for r, row in enumerate(t.rows):
                for c, cell in enumerate(row.cells):
                    cell.text = f"{WORDS[r]} {WORDS[c]}"
            pattern.append(t._tbl)
            continue
        else:
            p = d.add_paragraph(" ".join(WORDS) + " ")
            p.add_run(" ".join(WORDS[3:])).bold = True
            p.add_run(f" and the paragraph's own words, number {i}.")
        pattern.append(p._p)
    body = d.element.body
    sect = body.find(qn("w:sectPr"))
    for el in pattern:
        body.remove(el)
    for _ in range(max(1, paragraphs // len(pattern))):
        for el in pattern:
            sect.addprevious(copy.deepcopy(el))
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def read(path: str) -> None:
    """Read one generated file in this process and print its figures."""
    from chunktui.engine.readers.docx import read_docx

    data = Path(path).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        body = z.getinfo("word/document.xml").file_size
    start = time.process_time()
    ex = read_docx(path, data)
    spent = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"document.xml {body / 1e6:.2f} MB (.docx {len(data) / 1e6:.2f} MB), text {len(ex.text):,} chars: "
        f"read in {spent:.2f} s of CPU ({spent / (body / 1e6):.3f} s/MB), peak {peak:.0f} MB "
        f"({peak / (body / 1e6):.1f} MB/MB)",
        flush=True,
    )


def main(argv: list[str]) -> None:
    """Each size generated once (kept in the temporary folder), then read in a process of its own."""
    import subprocess
    import tempfile

    if argv[:1] == ["read"]:
        read(argv[1])
        return
    for n in map(int, argv or ["10000"]):
        path = Path(tempfile.gettempdir()) / f"chunktui-bench-{n}-paragraphs.docx"
        if not path.exists():
            path.write_bytes(generate(n))
        print(f"{n:,} paragraphs: ", end="", flush=True)
        subprocess.run([sys.executable, "-m", "bench.docx_bounds", "read", str(path)], check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
