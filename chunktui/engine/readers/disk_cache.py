"""Extracted texts kept on disk, so that reopening a PDF, HTML or DOCX file in another process
(the app again, a `chunk` run) does not extract it again.

An entry is keyed by the file's sha256, the reader's options (the HTML mode), the extracting
library's version and the sha256 of the reader's own code, so a new library or a changed reader
never serves an old text. It lives in the user cache folder beside the vocabularies
(`$XDG_CACHE_HOME/chunktui/extracted`, readable by its owner only), is written whole or not at all
(a temporary file renamed) and is verified on load (a header line holds the payload's sha256; a
truncated or altered entry is extracted again, never trusted). The folder is bounded: past
`MAX_BYTES` the entries used longest ago are removed.

An encrypted PDF's text is never written: nor is anything read with a password, nor any PDF whose
bytes name an /Encrypt dictionary (one with only an owner password opens without one).
"""

from __future__ import annotations

import hashlib
import json
import os
from contextlib import suppress
from functools import cache
from pathlib import Path

from . import Extraction, Region

MAGIC = b"chunktui-extracted 1"
MAX_BYTES = 256_000_000  # the whole folder; the oldest entries go first
_READERS = {"pdf": ("pdf.py", "pypdfium2"), "docx": ("docx.py", "python-docx"), "html": ("html.py", "trafilatura")}


def cacheable(fmt: str, data: bytes, options: dict) -> bool:
    """Whether this extraction may be written to disk: nothing of an encrypted PDF is."""
    return not options.get("password") and not (fmt == "pdf" and b"/Encrypt" in data)


def entry_path(digest: str, fmt: str, mode: str) -> Path:
    from ..core.tokens import _cache_folder

    key = hashlib.sha256(f"{digest} {fmt} {mode} {_reader_version(fmt)}".encode()).hexdigest()
    return _cache_folder() / "extracted" / f"{key}.json"


@cache
def _reader_version(fmt: str) -> str:
    """The library's version and the sha256 of the reader's code (and of the package's, which
    every reader shares)."""
    from . import library_version

    module, dist = _READERS[fmt]
    here = Path(__file__).parent
    code = hashlib.sha256((here / module).read_bytes() + (here / "__init__.py").read_bytes()).hexdigest()
    return f"{library_version(dist)} {code}"


def load(path: Path) -> Extraction | None:
    """The entry at `path`, or None when it is missing, not a regular file of at most MAX_BYTES
    (a FIFO would block the run, a link to a device never end) or its header does not vouch for it."""
    from ..core.tokens import read_cache_file

    data = read_cache_file(path, MAX_BYTES)  # an entry over the folder's bound is never kept
    if data is None:
        return None
    header, _, payload = data.partition(b"\n")
    if header != MAGIC + b" " + hashlib.sha256(payload).hexdigest().encode():
        return None
    try:
        fields = json.loads(payload)
        os.utime(path)  # used now: the last to be removed
        return Extraction(
            text=fields["text"],
            extractor=fields["extractor"],
            mode=fields["mode"],
            regions=[Region(a, b, f) for a, b, f in fields["regions"]],
            no_text=[(a, b) for a, b in fields["no_text"]],
            furniture=[(a, b) for a, b in fields["furniture"]],
            warnings=fields["warnings"],
            page_count=fields["page_count"],
            page_chars=fields["page_chars"],
            kept_chars=fields["kept_chars"],
        )
    except (ValueError, KeyError, TypeError, OSError):
        return None


def store(path: Path, result: Extraction) -> None:
    """Write the entry whole or not at all, then bound the folder; an unwritable cache folder only
    means the next process extracts again."""
    payload = json.dumps(
        {
            "text": result.text,
            "extractor": result.extractor,
            "mode": result.mode,
            "regions": [[r.start, r.end, r.fields] for r in result.regions],
            "no_text": result.no_text,
            "furniture": result.furniture,
            "warnings": result.warnings,
            "page_count": result.page_count,
            "page_chars": result.page_chars,
            "kept_chars": result.kept_chars,
        },
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + b" " + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(tmp, path)
        _bound(path.parent)
    except OSError:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)


def _bound(folder: Path) -> None:
    """Remove the entries used longest ago until the folder holds at most MAX_BYTES."""
    entries = sorted(((e.stat().st_mtime, e.stat().st_size, e) for e in folder.glob("*.json")), reverse=True)
    total = 0
    for _, size, entry in entries:
        total += size
        if total > MAX_BYTES:
            entry.unlink(missing_ok=True)
