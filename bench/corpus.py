"""Benchmark corpora from real text already on the machine, never repeated.

Repeated text flatters caches (and hides peers' offset bugs until it shows them),
so each corpus is distinct files (deduplicated by content) concatenated in a
seeded order until it reaches the size; the last file is cut at a line break.
Code files are cut only after a top-level statement, so the corpus is valid Python.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
import site
import sys
import sysconfig
import warnings
from functools import cache
from pathlib import Path

SIZES = {"100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}
# WIDTH: Python stores a whole str at 1, 2 or 4 bytes a character, by its widest character,
# and every string operation costs accordingly. So that the three sizes differ in length only,
# files with a character beyond U+FFFF (emoji) are left out and the first file is one with a
# character beyond Latin-1: every corpus is 2 bytes a character at every size.
SEED = 20261130
_NEWLINE = re.compile(r"\r\n?|\n")  # the line breaks `ast` counts

# (file suffixes, most characters taken from one file, what it stands for). The cap keeps a
# few huge files (changelogs) from making one size unlike the others; it is the smallest that
# still reaches 10 MB with the files a fresh machine has.
KINDS = {
    "docs": ((".md", ".rst", ".txt"), 32_000, "documentation shipped by installed packages (.md .rst .txt)"),
    "markdown": ((".md",), 256_000, "markdown files shipped by installed packages and tools"),
    "code": ((".py",), 32_000, "Python sources under the interpreter's lib directory (stdlib and site-packages)"),
}


def _roots(kind: str) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    if kind == "code":
        return [stdlib]
    roots = [
        stdlib.parent,
        *map(Path, site.getsitepackages()),
        Path(sys.prefix),
        Path("/usr/share/doc"),
        Path("/usr/lib/node_modules"),
    ]
    return [r for r in dict.fromkeys(roots) if r.is_dir()]


@cache
def candidate_files(kind: str) -> tuple[Path, ...]:
    """Readable UTF-8 files of the kind, one per distinct content, in a seeded order."""
    suffixes = KINDS[kind][0]
    seen_paths: set[Path] = set()
    seen_content: set[bytes] = set()
    files: list[tuple[Path, int]] = []
    for root in _roots(kind):
        for path in sorted(root.rglob("*")):
            if path.suffix.lower() not in suffixes:
                continue
            try:
                real = path.resolve()
                if real in seen_paths or not real.is_file():
                    continue
                seen_paths.add(real)
                data = real.read_bytes()
            except OSError:
                continue
            if len(data) < 200 or b"\x00" in data:
                continue
            digest = hashlib.sha256(data).digest()
            if digest in seen_content:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if not text.isascii() and max(text) > "\uffff":
                continue  # see WIDTH above
            seen_content.add(digest)
            files.append((real, not text.isascii() and max(text) > "\xff"))
    files.sort()
    random.Random(SEED).shuffle(files)
    wide = next(i for i, (_, is_wide) in enumerate(files) if is_wide)
    files.insert(0, files.pop(wide))
    return tuple(p for p, _ in files)


@cache
def corpus(kind: str, size: int) -> str:
    """About `size` characters of distinct files of `kind` (fewer if the machine has less)."""
    return "".join(corpus_parts(kind, size))


@cache
def corpus_parts(kind: str, size: int) -> tuple[str, ...]:
    """The pieces `corpus` concatenates, one per file (bench.code_parse parses them one by one)."""
    parts: list[str] = []
    total = 0
    cap = KINDS[kind][1]
    for path in candidate_files(kind):
        text = path.read_text(encoding="utf-8")
        if kind == "code":
            text = _whole_statements(text if text.endswith("\n") else text + "\n", min(cap, size - total))
            if text:
                parts.append(text)
                total += len(text)
            if total >= size * 0.99:
                break
            continue
        if len(text) > cap:
            text = text[: text.rfind("\n", 0, cap) + 1] or text[:cap]
        if not text.endswith("\n"):
            text += "\n"
        if total + len(text) > size:
            cut = text.rfind("\n", 0, size - total)
            if cut > 0:
                parts.append(text[: cut + 1])
                total += cut + 1
            if total >= size * 0.99:
                break
            continue
        parts.append(text)
        total += len(text)
    return tuple(parts)


def _whole_statements(text: str, limit: int) -> str:
    """The longest head of a Python file within `limit` characters that ends after a top-level
    statement ("" if it does not parse), so every piece is valid Python and so is the corpus.

    A file cut at any line break may stop inside a string or a bracket; tree-sitter then
    reads the files after it as the rest of that string, and the 10 MB corpus became one
    long error recovery (parse 3.6x slower than parsing the same files one by one).
    """
    if len(text) <= limit:
        return text
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body = ast.parse(text).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
    cut = 0
    for stmt, following in zip(body, body[1:] + [None]):
        if following is not None and following.lineno <= stmt.end_lineno:
            continue  # `a = 1; b = 2`: cut only where a line ends a statement
        end = line_starts[stmt.end_lineno] if stmt.end_lineno < len(line_starts) else len(text)
        if end > limit:
            break
        cut = end
    return text[:cut]


def describe(kind: str) -> str:
    return KINDS[kind][2]
