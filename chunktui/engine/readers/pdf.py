"""PDF: the text layer of each page, read with PDFium (pypdfium2), in page order.

Outline (bookmark) entries become `#` headings: the line on the entry's page that carries the
entry's title (with or without its section number) is marked as a heading, else the heading
is put at the top of that page. Pages whose text layer is empty stand as one line each, which
`locate` leaves out of every chunk as a gap: OCR is not done. Reading order is PDFium's (the
order of the text in the page's content), which for the multi-column pages of pdfTeX and
office tools is column by column.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..core.errors import DocumentError, PasswordError
from . import Extraction, Region, Watch, library_version

MAX_PAGES = 20_000  # a bound on time (measured: 0.3 ms an empty page, 2.5 ms a page of a manual) and memory
MAX_CHARS = 50_000_000  # extracted text beyond this is refused, not truncated
PAGE_SEPARATOR = "\n\n"
# The version of this reader's own rules, named in the extractor with PDFium's (the same library
# and rules give the same text): 2 escapes text lines that markdown reads as headings or fences.
RULES = 2
_DROP = str.maketrans({"\ufffe": None, "\x02": None, "\x00": None, "\r": None})


def read_pdf(path: str, data: bytes, password: str | None = None, watch: Watch | None = None) -> Extraction:
    pdf = _open(path, data, password)
    try:
        return _extract(path, pdf, watch)
    finally:
        pdf.close()


def _open(path, source, password: str | None):
    """PDFium's document of `source` (the bytes, or the path, which PDFium reads as it needs), or
    the one-line error of a missing or wrong password, or of a damaged or truncated file."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(source, password=password)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise _password_error(path, password) from None
        raise DocumentError(path, _open_problem(str(exc))) from None


def check_opens(path, password: str | None) -> None:
    """Raise PasswordError or DocumentError if PDFium cannot open the file at `path`: encrypted
    without this password, or damaged or truncated. Opening reads only the trailer and the
    cross-reference table, so this is quick on a file of any size."""
    _open(path, str(path), password).close()


def check_password(path, password: str | None) -> None:
    """Raise PasswordError if `path` is a PDF that this password (or none) does not open; any
    other file, or other problem, is left to the reader. Opening reads only the trailer and the
    cross-reference table, so this is quick on a file of any size."""
    from . import reader_for

    if reader_for(path) != "pdf":
        return
    try:
        check_opens(path, password)
    except PasswordError:
        raise
    except DocumentError:
        pass


def _password_error(path, password: str | None) -> PasswordError:
    return PasswordError(
        path,
        "wrong password for this encrypted PDF" if password else "encrypted PDF: give its password with --password",
    )


def _open_problem(message: str) -> str:
    found = re.search(r"\(([^()]*)\)", message)
    return f"not a readable PDF, damaged or truncated ({found.group(1) if found else message.strip()})"


def _extract(path: str, pdf, watch: Watch | None) -> Extraction:
    count = len(pdf)
    if count > MAX_PAGES:
        raise DocumentError(path, f"{count:,} pages, over the limit of {MAX_PAGES:,}")
    headings = _outline(pdf, count)
    parts: list[str] = []
    regions: list[Region] = []
    no_text: list[tuple[int, int]] = []
    pos = 0
    for index in range(count):
        if watch is not None:
            watch.report(index / count)
        page = pdf[index]
        textpage = page.get_textpage()
        text = _clean(textpage.get_text_range())
        textpage.close()
        page.close()
        if index:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        if text.strip():
            text = _mark_headings(text, headings.get(index, []))  # and escapes the rest
        else:
            text = f"[page {index + 1}: no text layer]"
            no_text.append((pos, pos + len(text)))
        regions.append(Region(pos, pos + len(text), {"page": index + 1}))
        parts.append(text)
        pos += len(text)
        if pos > MAX_CHARS:
            raise DocumentError(path, f"more than {MAX_CHARS:,} characters of text, over the limit")
    text = "".join(parts) + ("\n" if parts else "")
    # a hole takes the blank lines around its stand-in too, so no chunk is left holding only those
    widened = [_widen(text, a, b) for a, b in no_text]
    # neighbouring holes share the blank lines between them: each keeps its own page's stand-in
    no_text = [(max(a, prev), b) for (a, b), prev in zip(widened, [0] + [b for _, b in widened])]
    warnings = []
    if no_text:
        warnings.append(f"{len(no_text)} of {count} pages have no text layer (OCR is not done): left as gaps")
    # a region runs to the next page's start, so text between pages (the separator) belongs to one
    for here, after in pairwise(regions):
        here.end = after.start
    if regions:
        regions[-1].end = len(text)
    return Extraction(
        text=text,
        extractor=f"{library_version('pypdfium2')}, chunktui pdf rules {RULES}",
        regions=regions,
        no_text=no_text,
        warnings=warnings,
        page_count=count,
    )


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The range with the newlines on either side of it."""
    while start > 0 and text[start - 1] == "\n":
        start -= 1
    while end < len(text) and text[end] == "\n":
        end += 1
    return start, end


def _clean(text: str) -> str:
    """PDFium's page text with plain newlines: no CR, no hyphenation marks, no trailing blanks."""
    lines = text.translate(_DROP).split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _outline(pdf, count: int) -> dict[int, list[tuple[int, str]]]:
    """Outline entries by page index: (level from 1, title)."""
    found: dict[int, list[tuple[int, str]]] = {}
    try:
        for item in pdf.get_toc(max_depth=6):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            title = " ".join((item.get_title() or "").split())
            if index is not None and 0 <= index < count and title:
                found.setdefault(index, []).append((min(item.level + 1, 6), title))
    except Exception:  # noqa: BLE001 - a broken outline leaves the text without headings, not unreadable
        return {}
    return found


_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+")


def _mark_headings(text: str, entries: list[tuple[int, str]]) -> str:
    """Turn the line carrying each outline title into a `#` heading (else add it at the top), and
    escape every other line that markdown would read as a heading or a code fence."""
    lines = text.split("\n")
    marked: dict[int, str] = {}
    top = []
    at = 0
    for level, title in entries:
        want = _plain(title)
        hit = next(
            (
                k
                for k in range(at, len(lines))
                if _plain(lines[k]) == want or _plain(_NUMBER.sub("", lines[k])) == _plain(_NUMBER.sub("", title))
            ),
            None,
        )
        if hit is None:
            top.append(f"{'#' * level} {title}")
            continue
        marked[hit] = f"{'#' * level} {lines[hit].strip()}"
        at = hit + 1
    lines = [marked.get(k) or _escaped(line) for k, line in enumerate(lines)]
    if top:
        lines = [*top, "", *lines]
    return "\n".join(lines)


# A line of text that markdown would read as structure: an ATX heading (`# comment` in a listing),
# a setext underline (a rule of `=` or `-` under a line makes that line a heading) or a code fence.
# Only the outline makes headings, so a backslash goes before the first character of these.
_MARKUP = re.compile(r"^( {0,3})(#|=+[ \t]*$|-+[ \t]*$|```|~~~)")


def _escaped(line: str) -> str:
    return _MARKUP.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line, count=1)


def _plain(line: str) -> str:
    return " ".join(line.split()).casefold()
