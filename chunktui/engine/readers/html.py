"""HTML: the page's main content (trafilatura) or the whole page (`whole`), as markdown.

Main content leaves out navigation, banners, footers and scripts as trafilatura judges them;
`--html whole` converts every element of the body instead, with these rules: scripts, styles
and templates are dropped, h1-h6 become `#` headings, lists `-`/`1.` items, tables pipe tables,
pre blocks fences, links `[text](url)`. Each chunk gets the anchor of the heading above it
(the heading's id, else its text as a slug).
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..core.errors import DocumentError
from . import Extraction, Region, library_version, pipe_table

MAX_BYTES = 50_000_000
MAX_DEPTH = 200  # deeper elements are read as plain text: bounds the converter's recursion
# libxml2 itself refuses elements nested more than 2,048 deep (with huge_tree; 256 without)
MAX_ELEMENTS = 2_000_000
_SKIP = {"script", "style", "noscript", "template", "head", "iframe", "svg", "canvas", "button", "select"}
_BLOCK = {"p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "blockquote", "body",
          "html", "dl", "dt", "dd", "form", "figure", "figcaption", "address", "center", "li", "hr", "details",
          "summary", "fieldset"}
_HEADING = re.compile(r"^(#{1,6}) +(.*)$")


def read_html(path: str, data: bytes, mode: str = "main") -> Extraction:
    import lxml.etree
    import lxml.html

    if len(data) > MAX_BYTES:
        raise DocumentError(path, f"{len(data):,} bytes of HTML, over the limit of {MAX_BYTES:,}")
    if not data.strip():
        return Extraction(text="", extractor=library_version("lxml"), mode=mode, warnings=["the page is empty: no chunks"])
    try:
        parser = lxml.html.HTMLParser(remove_comments=True, remove_pis=True, huge_tree=True)
        root = lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentError(path, f"not readable as HTML ({exc})") from None
    fatal = [e for e in parser.error_log if e.level_name == "FATAL"]
    if fatal:  # libxml2 stops there (elements nested past 2,048 deep): the rest would be lost silently
        raise DocumentError(path, f"not readable as HTML past line {fatal[0].line} ({fatal[0].message.split(',')[0]})")
    if sum(1 for _ in root.iter()) > MAX_ELEMENTS:
        raise DocumentError(path, f"more than {MAX_ELEMENTS:,} elements, over the limit")
    warnings = []
    text = None
    extractor = "chunktui html-whole (lxml " + library_version("lxml").split()[-1] + ")"
    if mode == "main":
        import trafilatura

        text = trafilatura.extract(lxml.html.tostring(root, encoding="unicode"), output_format="markdown",
                                   include_links=True, include_tables=True, include_formatting=True, include_comments=False,
                                   include_images=False, deduplicate=False, with_metadata=False)
        extractor = library_version("trafilatura")
        if not text or not text.strip():
            warnings.append("no main content found; read the whole page instead (as --html whole does)")
            text = None
            extractor = "chunktui html-whole (lxml " + library_version("lxml").split()[-1] + ")"
            mode = "whole"
    if text is None:
        text = _Converter().markdown(root)
    text = _tidy(text)
    return Extraction(text=text, extractor=extractor, mode=mode, regions=_anchors(text, root), warnings=warnings)


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    return out + "\n" if out else ""


def _anchors(text: str, root) -> list[Region]:
    """A region per heading of the text, named by the id of the element with that heading's
    text (else a slug of it); text before the first heading has none."""
    ids: dict[str, str] = {}
    for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        key = _words(el.text_content())
        anchor = el.get("id") or next((a.get("id") or a.get("name") for a in el.iter("a") if a.get("id") or
                                       a.get("name")), None) or (el.getparent().get("id") if el.getparent()
                                                                 is not None else None)
        if key and anchor and key not in ids:
            ids[key] = anchor
    regions = [Region(0, 0, {})]
    pos = 0
    for line in text.split("\n"):
        m = _HEADING.match(line)
        if m:
            title = _words(m.group(2))
            regions.append(Region(pos, pos, {"anchor": "#" + (ids.get(title) or _slug(title))}))
        pos += len(line) + 1
    for here, after in pairwise(regions):
        here.end = after.start
    regions[-1].end = len(text)
    return [r for r in regions if r.end > r.start or r is regions[-1]]


def _words(text: str) -> str:
    return " ".join(re.sub(r"[\[\]()*_`#]", " ", text).split()).casefold()


def _slug(title: str) -> str:
    return re.sub(r"[^\w]+", "-", title.casefold()).strip("-")


class _Converter:
    """The whole page to markdown blocks, by the rules in the module's docstring."""

    def __init__(self):
        self.out: list[str] = []
        self.items: set[int] = set()  # indexes in `out` of list items, which follow each other without a blank line
        self.buf: list[str] = []
        self.prefix = ""

    def markdown(self, root) -> str:
        body = root.find("body")
        self.visit(body if body is not None else root, 0)
        self.flush()
        parts = []
        for k, block in enumerate(self.out):
            if k:
                parts.append("\n" if k in self.items and k - 1 in self.items else "\n\n")
            parts.append(block)
        return "".join(parts)

    def flush(self) -> None:
        text = " ".join("".join(self.buf).split())
        self.buf = []
        if text:
            if self.prefix:
                self.items.add(len(self.out))
            self.out.append(self.prefix + text)

    def visit(self, el, depth: int) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in _SKIP or not tag:
            return
        if depth > MAX_DEPTH:
            self.buf.append(" " + el.text_content() + " ")
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.flush()
            title = " ".join(el.text_content().split())
            if title:
                self.out.append(f"{'#' * int(tag[1])} {title}")
        elif tag == "pre":
            self.flush()
            code = el.text_content().strip("\n")
            if code.strip():
                self.out.append(f"```\n{code}\n```")
        elif tag == "table":
            self.flush()
            table = _table(el)
            if table:
                self.out.append(table)
        elif tag in ("ul", "ol"):
            self.flush()
            n = 0
            for item in el:
                if getattr(item, "tag", "") != "li":
                    continue
                n += 1
                outer = self.prefix
                self.prefix = " " * len(outer) + (f"{n}. " if tag == "ol" else "- ")
                self._children(item, depth)
                self.flush()
                self.prefix = outer
        elif tag == "a" and el.get("href") and not el.get("href").startswith(("#", "javascript:")):
            label = " ".join(el.text_content().split())
            self.buf.append(f"[{label}]({el.get('href')})" if label else "")
        elif tag == "br":
            self.flush()
        elif tag in _BLOCK:
            self.flush()
            self._children(el, depth)
            self.flush()
        else:
            self._children(el, depth)
        if el.tail:
            self.buf.append(el.tail)

    def _children(self, el, depth: int) -> None:
        if el.text:
            self.buf.append(el.text)
        for child in el:
            self.visit(child, depth + 1)


def _table(el) -> str:
    return pipe_table([[" ".join(c.text_content().split()).replace("|", "\\|") for c in tr
                        if getattr(c, "tag", "") in ("td", "th")] for tr in el.iter("tr")])
