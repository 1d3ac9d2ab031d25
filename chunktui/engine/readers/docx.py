"""DOCX: the body's paragraphs and tables in order (python-docx), as markdown.

Heading styles ("Heading 1".."Heading 6", "Title") become `#` headings, list paragraphs `-`
items (`1.` for numbered list styles, and for Word numbering whose level's format is a number:
decimal, roman, letter, ...), tables pipe tables, hyperlinks `[text](url)`; other paragraphs
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
from typing import Any, NamedTuple

from ..core.errors import DocumentError
from . import Extraction, Region, Watch, escape_structure, library_version, pipe_table

# The version of this reader's own rules, named in the extractor with python-docx's (the same
# library and rules give the same text); bump it on any change of the text: 2 numbers footnotes
# and comments in the order the body refers to them, 3 escapes body text that markdown reads as
# structure, 4 numbers lists numbered through Word numbering, 5 through Word's list styles too.
RULES = 5
MAX_UNPACKED = 200_000_000  # bytes the zip may expand to (a zip bomb is refused before it is read)
MAX_RATIO = 200  # and no member may expand more than this many times
# python-docx parses the package's XML whole, at about 11 bytes of memory per byte of XML, and the
# read then takes 0.23 s of CPU per MB of body (bench/READERS.md): past this much XML the file is
# refused, so the largest DOCX read takes at most about 25 s and 1.2 GB here.
MAX_XML = 100_000_000
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_P, _TBL, _TR, _TC, _R, _PPR = (f"{_W}{tag}" for tag in ("p", "tbl", "tr", "tc", "r", "pPr"))
_HYPERLINK, _VAL = f"{_W}hyperlink", f"{_W}val"
_RID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
# a run's children that hold its text, as python-docx's `run.text` reads them
_RUN_TEXT = tuple(f"{_W}{tag}" for tag in ("br", "cr", "noBreakHyphen", "ptab", "t", "tab"))
_REPORT_EVERY = 500  # body blocks between two reports to a Watch (a progress step, a chance to cancel)


def read_docx(path: str, data: bytes, watch: Watch | None = None) -> Extraction:
    """The document's text; `watch` hears the share of body blocks read and may stop the read."""
    document = _open(path, data)
    marks = _note_marks(document)
    parts: list[str] = []
    regions: list[Region] = []
    pos = 0
    for number, block in enumerate(_blocks(document, marks, watch), 1):
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
    return Extraction(
        text=text,
        extractor=f"{library_version('python-docx')}, chunktui docx rules {RULES}",
        regions=regions,
        warnings=warnings,
    )


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
    xml = sum(i.file_size for i in infos if i.filename.endswith((".xml", ".rels")))
    if xml > MAX_XML:
        raise DocumentError(path, f"its XML expands to {xml:,} bytes, over the limit of {MAX_XML:,}")
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


def _blocks(document, marks: dict[tuple[str, str], int], watch: Watch | None = None):
    """Markdown of each body block (paragraph or table), in order; an empty paragraph gives ''.

    Each step costs what its block holds, never what the document holds: styles are resolved once
    for the document (python-docx's `paragraph.style` scans every style of the file for each
    paragraph without one: 8,000 paragraphs and the default template's 164 styles took 49 s), and
    children are walked with lxml's `iterchildren`, not python-docx's `w:p | w:tbl` XPath unions,
    which libxml2 merges in time quadratic in the children (0.64 s for a body of 10,000 blocks)."""
    styles = _Styles(document)
    body = document.element.body
    total = sum(1 for _ in body.iterchildren(_P, _TBL))
    for number, el in enumerate(body.iterchildren(_P, _TBL), 1):
        if watch is not None and number % _REPORT_EVERY == 0:
            watch.report(number / (total + 1))
        yield _paragraph(el, document.part, marks, styles) if el.tag == _P else _table(el, document.part, marks)


class _Style(NamedTuple):
    """What a paragraph style makes of its paragraphs."""

    heading: int  # 1-6 for "Heading 1".."Heading 6", 1 for "Title", else 0
    item: str  # "1. " for a "List Number" style, "- " for another "List" style, else ""


def _style_named(name: str) -> _Style:
    m = re.fullmatch(r"Heading ([1-6])", name)
    heading = int(m.group(1)) if m else 1 if name == "Title" else 0
    return _Style(heading, "1. " if "List Number" in name else "- " if "List" in name else "")


class _Styles:
    """The document's paragraph styles and list numbering, each read once: a paragraph's style is
    its `w:pStyle` looked up by id (the default paragraph style without one, or when the id names
    no paragraph style, as python-docx resolves it); its numbering's format is looked up by
    `w:numId` and `w:ilvl`."""

    def __init__(self, document) -> None:
        from docx.enum.style import WD_STYLE_TYPE
        from docx.styles.style import StyleFactory

        styles = document.styles  # python-docx gives a file without a styles part its default one
        found = styles.default(WD_STYLE_TYPE.PARAGRAPH)
        self.default = _style_named((found.name if found is not None else "") or "")
        self.by_id: dict[str, _Style] = {}
        for el in styles.element.style_lst:  # the first style of an id wins, as python-docx's lookup
            if el.styleId and el.styleId not in self.by_id:
                paragraph = el.type == WD_STYLE_TYPE.PARAGRAPH
                self.by_id[el.styleId] = _style_named(StyleFactory(el).name or "") if paragraph else self.default
        self.formats = _number_formats(document)

    def of(self, p) -> _Style:
        ppr = p.find(_PPR)
        found = ppr.find(f"{_W}pStyle") if ppr is not None else None
        style_id = found.get(_VAL) if found is not None else None
        return self.by_id.get(style_id, self.default) if style_id else self.default

    def item(self, p) -> str | None:
        """The marker of a paragraph numbered through Word numbering (its own `w:numPr`): "1. " when
        its level's format is a number (decimal, roman, letter, ...), "- " for a bullet or a
        numbering the file does not define; None without one (`w:numId` 0 takes it away)."""
        ppr = p.find(_PPR)
        numpr = ppr.find(f"{_W}numPr") if ppr is not None else None
        if numpr is None:
            return None
        num, level = numpr.find(f"{_W}numId"), numpr.find(f"{_W}ilvl")
        num_id = num.get(_VAL) if num is not None else None
        if num_id == "0":
            return None
        found = self.formats.get(num_id or "", {}).get((level.get(_VAL) if level is not None else None) or "0")
        return "1. " if found and found not in ("bullet", "none") else "- "


def _number_formats(document) -> dict[str, dict[str, str]]:
    """Each numbering's format by level, `w:numId` -> `w:ilvl` -> `w:numFmt` ("decimal",
    "lowerRoman", "bullet", ...), from its abstract numbering and its level overrides."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from lxml import etree

    part = next(
        (r.target_part for r in document.part.rels.values() if r.reltype == RT.NUMBERING and not r.is_external), None
    )
    if part is None:
        return {}
    root = part.element if hasattr(part, "element") else etree.fromstring(part.blob)

    def levels(holder) -> dict[str, str]:
        found = {}
        for lvl in holder.iterchildren(f"{_W}lvl"):
            fmt = lvl.find(f"{_W}numFmt")
            if fmt is not None:
                found[lvl.get(f"{_W}ilvl") or "0"] = fmt.get(_VAL) or ""
        return found

    abstract = {a.get(f"{_W}abstractNumId"): levels(a) for a in root.iterchildren(f"{_W}abstractNum")}
    uses = {num.get(f"{_W}numId") or "": _val(num.find(f"{_W}abstractNumId")) for num in root.iterchildren(f"{_W}num")}
    # an abstract numbering that names a numbering style (Word's list styles) has its levels there
    by_style = _numbering_styles(document)
    for a in root.iterchildren(f"{_W}abstractNum"):
        link = _val(a.find(f"{_W}numStyleLink"))
        if link and not abstract.get(a.get(f"{_W}abstractNumId")):
            abstract[a.get(f"{_W}abstractNumId")] = abstract.get(uses.get(by_style.get(link, "")), {})
    formats = {}
    for num in root.iterchildren(f"{_W}num"):
        own = dict(abstract.get(uses[num.get(f"{_W}numId") or ""]) or {})
        for override in num.iterchildren(f"{_W}lvlOverride"):
            own.update(levels(override))
        formats[num.get(f"{_W}numId") or ""] = own
    return formats


def _val(el) -> str | None:
    return el.get(_VAL) if el is not None else None


def _numbering_styles(document) -> dict[str, str]:
    """The numbering each style names in its own `w:numPr`, style id -> `w:numId`."""
    found = {}
    for style in document.styles.element.iterchildren(f"{_W}style"):
        ppr = style.find(_PPR)
        num = _val(ppr.find(f"{_W}numPr/{_W}numId")) if ppr is not None else None
        if num and style.get(f"{_W}styleId"):
            found[style.get(f"{_W}styleId")] = num
    return found


def _paragraph(p, part, marks: dict[tuple[str, str], int], styles: _Styles) -> str:
    text = _inline(p, part, marks).strip()
    if not text:
        return ""
    style = styles.of(p)
    if style.heading:
        return f"{'#' * style.heading} {' '.join(text.split())}"
    item = styles.item(p) or style.item  # the paragraph's own numbering first, as Word shows it
    if item:
        return f"{item}{text}"
    return escape_structure(text)  # "# not a heading" in a Normal paragraph stays body text


def _inline(p, part, marks: dict[tuple[str, str], int]) -> str:
    """The paragraph's text (its runs and hyperlinks, as python-docx reads them), links as
    markdown links, and the mark of each footnote or comment referred to where the reference
    stands."""
    out = []
    for item in p.iterchildren(_R, _HYPERLINK):
        if item.tag == _HYPERLINK:
            words = "".join(_run_text(r) for r in item.iterchildren(_R))
            target = part.rels.get(item.get(_RID) or "")  # none: a link to a bookmark, or a dangling id
            address = target.target_ref if target is not None else ""
            out.append(f"[{words}]({address})" if address else words)
            continue
        out.append(_run_text(item))
        for ref in item.iter(*_REFERENCES):
            kind = _REFERENCES[ref.tag]
            out.append(_MARK[kind].format(marks[(kind, ref.get(f"{_W}id") or "")]))
    return "".join(out)


def _run_text(r) -> str:
    """A run's text as python-docx's `run.text` gives it (a tab as `\\t`, a line break as `\\n`)."""
    return "".join(str(e) for e in r.iterchildren(*_RUN_TEXT))


def _table(tbl, part, marks: dict[tuple[str, str], int]) -> str:
    return pipe_table(
        [[" ".join(_cell_text(tc, part, marks).split()).replace("|", "\\|") for tc in row] for row in _rows(tbl)]
    )


def _rows(tbl) -> list[list]:
    """Each row's cells as python-docx's `row.cells` gives them: a cell spanning n grid columns
    n times, a cell continuing a vertical merge as the merge's first cell. Each row is read once
    (python-docx finds the cell above by XPath from the row's start, for every continued cell)."""
    rows: list[list] = []
    above: dict[int, Any] = {}  # grid column -> the cell (a w:tc) shown there in the row above
    for tr in tbl.iterchildren(_TR):
        cells, here = [], {}
        offset = tr.grid_before
        for tc in tr.iterchildren(_TC):
            shown = above.get(offset, tc) if tc.vMerge == "continue" else tc
            cells += [shown] * shown.grid_span
            here[offset] = shown
            offset += tc.grid_span
        rows.append(cells)
        above = here
    return rows


def _cell_text(tc, part, marks: dict[tuple[str, str], int]) -> str:
    """A cell's paragraphs (with their marks) and the cells of the tables inside it, in order
    (python-docx's `cell.text` leaves a nested table out, and Word puts tables in cells)."""
    parts = []
    for item in tc.iterchildren(_P, _TBL):
        if item.tag == _TBL:
            parts += [_cell_text(inner, part, marks) for row in _rows(item) for inner in row]
        else:
            parts.append(_inline(item, part, marks))
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
