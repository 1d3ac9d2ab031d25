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
# and rules give the same text): 2 escapes text lines that markdown reads as headings or fences,
# 3 finds running headers and footers, 4 counts a running header moved to the end of the page
# before to its own page (page_start/page_end change), 5 matches outline titles to lines with
# quotes and dashes plain.
RULES = 5
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
    pages = _page_texts(path, pdf, watch)
    edges = _furniture(pages, headings)
    parts: list[str] = []
    regions: list[Region] = []
    no_text: list[tuple[int, int]] = []
    furniture: list[tuple[int, int]] = []
    pos = 0
    for index, text in enumerate(pages):
        top, bottom = edges[index]
        lines = text.split("\n")
        page_start = None
        if top and index and pages[index - 1].strip():
            # the page's running header ends the page before's text, so no section or chunk opens
            # with it, but counts to its own page: a chunk holding it names the page it is printed on
            head = "\n".join(_escaped(line) for line in lines[:top])
            page_start = pos + 1
            furniture.append((page_start, page_start + len(head)))
            parts.append("\n" + head)
            pos += 1 + len(head)
            lines, top = lines[top:], 0
        if index:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        if text.strip():
            marked = set(range(top)) | set(range(len(lines) - bottom, len(lines)))
            text, added = _mark_headings("\n".join(lines), headings.get(index, []), marked)  # and escapes the rest
            furniture += _line_ranges(text, pos, added, top, bottom)
        else:
            text = f"[page {index + 1}: no text layer]"
            no_text.append((pos, pos + len(text)))
        regions.append(Region(pos if page_start is None else page_start, pos + len(text), {"page": index + 1}))
        parts.append(text)
        pos += len(text)
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
        furniture=_merged(furniture),
        warnings=warnings,
        page_count=count,
    )


def _page_texts(path: str, pdf, watch: Watch | None) -> list[str]:
    """Each page's text, cleaned; refused past MAX_CHARS in all."""
    pages, size, count = [], 0, len(pdf)
    for index in range(count):
        if watch is not None:
            watch.report(index / count)
        page = pdf[index]
        textpage = page.get_textpage()
        pages.append(_clean(textpage.get_text_range()))
        textpage.close()
        page.close()
        size += len(pages[-1])
        if size > MAX_CHARS:
            raise DocumentError(path, f"more than {MAX_CHARS:,} characters of text, over the limit")
    return pages


# Running headers and footers: the first and last lines of a page (two at most) that are the same
# on many pages once digits are ignored, or that carry the page's number. They stay in the text
# (nothing is lost) but are never outline headings, and a page's running header ends the page
# before it, so no section or chunk opens with it. Making them gaps would cut every chunk that
# runs across a page in two.
_EDGE = 2
_REPEATED_SHARE = 0.4  # of the pages with text: a line ignoring digits at the same edge of this many (or close)
_LONE_NUMBER = re.compile(r"^\W*(?:page\s+)?(\d{1,5})(?:\s*(?:of|/)\s*\d{1,5})?\W*$", re.I)  # 7, - 7 -, Page 7 of 20
_EDGE_NUMBER = re.compile(r"^(\d{1,5})\s|\s(\d{1,5})$")  # a header's number: "12 CHAPTER 1" or "Chapter 2: Naming 3"
_ROMAN = re.compile(r"(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})", re.I)  # front matter's lone page numbers


def _furniture(pages: list[str], headings: dict[int, list[tuple[int, str]]]) -> list[tuple[int, int]]:
    """For each page, how many of its first and of its last lines are running headers and footers:
    lines whose shape (digits ignored) is at the same edge of many pages or of pages close together,
    that carry the page's
    number, or that name a section begun on an earlier page. A line at the second place counts only
    when the first is one too; a line shaped as the line inward of it (rows of a table or a listing
    running across pages), or the last line of the page carrying the title of one of its outline
    entries (the heading, under a running header naming it), never does; and a page's lines are
    never all of them."""
    lines = [p.split("\n") if p.strip() else [] for p in pages]
    with_text = sum(1 for page in lines if page)
    need = 3 if with_text >= 5 else 2
    edges = [_edge_lines(page) for page in lines]
    seen: dict[tuple[str, str], set[int]] = {}
    offsets: dict[int, set[int]] = {}
    for index, page in enumerate(edges):
        for zone, _, line in page:
            seen.setdefault((zone, _shape(line)), set()).add(index)
            number = _page_number(line)
            if number is not None:
                offsets.setdefault(number - index, set()).add(index)
    repeated = {
        key
        for key, where in seen.items()
        if key[1]
        and (
            len(where) >= max(need, _REPEATED_SHARE * with_text)
            or key[1][-1] not in ".:,;"
            and _close(sorted(where), need + 1)
        )
    }
    offset = max(offsets, key=lambda k: len(offsets[k]), default=0)
    numbered = len(offsets.get(offset, ())) >= need
    out = []
    first = next((index for index, page in enumerate(lines) if page), 0)
    in_force: set[str] = set()  # the titles of the outline entries on the pages before
    for index, page in enumerate(edges):
        page_lines, own = lines[index], {_title_key(t) for _, t in headings.get(index, [])}
        top = bottom = 0
        for zone, k, line in page:
            inward = page_lines[k + 1 if zone == "top" else -k - 2] if k + 1 < len(page_lines) else ""
            if _shape(line) == _shape(inward) and _plain(line) != _plain(inward):
                continue  # a row of a list, a table or a listing running across pages
            key = _title_key(line)
            at = k if zone == "top" else len(page_lines) - 1 - k
            if key in own and not any(_title_key(other) == key for other in page_lines[at + 1 :]):
                continue  # the last line on the page with the title of one of its outline entries
            number = _page_number(line)
            running = (
                (zone, _shape(line)) in repeated
                # on the first page, the title the running header repeats is the document's own
                and (index > first or _plain(line) in map(_plain, page_lines[at + 1 :]))
                or _names(line, in_force, number is not None)
                or numbered
                and (number is not None and number - index == offset or bool(_ROMAN.fullmatch(line.strip())))
            )
            if running and zone == "top" and k == top:
                top += 1
            elif running and zone == "bottom" and k == bottom:
                bottom += 1
        out.append((top, bottom) if top + bottom < len(page_lines) else (0, 0))
        in_force |= own
    return out


def _close(where: list[int], need: int) -> bool:
    """Whether `need` of the pages are close together: no more than one page apart each (a chapter's
    running header, on every page or on every other one). A line ending as a sentence or a lead-in
    does (`Possible return values:` atop pages of an API reference) is never taken for one."""
    return any(where[k + need - 1] - where[k] <= 2 * (need - 1) for k in range(len(where) - need + 1))


def _title_key(title: str) -> str:
    return _plain(_NUMBER.sub("", title.strip()))


def _names(line: str, titles: set[str], numbered: bool) -> bool:
    """Whether the line is one of the titles (a running header naming the chapter: `Utilities`),
    or, when it carries a number, names one with two words at most besides (`Chapter 3: Utilities
    6`, `Appendix A: Copying Information 25`)."""
    key = _title_key(line)
    if key in titles:
        return True
    plain = _plain(line)
    return numbered and any(
        len(title) >= 3 and title in plain and len(re.findall(r"[^\W\d_]+", plain.replace(title, " ", 1))) <= 2
        for title in titles
    )


def _line_ranges(text: str, pos: int, added: int, top: int, bottom: int) -> list[tuple[int, int]]:
    """The ranges of the first `top` and last `bottom` lines of a page's text that starts at `pos`,
    after the `added` lines put at its top."""
    out = []
    start = 0
    for k in range(added + top):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if k >= added:
            out.append((pos + start, pos + end))
        start = end + 1
    end = len(text)
    for _ in range(bottom):
        start = text.rfind("\n", 0, end) + 1
        out.append((pos + start, pos + end))
        end = start - 1
    return out


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges sorted, those one line feed apart made one (a footer and the next page's header)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _edge_lines(page: list[str]) -> list[tuple[str, int, str]]:
    """(zone, place from the edge, line) of a page's first and last lines."""
    top = [("top", k, line) for k, line in enumerate(page[:_EDGE])]
    bottom = [("bottom", k, line) for k, line in enumerate(reversed(page[-_EDGE:]))]
    return top + bottom if len(page) > _EDGE else top


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", _plain(line))


def _page_number(line: str) -> int | None:
    line = line.strip()
    m = _LONE_NUMBER.match(line) or _EDGE_NUMBER.search(line)
    if m is None:
        return None
    return int(next(g for g in m.groups() if g is not None))


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


def _mark_headings(text: str, entries: list[tuple[int, str]], furniture: set[int]) -> tuple[str, int]:
    """Turn the line carrying each outline title into a `#` heading (else add it at the top), and
    escape every other line that markdown would read as a heading or a code fence. The lines in
    `furniture` (running headers and footers) are never taken for a title. Returns the text and
    the number of lines added at its top."""
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
                if k not in furniture
                and (_plain(lines[k]) == want or _plain(_NUMBER.sub("", lines[k])) == _plain(_NUMBER.sub("", title)))
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
    return "\n".join(lines), len(top) + 1 if top else 0


# A line of text that markdown would read as structure: an ATX heading (`# comment` in a listing),
# a setext underline (a rule of `=` or `-` under a line makes that line a heading) or a code fence.
# Only the outline makes headings, so a backslash goes before the first character of these.
_MARKUP = re.compile(r"^( {0,3})(#|=+[ \t]*$|-+[ \t]*$|```|~~~)")


def _escaped(line: str) -> str:
    return _MARKUP.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line, count=1)


# Typography an outline title and the line printing it may differ in: an outline entry is often
# typed plain (`Nettle's RSA support`) while pdfTeX or an office tool prints curly quotes and dashes
# (`Nettle’s RSA support`). A no-break space is whitespace to str.split already.
_TYPOGRAPHY = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "\u00a0": " "})


def _plain(line: str) -> str:
    """The line as titles are compared: one space between words, quotes and dashes plain, case folded."""
    return " ".join(line.translate(_TYPOGRAPHY).split()).casefold()
