"""HTML: the page's main content (trafilatura) or the whole page (`whole`), as markdown.

Main content leaves out navigation, banners, footers and scripts as trafilatura judges them;
`--html whole` converts every element of the body instead, with these rules: scripts, styles
and templates are dropped, h1-h6 become `#` headings, lists `-`/`1.` items, tables pipe tables,
pre blocks fences, links `[text](url)`; other text is body text, with a backslash before a
leading `#`, `-`, `1.`, `>` or `|` that markdown would read as structure (trafilatura escapes
the first four in main mode).
Each chunk gets the anchor of the heading above it (the heading's id, else its text as a slug)
and the element path of the blocks it starts and ends in (`body > div#content > div.section > p`).

Each block of the text (a paragraph, an item, a table) is matched to the element it came from
by its first words, walking the page and the text in step. Trafilatura leaves out or flattens
the headings of many manuals (DocBook's, Texinfo's and gtk-doc's in /usr/share/doc): in main
mode, a block matched to an h1-h6 element becomes a `#` heading, and a heading element left out
between two matched blocks is put back before the second, unless it sits in navigation, a
header (not an article's own, which holds its title), a footer or an aside, shares no container
below the body with that block, or lies outside the element holding nine tenths of the kept text
in a part of the page none of whose text was kept (a news page's sidebar of headlines).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import pairwise
from typing import Any

from ..core.errors import DocumentError
from . import Extraction, Region, escape_structure, library_version, pipe_table

# The version of this reader's own rules, named in the extractor with trafilatura's or lxml's (the
# same library and rules give the same text); bump it on any change of the text: 2 keeps a list's
# items on consecutive lines (whole), 3 escapes body text that markdown reads as structure, 4 puts
# back headings trafilatura left out (main), 5 marks footnote references in headings, 6 keeps an
# article's own header's title and leaves trafilatura's escapes alone, 7 leaves out a sidebar's headings,
# 8 reads a page that names no encoding as UTF-8 when it is.
RULES = 8
# Any page past these is refused: they bound the whole-page conversion's time and memory (its time
# grows with the bytes and the elements; bench/READERS.md has the figures). The largest page under
# /usr/share/doc is 8.4 MB with 182,209 elements.
MAX_BYTES = 20_000_000
MAX_ELEMENTS = 500_000
MAX_DEPTH = 200  # deeper elements are read as plain text: bounds the converter's recursion
# libxml2 itself refuses elements nested more than 2,048 deep (with huge_tree; 256 without)
# Main content is refused past these (pointing to --html whole): trafilatura's time grows with the
# elements and with each element's depth (several of its passes look at every element's
# descendants), bench/READERS.md has the figures. 50,000 elements is a 2 MB page; the largest
# page under /usr/share/doc, Node's all.html (182,209 elements, 1.65 M pairs), is over both.
MAIN_MAX_BYTES = 5_000_000  # trafilatura parses the page again without huge_tree: a text over 10 MB is lost
MAIN_MAX_ELEMENTS = 50_000
MAIN_MAX_NESTING = 1_000_000  # element-ancestor pairs: the sum of every element's depth
# Past this many elements trafilatura runs without its fallbacks (readability and jusText), which
# it tries when its own extraction looks short or unclean: jusText's pass over runs of short
# paragraphs is quadratic (16,000 short list items: 75 s, against 3 s without the fallbacks).
FALLBACK_MAX_ELEMENTS = 3_000
# How main content is asked of trafilatura (bench/html_bounds.py times the same call): markdown with
# links, tables and emphasis; no comments, images, metadata, or its deduplication across calls
TRAFILATURA_OPTIONS: dict[str, Any] = {
    "output_format": "markdown",
    "include_links": True,
    "include_tables": True,
    "include_formatting": True,
    "include_comments": False,
    "include_images": False,
    "deduplicate": False,
    "with_metadata": False,
}
_SKIP = {"script", "style", "noscript", "template", "head", "iframe", "svg", "canvas", "button", "select"}
_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "blockquote",
    "body",
    "html",
    "dl",
    "dt",
    "dd",
    "form",
    "figure",
    "figcaption",
    "address",
    "center",
    "li",
    "hr",
    "details",
    "summary",
    "fieldset",
}
_HEADING = re.compile(r"^(#{1,6}) +(.*)$")
_DECLARED = re.compile(rb"<meta[^>]*charset|<\?xml[^>]*encoding", re.IGNORECASE)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_PART = 200  # characters: what makes the part of a page a heading heads (see _in_dropped_part)


def read_html(path: str, data: bytes, mode: str = "main") -> Extraction:
    import lxml.etree
    import lxml.html

    if len(data) > MAX_BYTES:
        raise DocumentError(path, f"{len(data):,} bytes of HTML, over the limit of {MAX_BYTES:,}")
    if not data.strip():
        return Extraction(
            text="", extractor=library_version("lxml"), mode=mode, warnings=["the page is empty: no chunks"]
        )
    if mode == "main" and len(data) > MAIN_MAX_BYTES:
        raise DocumentError(
            path,
            f"{len(data):,} bytes of HTML, over main-content extraction's limit of "
            f"{MAIN_MAX_BYTES:,}; read the whole page with --html whole",
        )
    try:
        parser = lxml.html.HTMLParser(
            remove_comments=True, remove_pis=True, huge_tree=True, encoding=_undeclared_utf8(data)
        )
        root = lxml.html.document_fromstring(data, parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentError(path, f"not readable as HTML ({exc})") from None
    fatal = [e for e in parser.error_log if e.level_name == "FATAL"]
    if fatal:  # libxml2 stops there (elements nested past 2,048 deep): the rest would be lost silently
        raise DocumentError(path, f"not readable as HTML past line {fatal[0].line} ({fatal[0].message.split(',')[0]})")
    _mark_note_references(root)
    count, nesting = _size(root)
    if count > MAX_ELEMENTS:
        raise DocumentError(path, f"{count:,} elements, over the limit of {MAX_ELEMENTS:,}")
    if mode == "main" and (count > MAIN_MAX_ELEMENTS or nesting > MAIN_MAX_NESTING):
        over = (
            f"{count:,} elements, over main-content extraction's limit of {MAIN_MAX_ELEMENTS:,}"
            if count > MAIN_MAX_ELEMENTS
            else f"its elements' depths add up to {nesting:,}, over main-content extraction's limit of "
            f"{MAIN_MAX_NESTING:,}"
        )
        raise DocumentError(path, f"{over}; read the whole page with --html whole")
    warnings = []
    text = None
    whole_page = f"chunktui html-whole (lxml {library_version('lxml').split()[-1]}), chunktui html rules {RULES}"
    extractor = whole_page
    if mode == "main":
        import trafilatura

        text = trafilatura.extract(
            lxml.html.tostring(root, encoding="unicode"), **TRAFILATURA_OPTIONS, fast=count > FALLBACK_MAX_ELEMENTS
        )
        extractor = f"{library_version('trafilatura')}, chunktui html rules {RULES}"
        if not text or not text.strip():
            warnings.append("no main content found; read the whole page instead (as --html whole does)")
            text = None
            extractor = whole_page
            mode = "whole"
    page_chars = kept_chars = 0
    if text is None:  # the whole page: its blocks know their elements
        units = _Converter().units(root)
    else:  # trafilatura's text: its blocks are matched to the page's elements
        blocks = _blocks(root)
        body = root.find("body")
        units = _match(_units(_tidy(text)), blocks, body if body is not None else root)
        units = _settle_escapes(_restore_headings(units, blocks))
    text, regions = _assemble(units, root)
    if mode == "main":
        page_chars = _word_chars(root.find("body") if root.find("body") is not None else root)
        kept_chars = min(page_chars, sum(map(len, _WORD.findall(_LINK_URL.sub("]", text)))))
        if kept_chars < page_chars:
            warnings.append(main_content_note(kept_chars, page_chars))
    return Extraction(
        text=text,
        extractor=extractor,
        mode=mode,
        regions=regions,
        warnings=warnings,
        page_chars=page_chars,
        kept_chars=kept_chars,
    )


def main_content_note(kept_chars: int, page_chars: int) -> str:
    """What main content left out, as the warnings and the app's banner say it."""
    return (
        f"HTML main content: {kept_chars:,} of {page_chars:,} characters of the page's text kept; "
        "--html whole reads all"
    )


def _word_chars(el) -> int:
    """The letters and digits of an element's text (scripts and styles are out of the tree by
    then): what main content's share of the page is measured in, since markdown's marks and a
    link's URL are not the page's text, nor is its whitespace."""
    return sum(len(word) for piece in el.itertext() for word in _WORD.findall(piece))


_NOTE_TEXT = re.compile(r"\[?([\w*†‡§]{1,6})\]?")  # what a footnote reference shows: 1, [2], a, *
_NOTE_MARK = re.compile(r"\[\^[^\]\s]+\]")


def _mark_note_references(root) -> None:
    """Footnote references in headings (`<sup><a href="#fn1">1</a></sup>`, pandoc's
    `<a href="#fn1" role="doc-noteref"><sup>1</sup></a>`, Wikipedia's `<sup><a>[1]</a></sup>`)
    become the text `[^1]`, as DOCX marks are: the heading keeps its mark, and header paths and
    labels, which leave such marks out, name it `Intro`, not `Intro1`."""
    for heading in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        for el in list(heading.iter("sup", "a")):
            if heading not in el.iterancestors():  # inside a reference already replaced
                continue
            outer = el.getparent()
            if outer.tag == "a" and _note_reference(outer):
                el = outer  # the link around the <sup>: the mark replaces both
            mark = _note_reference(el)
            if mark:
                _replace_with_text(el, f"[^{mark}]")


def _note_reference(el) -> str | None:
    """The mark a footnote reference shows (`1` of `<sup><a href="#fn1">[1]</a></sup>`), or None
    if `el` is none: a reference is a <sup> holding a link within the page, or such a link that
    is marked as a note reference or holds a <sup>, and its text is a short mark."""
    shown = _NOTE_TEXT.fullmatch(el.text_content().strip())
    if shown is None:
        return None
    if el.tag == "sup":
        found = any((a.get("href") or "").startswith("#") for a in el.iter("a"))
    else:
        classes = (el.get("class") or "") + " " + (el.get("role") or "")
        found = (el.get("href") or "").startswith("#") and (
            el.find(".//sup") is not None or "noteref" in classes or "footnote" in classes
        )
    return shown.group(1) if found else None


def _replace_with_text(el, text: str) -> None:
    """Take `el` out of the tree, leaving `text` (and the text after it) where it stood."""
    parent, before = el.getparent(), el.getprevious()
    text += el.tail or ""
    if before is not None:
        before.tail = (before.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
    parent.remove(el)


def _undeclared_utf8(data: bytes) -> str | None:
    """The encoding "utf-8" for a page that names none (no byte-order mark, no meta charset, no XML
    declaration) and is valid UTF-8; else None: the page's own declaration, or libxml2's default.
    libxml2 may read such a page as Latin-1, where a browser sniffs UTF-8: a heading's permalink
    `¶` came out as `Â¶`."""
    if data.startswith(_BOMS) or _DECLARED.search(data, 0, 65_536):
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "utf-8"


def _size(root) -> tuple[int, int]:
    """The number of elements (comments and the like included) and the sum of their depths."""
    import lxml.etree

    count = nesting = depth = 0
    for event, _ in lxml.etree.iterwalk(root, events=("start", "end")):
        if event == "start":
            count += 1
            nesting += depth
            depth += 1
        else:
            depth -= 1
    return count, nesting


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _tidy(text: str) -> str:
    lines = [line.rstrip() for line in _lines(text)]
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    return out + "\n" if out else ""


# the elements a block of the text is matched to: the whole-page rules' blocks, headings, code and tables
_BLOCK_TAGS = (_BLOCK - {"body", "html", "hr"}) | {
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "table",
    "td",
    "th",
    "caption",
}
_ASIDE = frozenset({"nav", "header", "footer", "aside"})  # a heading in these is never put back (see _in_aside)
_KEY_WORDS = 8  # a block is matched to an element by this many first words
_KEY_CHARS = 400  # read from its first this many characters
_LOOKAHEAD = 2_000  # a block matches an element at most this far past the last match (not a far repeat)
_ITEM = re.compile(r"\s*(?:[-*+]|\d+\.)\s")
_MARKER = re.compile(r"^(?:#{1,6}|[-*+]|\d+\.|>)\s+")
_LINK_URL = re.compile(r"\]\([^)]*\)")
_WORD = re.compile(r"\w+")
_PATH_DEPTH = 8  # deeper paths keep their first two and last five steps around an ellipsis


class _Unit:
    """A block of the text (a paragraph, heading, item or table) and the page element it came from."""

    __slots__ = ("text", "separator", "element", "index")

    def __init__(self, text: str, separator: str) -> None:
        self.text, self.separator = text, separator
        self.element: Any = None  # the page element it came from (an lxml element), when matched
        self.index: int | None = None  # and that element's place among the page's blocks


def _units(text: str) -> list[_Unit]:
    """The text's blocks: split at blank lines, before each list item (outside a table) and
    around each heading line (trafilatura writes a heading right under a code fence at times).
    A code line that looks like an item or a heading splits its block too, which matters only
    to the matching: the text is put back together as it was."""
    units: list[_Unit] = []
    for k, block in enumerate(text.strip("\n").split("\n\n")):
        separator = "\n\n" if k else ""
        current: list[str] = []
        for line in block.split("\n"):
            if current and (
                _HEADING.match(line)
                or _HEADING.match(current[-1])
                or _ITEM.match(line)
                and not current[0].startswith("|")
            ):
                units.append(_Unit("\n".join(current), separator))
                current, separator = [], "\n"
            current.append(line)
        units.append(_Unit("\n".join(current), separator))
    return [u for u in units if u.text]


def _key(text: str, markdown: bool = True) -> tuple[str, ...]:
    """The first words of a block of the text (without its markdown marker and its links' URLs),
    or with `markdown` false, of an element's text."""
    text = text[:_KEY_CHARS]
    if markdown:
        text = _LINK_URL.sub("]", _MARKER.sub("", text.lstrip()))
    return tuple(_WORD.findall(text.casefold())[:_KEY_WORDS])


def _element_key(el) -> tuple[str, ...]:
    """The first words of an element's text, read only as far as they go."""
    seen, size = [], 0
    for piece in el.itertext():
        seen.append(piece)
        size += len(piece)
        if size >= _KEY_CHARS:
            break
    return _key("".join(seen), markdown=False)


def _blocks(root) -> list:
    """The page's block elements in document order, once the skipped elements (scripts, buttons)
    are taken out of the tree, their tails left in place: the text never holds what they hold."""
    import lxml.etree

    lxml.etree.strip_elements(root, *_SKIP, with_tail=False)
    body = root.find("body")
    return list((body if body is not None else root).iter(*_BLOCK_TAGS))


def _match(units: list[_Unit], blocks: list, body) -> list[_Unit]:
    """Give each unit the deepest element whose text starts as the unit does (a heading: the first
    heading element that does), walking forward; a unit that matches none (a code block's second
    half) continues the element before it, and one before any match (trafilatura's flat text of
    a small page: "Home\nWorld\nTitle...") is only known to be in the body."""
    keys = [_element_key(b) for b in blocks]
    where: dict[tuple, list[int]] = {}  # a key -> the places of the elements with it, rising
    headings: dict[tuple, list[int]] = {}
    for i, (key, el) in enumerate(zip(keys, blocks)):
        where.setdefault(key, []).append(i)
        if _level(el):
            headings.setdefault(key, []).append(i)
    cursor, previous = 0, body
    for unit in units:
        want = _key(unit.text)
        # a heading is matched to a heading element (not to its entry in a table of contents)
        places = (headings if _HEADING.match(unit.text) else where).get(want, []) if want else []
        k = bisect_left(places, cursor)
        if k == len(places) or places[k] >= cursor + _LOOKAHEAD:
            unit.element = previous
            continue
        found = places[k]
        while (
            found + 1 < len(blocks) and keys[found + 1] == want and blocks[found] in blocks[found + 1].iterancestors()
        ):
            found += 1  # a container starting with the same words: its inner element is the block
        unit.element = previous = blocks[found]
        unit.index = found
        cursor = found + 1
    return units


def _restore_headings(units: list[_Unit], blocks: list) -> list[_Unit]:
    """Headings trafilatura flattened into paragraphs or left out, put back (see the docstring)."""
    out: list[_Unit] = []
    last = -1
    kept = _kept_and_above(units)
    main = _main_container(units)
    sizes: dict[Any, int] = {}  # text characters under each element, made on first need

    def dropped(h) -> bool:
        """Outside the part of the page that holds most of the kept text, in a part none of whose
        text was kept: a news page's sidebar of headlines, a search form."""
        if main is None or main in h.iterancestors():
            return False
        if not sizes:
            sizes.update(_text_sizes(h.getroottree().getroot()))
        return _in_dropped_part(h, kept, sizes)

    for unit in units:
        if unit.index is not None:
            for h in blocks[last + 1 : unit.index]:
                title = " ".join(h.text_content().replace("¶", " ").split())
                if _level(h) and title and _shares_container(h, unit.element) and not _in_aside(h) and not dropped(h):
                    restored = _Unit(f"{'#' * _level(h)} {title}", "\n\n")
                    restored.element = h
                    out.append(restored)
            last = unit.index
            if _level(unit.element) and not unit.text.startswith("#"):
                unit.text = f"{'#' * _level(unit.element)} {' '.join(unit.text.split())}"
        out.append(unit)
    if out:
        out[0].separator = ""
        for unit in out[1:]:
            unit.separator = unit.separator or "\n\n"
    return out


_ESCAPED_NOTE_MARK = re.compile(r"\\\[\^([^\]\s\\]+)\\\]")


def _settle_escapes(units: list[_Unit]) -> list[_Unit]:
    """Trafilatura escapes the brackets of a heading's note mark (`Intro\\[^1\\]`): they are put
    back. (It escapes a paragraph's leading "#", "-", "1." and ">" itself; a paragraph's one line
    starting with "|" is left as it wrote it: without a delimiter row it is no table, and one-row
    layout tables come out so.)"""
    for unit in units:
        if _HEADING.match(unit.text):
            unit.text = _ESCAPED_NOTE_MARK.sub(r"[^\1]", unit.text)
    return units


def _main_container(units: list[_Unit]) -> Any:
    """The deepest element that holds nine tenths of the text trafilatura kept: the article of a
    news page, the body (or its one content div) of a manual."""
    kept: dict[Any, int] = {}
    total = 0
    for unit in units:
        if unit.index is None:
            continue
        total += len(unit.text)
        for el in (unit.element, *unit.element.iterancestors()):
            kept[el] = kept.get(el, 0) + len(unit.text)
    chain = [el for el, n in kept.items() if n * 10 >= total * 9]  # nested: one line of ancestors
    return max(chain, key=lambda el: sum(1 for _ in el.iterancestors()), default=None)


def _kept_and_above(units: list[_Unit]) -> set:
    """The elements trafilatura kept text of, and every element above them."""
    out: set = set()
    for unit in units:
        if unit.index is not None and unit.element not in out:
            out.add(unit.element)
            for el in unit.element.iterancestors():
                if el in out:
                    break
                out.add(el)
    return out


def _text_sizes(root) -> dict[Any, int]:
    """The characters of text under each element (its tail left out), in one pass from the leaves."""
    sizes: dict[Any, int] = {}
    for el in reversed(list(root.iter())):
        n = len(el.text or "") if isinstance(el.tag, str) else 0
        for child in el:
            n += sizes.get(child, 0) + len(child.tail or "")
        sizes[el] = n
    return sizes


def _in_dropped_part(h, kept: set, sizes: dict) -> bool:
    """Whether the heading heads a part of the page none of whose text was kept: the first element
    above it holding `_PART` characters beyond the heading's own holds none of the kept text,
    where a manual's section heading reaches its section, whose text was kept, first."""
    own = sizes.get(h, 0)
    for el in h.iterancestors():
        if el in kept:
            return False
        if sizes.get(el, 0) - own >= _PART:
            return True
    return False


def _level(el) -> int:
    """1-6 for a heading element, else 0 (None too)."""
    tag = el.tag if el is not None and isinstance(el.tag, str) else ""
    return int(tag[1]) if re.fullmatch(r"h[1-6]", tag) else 0


def _in_aside(el) -> bool:
    """Whether the element sits in navigation, a header, a footer or an aside; an article's (or the
    main content's) own header, which holds its title, is not the page's."""
    above = [a.tag for a in el.iterancestors() if isinstance(a.tag, str)]
    for k, tag in enumerate(above):
        if tag in _ASIDE and not (tag == "header" and {"article", "main"} & set(above[k + 1 :])):
            return True
    return False


def _shares_container(a, b) -> bool:
    """Whether two elements have a common ancestor below the body (a section, a content div)."""
    above_b = set(b.iterancestors())
    for anc in a.iterancestors():
        if anc in above_b:
            return anc.tag not in ("body", "html")
    return False


def _assemble(units: list[_Unit], root) -> tuple[str, list[Region]]:
    """The text of the units, and a region per unit with its section's anchor and its element path.
    A region runs to the next one's start, so the blank lines between blocks belong to one."""
    ids = _heading_ids(root)
    paths: dict = {}
    parts, regions, pos, anchor = [], [], 0, None
    for unit in units:
        pos += len(unit.separator)
        m = _HEADING.match(unit.text)
        if m:
            title = _words(m.group(2))
            own = _anchor_of(unit.element) if _level(unit.element) else None
            anchor = "#" + (own or ids.get(title) or _slug(title))
        fields = {"anchor": anchor} if anchor else {}
        if unit.element is not None:
            fields["element"] = _element_path(unit.element, paths)
        regions.append(Region(pos, pos + len(unit.text), fields))
        parts += [unit.separator, unit.text]
        pos += len(unit.text)
    text = "".join(parts) + ("\n" if parts else "")
    for here, after in pairwise(regions):
        here.end = after.start
    if regions:
        regions[0].start = 0
        regions[-1].end = len(text)
    return text, regions


def _heading_ids(root) -> dict[str, str]:
    """Each heading's words -> its anchor, for headings the text names without their element."""
    ids: dict[str, str] = {}
    for el in root.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        key, anchor = _words(el.text_content()), _anchor_of(el)
        if key and anchor and key not in ids:
            ids[key] = anchor
    return ids


def _anchor_of(el) -> str | None:
    """A heading's id, else that of a named link in it, else its parent's (DocBook puts it there)."""
    return (
        el.get("id")
        or next((a.get("id") or a.get("name") for a in el.iter("a") if a.get("id") or a.get("name")), None)
        or (el.getparent().get("id") if el.getparent() is not None else None)
    )


def _element_path(el, paths: dict) -> str:
    """`body > div#content > div.section > p`: each step's tag with its id, else its first class.
    `paths` keeps the steps of each element seen, so a block's path costs one step, not its depth."""
    steps = _steps(el, paths)
    if len(steps) > _PATH_DEPTH:
        steps = (*steps[:2], "…", *steps[-5:])
    return " > ".join(steps)


def _steps(el, paths: dict) -> tuple[str, ...]:
    chain = []
    node = el
    while node is not None and node.tag != "html" and node not in paths:
        chain.append(node)
        node = node.getparent()
    steps = paths.get(node, ()) if node is not None else ()
    for node in reversed(chain):
        step = node.tag
        if node.get("id"):
            step += "#" + node.get("id")
        elif node.get("class"):
            step += "." + node.get("class").split()[0]
        steps = (*steps, step) if len(steps) < 2 * _PATH_DEPTH else (*steps[:2], *steps[3:], step)
        paths[node] = steps
    return steps


def _words(text: str) -> str:
    return " ".join(re.sub(r"[\[\]()*_`#]", " ", _NOTE_MARK.sub("", text)).split()).casefold()


def _slug(title: str) -> str:
    return re.sub(r"[^\w]+", "-", title.casefold()).strip("-")


class _Converter:
    """The whole page to markdown blocks, by the rules in the module's docstring."""

    def __init__(self):
        self.out: list[str] = []
        self.origins: list = []  # the element each block of `out` came from
        self.items: set[int] = set()  # indexes in `out` of list items, which follow each other without a blank line
        self.buf: list[str] = []
        self.prefix = ""
        self.open: list = []  # the block elements being read, innermost last: where flushed text comes from

    def units(self, root) -> list[_Unit]:
        """The page's blocks, each with the element it came from and the separator before it."""
        body = root.find("body")
        self.visit(body if body is not None else root, 0)
        self.flush()
        units = []
        for k, (block, origin) in enumerate(zip(self.out, self.origins)):
            separator = "" if not k else "\n" if k in self.items and k - 1 in self.items else "\n\n"
            lines = [line.rstrip() for line in _lines(block)]  # as _tidy leaves them
            unit = _Unit(re.sub(r"\n{3,}", "\n\n", "\n".join(lines)), separator)
            unit.element = origin
            units.append(unit)
        return units

    def add(self, block: str, origin) -> None:
        self.out.append(block)
        self.origins.append(origin)

    def flush(self) -> None:
        text = " ".join("".join(self.buf).split())
        self.buf = []
        if text:
            if self.prefix:
                self.items.add(len(self.out))
            else:  # body text: a leading "#", "-", "1." or ">" is not markdown structure here
                text = escape_structure(text)
            self.add(self.prefix + text, self.open[-1] if self.open else None)

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
                self.add(f"{'#' * int(tag[1])} {title}", el)
        elif tag == "pre":
            self.flush()
            code = el.text_content().strip("\n")
            if code.strip():
                self.add(f"```\n{code}\n```", el)
        elif tag == "table":
            self.flush()
            table = _table(el)
            if table:
                self.add(table, el)
        elif tag in ("ul", "ol"):
            self.flush()
            n = 0
            for item in el:
                if getattr(item, "tag", "") != "li":
                    continue
                n += 1
                outer = self.prefix
                self.prefix = " " * len(outer) + (f"{n}. " if tag == "ol" else "- ")
                self.open.append(item)
                self._children(item, depth)
                self.flush()
                self.open.pop()
                self.prefix = outer
        elif tag == "a" and el.get("href") and not el.get("href").startswith(("#", "javascript:")):
            label = " ".join(el.text_content().split())
            self.buf.append(f"[{label}]({el.get('href')})" if label else "")
        elif tag == "br":
            self.flush()
        elif tag in _BLOCK:
            self.flush()
            self.open.append(el)
            self._children(el, depth)
            self.flush()
            self.open.pop()
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
    return pipe_table(
        [
            [
                " ".join(c.text_content().split()).replace("|", "\\|")
                for c in tr
                if getattr(c, "tag", "") in ("td", "th")
            ]
            for tr in el.iter("tr")
        ]
    )
