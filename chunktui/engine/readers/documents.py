"""Documents: decoded text plus the indexes that map offsets to lines and bytes.

Offsets are Python string indexes (code points). Lines end at "\\n" only, so a
CRLF file keeps its "\\r" inside the line and every offset still counts it.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import stat
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import DocumentError

_LINE_FEED = re.compile("\n")

BINARY_PROBE = 8192
# Files that only steer a run (a profile, a --facts list) are small; a bigger one is a mistake,
# such as a document passed in their place, and is refused before it is read.
SMALL_FILE_LIMIT = 1_000_000
NOT_REGULAR = "not a regular file (a pipe, socket or device)"
_BYTE_CHECKPOINT = 4096

CODE_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".sh": "bash",
    ".bash": "bash",
}

KIND_BY_EXTENSION = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".txt": "prose",
    ".rst": "prose",
    ".log": "log",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".vtt": "subtitles",
    ".srt": "subtitles",
    ".mbox": "email",
    ".eml": "email",
    ".yaml": "config",
    ".yml": "config",
    ".toml": "config",
    ".ini": "config",
    ".conf": "config",
    ".json": "config",
    ".xml": "config",
    ".html": "markup",
    ".htm": "markup",
    ".sql": "config",
}

# the codec named is the one a slice of the file after its BOM decodes with (so the manifest's
# source_encoding reads any chunk's bytes back): UTF-16 and UTF-32 name their byte order
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# how a document's character offsets map to its file's bytes: the codec of the text and the
# bytes of the BOM before it (the UTF-16/32 names only come from a file with its BOM)
_FILE_LAYOUT = {
    "utf-8-sig": ("utf-8", 3),
    "latin-1": ("latin-1", 0),
    "utf-16-le": ("utf-16-le", 2),
    "utf-16-be": ("utf-16-be", 2),
    "utf-32-le": ("utf-32-le", 4),
    "utf-32-be": ("utf-32-be", 4),
}


@dataclass
class Document:
    """The text being chunked, with where it came from and how to find lines in it."""

    # not in repr: Textual names a worker by repr-ing its arguments, and a 10 MB text cost
    # 0.3 s of the app's event loop (and a copy of the text) at every re-chunk
    text: str = field(repr=False)
    path: str | None = None
    kind: str = "prose"
    language: str | None = None
    sha256: str = ""
    encoding: str = "utf-8"
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.sha256:
            self.sha256 = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()
        self._line_starts: list[int] | None = None  # built on first use (line_starts)
        self._ascii = self.text.isascii()
        self._byte_marks: list[int] | None = None

    @classmethod
    def from_text(
        cls, text: str, path: str | None = None, kind: str | None = None, language: str | None = None
    ) -> Document:
        if kind is None:
            kind, detected = detect_kind(path, text)
            language = language or detected
        return cls(text=text, path=path, kind=kind, language=language)

    @property
    def name(self) -> str:
        return Path(self.path).name if self.path else "<text>"

    @property
    def line_count(self) -> int:
        """Lines as an editor counts them: a trailing newline does not open a new line."""
        starts = self.line_starts
        n = len(starts)
        if n > 1 and starts[-1] == len(self.text):
            return n - 1
        return n if self.text else 0

    @property
    def line_starts(self) -> list[int]:
        """Where each line starts. Built when first asked for, not when the Document is made: the
        command line starts encoding a big text for its token counts first, and these 20 ms (6 MB)
        of GIL-bound work then run while it encodes. Two threads asking at once build the same list."""
        starts = self._line_starts
        if starts is None:
            # each line feed's end, read at C level: half the time of a find per line (6 MB: 28 ms, not 52)
            starts = self._line_starts = [0, *map(re.Match.end, _LINE_FEED.finditer(self.text))]
        return starts

    def line_of(self, offset: int) -> int:
        """1-based line holding the character at `offset` (O(log n))."""
        return bisect_right(self.line_starts, offset)

    def line_start(self, line: int) -> int:
        """Character offset where 1-based `line` starts; past the end gives len(text)."""
        if line < 1:
            return 0
        starts = self.line_starts
        if line > len(starts):
            return len(self.text)
        return starts[line - 1]

    def line_end(self, line: int) -> int:
        """Offset just past `line`, its newline included."""
        return self.line_start(line + 1)

    def line_range(self, start: int, end: int) -> tuple[int, int]:
        """1-based inclusive lines spanned by the non-empty range [start, end)."""
        return self.line_of(start), self.line_of(max(start, end - 1))

    def byte_offset(self, offset: int) -> int:
        """UTF-8 byte offset of character `offset`, via checkpoints so it stays O(1) amortised."""
        if self._ascii:
            return offset
        if self._byte_marks is None:
            marks = [0]
            text = self.text
            for i in range(_BYTE_CHECKPOINT, len(text) + 1, _BYTE_CHECKPOINT):
                marks.append(marks[-1] + len(text[i - _BYTE_CHECKPOINT : i].encode("utf-8", "surrogatepass")))
            self._byte_marks = marks
        k = offset // _BYTE_CHECKPOINT
        base = k * _BYTE_CHECKPOINT
        return self._byte_marks[k] + len(self.text[base:offset].encode("utf-8", "surrogatepass"))

    def byte_offsets(self, offsets, codec: str = "utf-8") -> list[int]:
        """Byte offsets (UTF-8, or `codec`'s) of many character offsets at once: one pass over the text."""
        if self._ascii and codec == "utf-8":
            return list(offsets)
        text = self.text
        at: dict[int, int] = {}
        pos = byte = 0
        for point in sorted(set(offsets)):
            byte += len(text[pos:point].encode(codec, "surrogatepass"))
            at[point] = byte
            pos = point
        return [at[o] for o in offsets]

    @property
    def file_codec(self) -> str:
        """The codec the text has in its file (UTF-8 for a text that came from no file)."""
        return _FILE_LAYOUT.get(self.encoding, ("utf-8", 0))[0]

    def file_byte_offsets(self, offsets: list[int]) -> list[int]:
        """Offsets into the file's bytes as on disk, its BOM and encoding counted, so that
        `file_bytes[a:b].decode(self.encoding)` is the text between two of them."""
        codec, bom = _FILE_LAYOUT.get(self.encoding, ("utf-8", 0))
        if codec == "latin-1":
            return list(offsets)  # one byte a character
        if codec != "utf-8":
            found = self.byte_offsets(offsets, codec)
        elif len(offsets) == 1:  # from the nearest checkpoint, not from 0
            found = [self.byte_offset(offsets[0])]
        else:
            found = self.byte_offsets(offsets)
        return [b + bom for b in found] if bom else found


def detect_kind(path: str | None, text: str = "") -> tuple[str, str | None]:
    """Kind and code language from the extension, else from the content."""
    if path:
        p = Path(path)
        ext = p.suffix.lower()
        if ext in CODE_LANGUAGES:
            return "code", CODE_LANGUAGES[ext]
        if ext in KIND_BY_EXTENSION:
            return KIND_BY_EXTENSION[ext], None
        if p.name in ("Makefile", "Dockerfile"):
            return "config", None
    head = text[:4096].lstrip("\ufeff")
    if head.startswith("WEBVTT"):
        return "subtitles", None
    if (
        head.startswith("From ")
        and "\nSubject:" in head
        or head.startswith(("Message-ID:", "Return-Path:", "Received:"))
    ):
        return "email", None
    if head.startswith("#!") and ("python" in head.split("\n", 1)[0]):
        return "code", "python"
    lines = head.splitlines()
    if lines and all(l.lstrip().startswith("{") for l in lines[:5] if l.strip()):
        return "jsonl", None
    if any(l.startswith(("# ", "## ", "### ")) for l in lines) or "\n```" in head:
        return "markdown", None
    return "prose", None


def decode_bytes(data: bytes, path: str) -> tuple[str, str, list[str]]:
    """Decode by BOM, else UTF-8, else Latin-1 with a warning. Refuse binary data."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:  # the BOM is dropped, and only it (a second U+FEFF is text)
                return data[len(bom) :].decode("utf-8" if codec == "utf-8-sig" else codec), codec, []
            except UnicodeDecodeError as exc:
                raise DocumentError(
                    path, f"invalid {codec} after its byte order mark at byte {exc.start + len(bom)}"
                ) from None
    if b"\x00" in data[:BINARY_PROBE]:
        raise DocumentError(path, "binary file (NUL bytes in the first block), not text")
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError as exc:
        warning = f"{path}: not valid UTF-8 (first bad byte at {exc.start}); read as Latin-1 (one character a byte)"
        return data.decode("latin-1"), "latin-1", [warning]


def read_file_bytes(path, limit: int | None = None, what: str = "this file") -> bytes:
    """The bytes of a regular file, for every file the tool reads (documents, profiles, facts, chunks.yaml).

    A pipe, socket or device is refused before anything is read: a FIFO would block forever and
    /dev/zero never ends. The file is opened without blocking and checked through its descriptor,
    so it cannot be swapped for a pipe between the check and the read. With `limit`, a file over
    that many bytes is refused, and at most limit + 1 bytes are ever read.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's open() blocks until a writer comes
    except FileNotFoundError:
        raise DocumentError(p, "no such file") from None
    except OSError as exc:
        problem = NOT_REGULAR if exc.errno == errno.ENXIO else f"cannot read ({exc.strerror or exc})"  # ENXIO: a socket
        raise DocumentError(p, problem) from None
    refusal = _refusal(os.fstat(fd), limit, what)
    if refusal:
        os.close(fd)
        raise DocumentError(p, refusal)
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read() if limit is None else fh.read(limit + 1)
        except OSError as exc:
            raise DocumentError(p, f"cannot read ({exc.strerror or exc})") from None
    if limit is not None and len(data) > limit:  # it grew after the check
        raise DocumentError(p, f"over the {limit:,}-byte limit for {what}")
    return data


def _refusal(info: os.stat_result, limit: int | None, what: str) -> str | None:
    """Why a file with this stat may not be read, or None."""
    if stat.S_ISDIR(info.st_mode):
        return "is a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return NOT_REGULAR
    if limit is not None and info.st_size > limit:
        return f"{info.st_size:,} bytes, over the {limit:,}-byte limit for {what}"
    return None


def check_text_file(path) -> None:
    """Refuse a binary file from its first block, without reading the rest (a PDF or DOCX is
    binary by nature: its reader judges it)."""
    from . import reader_for

    if reader_for(path) is not None:
        return
    with open(path, "rb") as fh:
        head = fh.read(BINARY_PROBE)
    if b"\x00" in head and not any(head.startswith(bom) for bom, _ in _BOMS):
        raise DocumentError(path, "binary file (NUL bytes in the first block), not text")


def load_document(
    path, kind: str | None = None, language: str | None = None, *, reader_options: dict | None = None, watch=None
) -> Document:
    """Read a file into a Document; bad input raises DocumentError naming the file.

    PDF, HTML and DOCX files become their extracted text (see `readers`); `reader_options`
    are those readers' options (`html`: "main" or "whole", `password` for a PDF), and `watch`
    (a readers.Watch) hears their progress and may stop them."""
    p = Path(path)
    data = read_file_bytes(p)
    from . import extracted_document, reader_for

    if reader_for(p) is not None and kind in (None, "markdown"):
        return extracted_document(str(p), data, hashlib.sha256(data).hexdigest(), reader_options, language, watch)
    text, encoding, warnings = decode_bytes(data, str(p))
    digest = hashlib.sha256(data).hexdigest()
    del data  # the bytes go before the line index is built: peak memory is the larger of the two, not both
    detected_kind, detected_lang = detect_kind(str(p), text)
    return Document(
        text=text,
        path=str(p),
        kind=kind or detected_kind,
        language=language or detected_lang,
        sha256=digest,
        encoding=encoding,
        warnings=warnings,
    )
