"""Blocks of prose (paragraphs, headings, fenced code) and the ones that are boilerplate.

Boilerplate is what an agent should not spend tokens on: a license header at the
top, a table of contents, navigation lines ("Previous | Next | Home", breadcrumbs,
"Back to top"). Detection is deliberately conservative: a block is boilerplate
only when every line of it looks the part, so real content is never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..readers.documents import Document

_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NOTE_MARK = re.compile(r"[ \t]*\[\^[^\]\s]+\]")  # a markdown footnote reference: [^1], [^c2], [^note]
_TOC_TITLE = re.compile(
    r"^(?:table of contents|contents|toc|on this page|in this (?:guide|document|article))\s*:?$", re.I
)
_TOC_MARKER = re.compile(r"^\s*(?:\[toc\]|\[\[_toc_\]\]|<!--\s*toc\s*-->|\{:toc\}|\.\. contents::.*)\s*$", re.I)
_LICENSE = re.compile(
    r"SPDX-License-Identifier|all rights reserved|licensed under|permission is hereby granted|"
    r"GNU (?:Lesser |Affero )?General Public License|^\W*(?:copyright|©|\(c\))\s",
    re.I | re.M,
)
_NAV_SEP = re.compile(r"\s*(?:\||·|•|›|»|«|‹|→|←|\s>\s|\s/\s)\s*")
_NAV_WORDS = {"previous", "prev", "next", "home", "up", "back", "top", "index", "contents", "toc"}
_CRUMB_ROOTS = {"home", "docs", "documentation", "index", "start", "main"}


def heading_title(title: str) -> str:
    """A heading's title as header paths and labels name it: without the footnote and comment
    marks it carries (`Intro[^1]` is `Intro`), and a link or image as its words
    (`[Voice interfaces](http://dcurt.is/voice-interfaces)`, a blog's title, is `Voice
    interfaces`), without a permalink's pilcrow (`Abstract[¶](#abstract)` is `Abstract`); the
    text keeps them."""
    if "[^" in title:
        title = _NOTE_MARK.sub("", title).strip() or title
    if "](" in title:
        title = _LINK.sub(r"\1", title).strip() or title
    if title.endswith("\u00b6"):  # a permalink's pilcrow, as Sphinx and pandoc pages end headings
        title = title.rstrip("\u00b6 ") or title
    return title


@dataclass
class Block:
    start: int  # offset of the first line
    end: int  # offset just past the last line (its newline included)
    first_line: int  # 0-based
    last_line: int
    kind: str  # heading | paragraph | code
    level: int = 0  # heading level
    title: str = ""  # heading text


def _line_texts(doc: Document) -> list[str]:
    text, starts = doc.text, doc.line_starts
    ends = starts[1:] + [len(text)]
    return [text[a:b].rstrip("\r\n") for a, b in zip(starts[: doc.line_count], ends)]


def parse_blocks(doc: Document) -> list[Block]:
    """Paragraphs split at blank lines; a heading line is a block of its own; a fence is one block."""
    lines = _line_texts(doc)
    blocks: list[Block] = []
    i, n = 0, len(lines)

    def add(a: int, b: int, kind: str, level: int = 0, title: str = "") -> None:
        blocks.append(Block(doc.line_start(a + 1), doc.line_start(b + 2), a, b, kind, level, title))

    para = None
    while i < n:
        line = lines[i]
        fence = _FENCE.match(line)
        heading = _ATX.match(line)
        setext = (
            para is not None
            and i == para + 1
            and _SETEXT.match(line)
            and not _LIST_ITEM.match(lines[para])
            and lines[para].strip()
        )
        if setext and para is not None:
            add(para, i, "heading", 1 if line.strip()[0] == "=" else 2, heading_title(lines[para].strip()))
            para = None
        elif fence or heading or not line.strip():
            if para is not None:
                add(para, i - 1, "paragraph")
                para = None
            if fence:
                mark = fence.group(1)
                j = i + 1
                while j < n and not lines[j].lstrip().startswith(mark):
                    j += 1
                add(i, min(j, n - 1), "code")
                i = j
            elif heading:
                add(i, i, "heading", len(heading.group(1)), heading_title(heading.group(2)))
        elif para is None:
            para = i
        i += 1
    if para is not None:
        add(para, n - 1, "paragraph")
    return blocks


def _nav_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("|"):
        return False
    plain = _LINK.sub(r"\1", stripped)
    # strip() first and split() after: a part may hold only \f or \v, which no explicit set lists
    parts = [p.strip().strip("←→«»‹›<>↑^-:*_[]").strip() for p in _NAV_SEP.split(plain)]
    parts = [p for p in parts if p.split()]
    if not parts or any(len(p.split()) > 5 for p in parts):
        return False
    first_words = [p.split()[0].lower().strip(":,") for p in parts]
    if len(parts) >= 2 and any(w in _NAV_WORDS for w in first_words):
        return True
    if len(parts) >= 3 and first_words[0] in _CRUMB_ROOTS and re.search(r"\s[>/»›]\s|[»›]", plain):
        return True
    return len(parts) == 1 and plain != stripped and first_words[0] in _NAV_WORDS


def _is_link_list(lines: list[str]) -> bool:
    items = [ln for ln in lines if ln.strip()]
    return len(items) >= 2 and all(_LIST_ITEM.match(ln) and _LINK.search(ln) for ln in items)


def _is_toc_list(lines: list[str]) -> bool:
    """Every line a list item holding little more than a title or a link (no sentences)."""
    items = [ln for ln in lines if ln.strip()]
    return bool(items) and all(
        _LIST_ITEM.match(ln) and len(_LINK.sub(r"\1", ln).split()) <= 10 and not ln.rstrip().endswith(".")
        for ln in items
    )


def find_boilerplate(doc: Document, blocks: list[Block]) -> dict[int, str]:
    """Index of each boilerplate block -> its reason ("boilerplate: table of contents", ...)."""
    lines = _line_texts(doc)
    found: dict[int, str] = {}

    def body(b: Block) -> list[str]:
        return lines[b.first_line : b.last_line + 1]

    # license header: license-like paragraphs at the top, before any other content
    for i, b in enumerate(blocks):
        if b.kind == "heading":
            continue
        text = "\n".join(body(b))
        if b.kind != "code" and _LICENSE.search(text) and len(text) < 2500:
            found[i] = "boilerplate: license header"
            continue
        break
    top = len(doc.text) * 0.25 + 2000  # a table of contents without a title only counts near the top
    for i, b in enumerate(blocks):
        if b.kind == "code":
            continue
        title = b.title if b.kind == "heading" else lines[b.first_line] if b.first_line == b.last_line else ""
        if _TOC_TITLE.match(title.strip(" \t*_")) and title.strip():
            j = i + 1
            while j < len(blocks) and blocks[j].kind == "paragraph" and _is_toc_list(body(blocks[j])):
                found[j] = "boilerplate: table of contents"
                j += 1
            if j > i + 1:
                found[i] = "boilerplate: table of contents"
            continue
        if b.kind != "paragraph" or i in found:
            continue
        block_lines = body(b)
        if all(_TOC_MARKER.match(ln) for ln in block_lines if ln.strip()):
            found[i] = "boilerplate: table of contents"
        elif _TOC_TITLE.match(block_lines[0].strip()) and _is_toc_list(block_lines[1:]):
            found[i] = "boilerplate: table of contents"
        elif b.start < top and _is_link_list(block_lines) and all("](#" in ln for ln in block_lines if ln.strip()):
            found[i] = "boilerplate: table of contents"
        elif len(block_lines) <= 3 and all(_nav_line(ln) for ln in block_lines):
            found[i] = "boilerplate: navigation"
    return found
