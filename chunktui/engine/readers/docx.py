"""DOCX: the body's paragraphs and tables in order (python-docx), as markdown.

Heading styles ("Heading 1".."Heading 6", "Title") become `#` headings, list paragraphs `-`
items (numbered list styles `1.`), tables pipe tables, hyperlinks `[text](url)`; other paragraphs
are body text, with a backslash before a leading `#`, `-`, `1.`, `>` or `|` that markdown would read
as structure (`\\# not a heading`), so only heading styles give header paths; footnotes
and comments follow the body as marked blocks (`> [footnote N]`, `> [comment N]`), numbered from
1 in the order the body refers to them (not by their `w:id`: LibreOffice's first footnote is 2,
comments count from 0), and the body holds a mark where each is referred to (`[^N]`, `[^cN]`). Each
chunk gets the range of body blocks it touches (`paragraph_start`/`paragraph_end`, 1-based,
counting the body's paragraphs and tables in order; a table is one block); a chunk that starts or
ends in a note block names it too (`note_start`/`note_end`, e.g. "footnote 2"), and a note block
counts as the body's last block in the paragraph range, which it follows.
"""

from __future__ import annotations

import io
import re
import zipfile
from itertools import count, pairwise

from ..core.errors import DocumentError
from . import Extraction, Region, escape_structure, library_version, pipe_table

MAX_UNPACKED = 200_000_000  # bytes the zip may expand to (a zip bomb is refused before it is read)
MAX_RATIO = 200  # and no member may expand more than this many times
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def read_docx(path: str, data: bytes) -> Extraction:
    document = _open(path, data)
    marks = _note_marks(document)
    parts: list[str] = []
    regions: list[Region] = []
    pos = 0
    for number, block in enumerate(_blocks(document, marks), 1):
        if not block:
            continue
        if parts:
            sep = "\n" if _is_item(parts[-1]) and _is_item(block) else "\n\n"  # a list's items stay together
            parts.append(sep)
            pos += len(sep)
        regions.append(Region(pos, pos + len(block), {"paragraph": number}))
        parts.append(block)
        pos += len(block)
    last = regions[-1].fields["paragraph"] if regions else 0
    for note in _notes(document, marks):  # each names the body's last block and itself
        if parts:
            parts.append("\n\n")
            pos += 2
        regions.append(Region(pos, pos + len(note), {"paragraph": last, "note": note[3 : note.index("]")]}))
        parts.append(note)
        pos += len(note)
    text = "".join(parts)
    text = text + "\n" if text else ""
    for here, after in pairwise(regions):
        here.end = after.start
    if regions:
        regions[-1].end = len(text)
    warnings = [] if text.strip() else ["the document has no text: no chunks"]
    return Extraction(text=text, extractor=library_version("python-docx"), regions=regions, warnings=warnings)


def _open(path: str, data: bytes):
    """python-docx's document of the bytes, or the one-line error of a corrupt zip, a zip bomb, or
    a zip that is no Word package (a part missing or damaged)."""
    _check_zip(path, data)
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        return docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise DocumentError(path, f"not a readable DOCX ({exc or type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - lxml's XMLSyntaxError and kin: a damaged part
        raise DocumentError(path, f"not a readable DOCX ({type(exc).__name__}: {exc})") from None


def check_opens(path) -> None:
    """Raise DocumentError if the file at `path` is no DOCX python-docx can open. Opening parses
    the package's XML but does not walk the body (the slow part of a read), so this is quick."""
    from pathlib import Path

    _open(str(path), Path(path).read_bytes())


def _is_item(block: str) -> bool:
    return block.startswith("- ") or re.match(r"\d+\. ", block) is not None


def _check_zip(path: str, data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except zipfile.BadZipFile as exc:
        raise DocumentError(path, f"not a readable DOCX (corrupt zip: {exc})") from None
    total = sum(i.file_size for i in infos)
    if total > MAX_UNPACKED:
        raise DocumentError(path, f"the zip expands to {total:,} bytes, over the limit of {MAX_UNPACKED:,}")
    worst = max((i.file_size / max(i.compress_size, 1) for i in infos if i.file_size > 1_000_000), default=0)
    if worst > MAX_RATIO:
        raise DocumentError(path, f"a zip member expands {worst:,.0f} times, over the limit of {MAX_RATIO} (zip bomb?)")


_REFERENCES = {f"{_W}footnoteReference": "footnote", f"{_W}commentReference": "comment"}
_MARK = {"footnote": "[^{}]", "comment": "[^c{}]"}


def _note_marks(document) -> dict[tuple[str, str], int]:
    """The number of each footnote and comment, (kind, w:id) -> 1, 2, ..., in the order the body
    (its tables too) refers to them."""
    numbers: dict[tuple[str, str], int] = {}
    counts = dict.fromkeys(_MARK, 0)
    for ref in document.element.body.iter(*_REFERENCES):
        kind = _REFERENCES[ref.tag]
        key = (kind, ref.get(f"{_W}id") or "")
        if key not in numbers:
            counts[kind] += 1
            numbers[key] = counts[kind]
    return numbers


def _blocks(document, marks: dict[tuple[str, str], int]):
    """Markdown of each body block (paragraph or table), in order; an empty paragraph gives ''."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            yield _paragraph(item, marks)
        elif isinstance(item, Table):
            yield _table(item, marks)


def _paragraph(p, marks: dict[tuple[str, str], int]) -> str:
    text = _inline(p, marks).strip()
    if not text:
        return ""
    style = (p.style.name if p.style is not None else "") or ""
    m = re.fullmatch(r"Heading ([1-6])", style)
    if m:
        return f"{'#' * int(m.group(1))} {' '.join(text.split())}"
    if style == "Title":
        return f"# {' '.join(text.split())}"
    numbered = p._p.pPr is not None and p._p.pPr.numPr is not None
    if "List Number" in style:
        return f"1. {text}"
    if "List" in style or numbered:
        return f"- {text}"
    return escape_structure(text)  # "# not a heading" in a Normal paragraph stays body text


def _inline(p, marks: dict[tuple[str, str], int]) -> str:
    """The paragraph's text, links as markdown links, and the mark of each footnote or comment
    referred to where the reference stands."""
    from docx.text.hyperlink import Hyperlink

    out = []
    for item in p.iter_inner_content():
        if isinstance(item, Hyperlink):
            out.append(f"[{item.text}]({item.address})" if item.address else item.text)
            continue
        out.append(item.text)
        for ref in item._r.iter(*_REFERENCES):
            kind = _REFERENCES[ref.tag]
            out.append(_MARK[kind].format(marks[(kind, ref.get(f"{_W}id") or "")]))
    return "".join(out)


def _table(table, marks: dict[tuple[str, str], int]) -> str:
    return pipe_table(
        [[" ".join(_cell_text(cell, marks).split()).replace("|", "\\|") for cell in row.cells] for row in table.rows]
    )


def _cell_text(cell, marks: dict[tuple[str, str], int]) -> str:
    """A cell's paragraphs (with their marks) and the cells of the tables inside it, in order
    (python-docx's `cell.text` leaves a nested table out, and Word puts tables in cells)."""
    from docx.table import Table

    parts = []
    for item in cell.iter_inner_content():
        if isinstance(item, Table):
            parts += [_cell_text(inner, marks) for row in item.rows for inner in row.cells]
        else:
            parts.append(_inline(item, marks))
    return " ".join(parts)


def _notes(document, marks: dict[tuple[str, str], int]) -> list[str]:
    """Footnotes, then comments, as marked blocks read from their parts' XML, each under the number
    of its mark in the body; those the body never refers to are numbered after the rest."""
    from lxml import etree

    found: dict[str, list[tuple[int | None, str]]] = {"footnote": [], "comment": []}
    for part in document.part.package.parts:
        kind = {"/word/footnotes.xml": "footnote", "/word/comments.xml": "comment"}.get(str(part.partname))
        if kind is None:
            continue
        for note in etree.fromstring(part.blob).iter(f"{_W}footnote", f"{_W}comment"):
            if note.get(f"{_W}type") in ("separator", "continuationSeparator"):
                continue
            words = " ".join("".join(t.text or "" for t in note.iter(f"{_W}t")).split())
            if words:
                found[kind].append((marks.get((kind, note.get(f"{_W}id") or "")), words))
    out = []
    for kind, notes in found.items():
        unreferred = count(max((n for (k, _), n in marks.items() if k == kind), default=0) + 1)
        numbered = sorted((number if number is not None else next(unreferred), words) for number, words in notes)
        out += [f"> [{kind} {number}] {words}" for number, words in numbered]
    return out
