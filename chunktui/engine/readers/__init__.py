"""Readers: a file becomes a Document (documents.py; mail, subtitles, tables and logs parse their
kinds). Here, documents that are not text: PDF, HTML and DOCX become their extracted text.

The extracted text is markdown where the format has structure (headings as `#`, lists, pipe
tables, links). Every offset of a chunk of such a document indexes that text, and its byte
offsets index the text's UTF-8, not the file. What maps a chunk back to the file is kept with
the document: per-page character ranges (PDF), the nearest heading's anchor (HTML), the
body-block index range (DOCX). `locate` adds them to each span's metadata after a strategy ran.

Extractions are cached in memory by the file's sha256 and the reader options, so re-chunking
and reopening never re-extract, and on disk (disk_cache.py; never an encrypted PDF's text), so
another process reopening the file does not either.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from .documents import Document

READERS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".xhtml": "html"}
NO_TEXT_LAYER = "no text layer (OCR is not done)"
RUNNING_LINES = "running header or footer"
_NOT_BLANK = re.compile(r"\S")
_CACHE_SIZE = 16


@dataclass
class Region:
    """A stretch of the extracted text and where it sits in the file: `fields` go into the
    metadata of each chunk that touches it (the first and the last region a chunk touches
    give its `*_start` and `*_end`)."""

    start: int
    end: int
    fields: dict


@dataclass
class Extraction:
    """What a reader made of a file: the text, how it maps back, and who made it."""

    text: str
    extractor: str  # library and version, e.g. "pypdfium2 5.15.2"
    mode: str = ""  # HTML: "main" (main content only) or "whole"
    regions: list[Region] = field(default_factory=list)  # sorted, not overlapping
    no_text: list[tuple[int, int]] = field(default_factory=list)  # ranges that stand for pages without text
    furniture: list[tuple[int, int]] = field(default_factory=list)  # PDF running headers and footers: ranges
    warnings: list[str] = field(default_factory=list)
    page_count: int = 0
    # HTML main content: the letters and digits of the page's text, and of those the text kept
    page_chars: int = 0
    kept_chars: int = 0


@dataclass(repr=False)
class ExtractedDocument(Document):
    """A Document whose text was extracted from a PDF, HTML or DOCX file.

    `sha256` is the file's (what a store matches a source by); `text_sha256` is the text's,
    which is what the offsets index and what an export's source.md holds."""

    extraction: Extraction | None = None

    def __repr__(self) -> str:
        return f"ExtractedDocument(path={self.path!r}, kind={self.kind!r}, extractor={self.extractor!r})"

    @property
    def text_sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def extractor(self) -> str:
        return self.extraction.extractor if self.extraction else ""

    @property
    def page_starts(self) -> list[int]:
        """Offset where each PDF page's text starts (empty for other formats)."""
        return [r.start for r in self.extraction.regions if "page" in r.fields] if self.extraction else []


@dataclass
class Watch:
    """What a caller that reads in a thread (the app) gives a reader: `progress` hears the share
    done, from 0 to 1, and `is_cancelled` is asked between pages, so a read nobody waits for any
    more stops (raising Cancelled) instead of running to its end."""

    progress: Callable[[float], None] | None = None
    is_cancelled: Callable[[], bool] | None = None

    def report(self, fraction: float) -> None:
        if self.is_cancelled is not None and self.is_cancelled():
            from ..core.errors import Cancelled

            raise Cancelled
        if self.progress is not None:
            self.progress(fraction)


_cache: OrderedDict[tuple, Extraction] = OrderedDict()


def reader_for(path) -> str | None:
    """The reader a file's suffix calls for, or None for text files."""
    from pathlib import Path

    return READERS.get(Path(path).suffix.lower())


def check_opens(path, password: str | None = None) -> None:
    """Raise DocumentError (PasswordError for a missing or wrong password) when the reader of the
    file's format cannot open it at all: a damaged or truncated PDF, an encrypted one without its
    password, a DOCX that is no zip or no Word package. Quick (the file is opened, not read
    through), so the app's command line can say so in one line before its screen takes over;
    HTML and text files are left to their readers, which take any bytes."""
    fmt = reader_for(path)
    if fmt == "pdf":
        from .pdf import check_opens as check_pdf

        check_pdf(path, password)
    elif fmt == "docx":
        from .docx import check_opens as check_docx

        check_docx(path)


def extract(path: str, data: bytes, digest: str, options: dict | None = None, watch: Watch | None = None) -> Extraction:
    """The file's extraction, from the cache when this content was read with these options.
    `watch` hears of the reader's progress and may stop it (a PDF reports page by page, a DOCX
    every 500 body blocks; HTML is read in one call and reports only its end)."""
    options = dict(options or {})
    fmt = reader_for(path)
    key = (digest, fmt, options.get("html", "main") if fmt == "html" else "", options.get("password") or "")
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit
    from . import disk_cache

    on_disk = disk_cache.entry_path(digest, fmt, key[2]) if fmt and disk_cache.cacheable(fmt, data, options) else None
    result = disk_cache.load(on_disk) if on_disk is not None else None
    if result is None:
        result = _read(path, data, fmt, options, watch)
        if on_disk is not None:
            disk_cache.store(on_disk, result)
    _cache[key] = result
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    if watch is not None:
        watch.report(1.0)
    return result


def _read(path: str, data: bytes, fmt: str | None, options: dict, watch: Watch | None) -> Extraction:
    if fmt == "pdf":
        from .pdf import read_pdf

        return read_pdf(path, data, options.get("password"), watch)
    if fmt == "docx":
        from .docx import read_docx

        return read_docx(path, data, watch)
    from .html import read_html

    return read_html(path, data, options.get("html", "main"))


def extracted_document(
    path: str,
    data: bytes,
    digest: str,
    options: dict | None = None,
    language: str | None = None,
    watch: Watch | None = None,
) -> ExtractedDocument:
    """An ExtractedDocument of the file's bytes, read as markdown."""
    result = extract(path, data, digest, options, watch)
    return ExtractedDocument(
        text=result.text,
        path=path,
        kind="markdown",
        language=language,
        sha256=digest,
        encoding="utf-8",
        warnings=[f"{path}: {w}" for w in result.warnings],
        extraction=result,
    )


def locate(doc, proposal) -> None:
    """Add where each span sits in the file to its metadata, and leave the stand-ins of pages
    without a text layer out of every chunk (they become gaps with that reason). A PDF's running
    headers and footers stay in the chunks that hold them, but a span holding nothing else is left
    out (a gap with that reason), and a span's label is never one of them."""
    ex = getattr(doc, "extraction", None)
    if ex is None:
        return
    from ..core.model import Span

    spans = _cut_out(list(proposal.spans), ex.no_text)
    proposal.gaps = [*proposal.gaps, *((a, b, NO_TEXT_LAYER) for a, b in ex.no_text)]
    if ex.furniture:
        spans, running = _past_running_lines(doc.text, spans, ex.furniture)
        proposal.gaps = sorted([*proposal.gaps, *((a, b, RUNNING_LINES) for a, b in running)])
    starts = [r.start for r in ex.regions]
    located = []
    for s in spans:
        meta = dict(s.metadata)
        if starts:
            first = ex.regions[max(0, bisect_right(starts, s.start) - 1)]
            last = ex.regions[max(0, bisect_right(starts, max(s.start, s.end - 1)) - 1)]
            for name, value in first.fields.items():
                meta[f"{name}_start"] = value
            for name, value in last.fields.items():
                meta[f"{name}_end"] = value
        located.append(Span(s.start, s.end, s.boundary_type, s.boundary_label, meta, s.context_text))
    proposal.spans = located


def _past_running_lines(text: str, spans, furniture: list[tuple[int, int]]):
    """The spans without those that hold only running headers and footers (and blank lines; each
    such span's range is returned, when no other span overlaps it), and with the label of a span
    that opens with one taken from the first line after it."""
    from ..core.model import Span, one_line

    ends = [b for _, b in furniture]
    kept, running = [], []
    for k, s in enumerate(spans):
        found = _NOT_BLANK.search(text, s.start, s.end)
        first = found.start() if found else s.end
        i = bisect_right(ends, first - 1)  # the first range ending at or after the span's first character
        if found is None or i == len(furniture) or furniture[i][0] > first:
            kept.append(s)
            continue
        end = min(furniture[i][1], s.end)
        after = _NOT_BLANK.search(text, end, s.end)
        if after is None:
            if (k == 0 or spans[k - 1].end <= s.start) and (k + 1 == len(spans) or spans[k + 1].start >= s.end):
                running.append((s.start, s.end))
            else:  # other spans overlap it: it stays, as it came
                kept.append(s)
            continue
        line = one_line(text[first:end])
        if s.boundary_label and (line.startswith(s.boundary_label) or s.boundary_label.startswith(line)):
            label = one_line(text[after.start() : s.end].split("\n", 1)[0], 60)
            s = Span(s.start, s.end, s.boundary_type, label, s.metadata, s.context_text)
        kept.append(s)
    return kept, running


def _cut_out(spans, holes):
    """Spans with the hole ranges taken out (a span across a hole becomes its two sides)."""
    if not holes:
        return spans
    from ..core.model import Span

    out = []
    hole_ends = [b for _, b in holes]  # holes are sorted and apart, so their ends rise too
    for s in spans:
        pieces = [(s.start, s.end)]
        for a, b in holes[bisect_right(hole_ends, s.start) :]:
            if a >= s.end:
                break
            pieces = [p for x, y in pieces for p in ((x, min(y, a)), (max(x, b), y)) if p[1] > p[0]]
        for x, y in pieces:
            out.append(Span(x, y, s.boundary_type, s.boundary_label, s.metadata, s.context_text))
    return out


def library_version(dist: str) -> str:
    from importlib.metadata import version

    return f"{dist} {version(dist)}"


EXTRACTED_TEXT_NAME = "source.md"


def extraction_fields(doc, file: str | None = None) -> dict:
    """What a manifest or a store records of an extracted document, so anyone can check its
    offsets against the same text: the extractor, the text's hash and size, the reader's mode.
    Empty for a text file."""
    ex = getattr(doc, "extraction", None)
    if ex is None:
        return {}
    fields = {
        "extractor": ex.extractor,
        "text_sha256": doc.text_sha256,
        "text_chars": len(doc.text),
        "offsets": "characters and UTF-8 bytes of the extracted text, not of the file",
    }
    if file:
        fields["file"] = file
    if ex.mode:
        fields["mode"] = ex.mode
    if ex.page_count:
        fields["pages"] = ex.page_count
    if ex.page_chars:
        fields["page_chars"] = ex.page_chars
        fields["kept_chars"] = ex.kept_chars
    return {"extraction": fields}


def write_extracted_text(doc, folder) -> None:
    """Put the extracted text beside an export's chunks (source.md), for a document that has one."""
    if getattr(doc, "extraction", None) is not None:
        from pathlib import Path

        with open(Path(folder) / EXTRACTED_TEXT_NAME, "w", encoding="utf-8", newline="") as fh:
            fh.write(doc.text)


def same_extraction(doc, stored: dict | None) -> bool:
    """Whether a re-read source gives the text a store recorded (true when it recorded none)."""
    wanted = (stored or {}).get("text_sha256")
    return wanted is None or getattr(doc, "extraction", None) is not None and doc.text_sha256 == wanted


def extraction_change(doc, stored: dict | None) -> str | None:
    """How a re-read source's extraction differs from the one a store recorded ("was X, now Y",
    naming the extractors), or None when it gives the recorded text. Asked of a file whose sha256
    is unchanged, it tells a new extractor or new rules from a changed file."""
    if same_extraction(doc, stored):
        return None
    was = (stored or {}).get("extractor") or "an unrecorded extractor"
    now = getattr(doc, "extractor", "") or "no extractor (read as text)"
    return f"was {was}, now {now}" if was != now else f"{now} both times, the text differs"


# The start of a line that markdown reads as structure: an ATX heading, a list item (`-`, `*`, `+`,
# `1.`, `1)`), a quote, a table row, a code fence, a setext underline or a thematic break.
_STRUCTURE = re.compile(
    r"^([ \t]*)(?:(\d{1,9})([.)])(?=[ \t]|$)"
    r"|(#{1,6}(?=[ \t]|$)|[-*+](?=[ \t]|$)|[>|]|`{3}|~{3}|=+[ \t]*$|-+[ \t]*$|[-*_](?:[ \t]*[-*_]){2,}[ \t]*$))"
)


def escape_structure(text: str) -> str:
    """Body text whose lines cannot be read as markdown structure: a backslash goes before the
    character that would make a line a heading, an item, a quote, a table row, a fence or a rule
    (`\\# not a heading`, `1\\. not an item`), so only the document's own headings and lists
    give header paths and items."""
    return "\n".join(_STRUCTURE.sub(_escape_one, line, count=1) for line in text.split("\n"))


def _escape_one(m: re.Match) -> str:
    if m.group(2):
        return f"{m.group(1)}{m.group(2)}\\{m.group(3)}"
    return f"{m.group(1)}\\{m.group(4)}"


def pipe_table(rows: list[list[str]]) -> str:
    """Cell texts as a markdown pipe table, the first row as its header; empty rows left out, short
    rows padded. DOCX and HTML tables both become this."""
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(map(len, rows))
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]])
