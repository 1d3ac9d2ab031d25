"""manifest.json: where every chunk came from and where it was written (aiwg's schema, extended).

The aiwg fields come first (source, source_lines, strategy, chunk_size, overlap,
format, output_dir, created_at, chunks[id, file, lines, overlap, boundary]) so
fan-out tools that read aiwg manifests read ours; the rest makes it reproducible.
"""

from __future__ import annotations

import hashlib
import os
from datetime import datetime, UTC
from pathlib import Path

import chunktui
from chunktui.engine.readers import EXTRACTED_TEXT_NAME, extraction_fields

from .records import chunk_record, display_path, gap_record, folder_display, printable_path, size_params, to_plain

MANIFEST_NAME = "manifest.json"


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_manifest(cs, out_dir, fmt: str, files) -> dict:
    """The manifest of `cs` exported to `out_dir`; `files[i]` is the file name holding chunk i."""
    out_dir = Path(out_dir)
    doc = cs.document
    chunk_size, overlap = size_params(cs)
    file_display = _file_display(out_dir)
    chunks = []
    for chunk, name in zip(cs.chunks, files):
        record = chunk_record(chunk)
        record["embed_sha256"] = embed_sha256(chunk)
        chunks.append({"id": record.pop("id"), "file": file_display(name), **record})
    return {
        "source": display_path(doc.path) if doc.path else None,
        "source_lines": doc.line_count,
        "strategy": cs.strategy,
        "chunk_size": chunk_size,
        "overlap": overlap,
        "format": fmt,
        "output_dir": folder_display(out_dir),
        "created_at": utc_now(),
        "chunks": chunks,
        "source_sha256": doc.sha256,
        "source_kind": doc.kind,
        "source_encoding": doc.encoding,
        "source_chars": len(doc.text),
        **extraction_fields(doc, EXTRACTED_TEXT_NAME),
        "params": to_plain(cs.params),
        "tokenizer": cs.tokenizer,
        "context_header": cs.context_header,
        "chunktui_version": chunktui.__version__,
        "gaps": [gap_record(g) for g in cs.gaps],
        "warnings": list(cs.warnings),
        "notes": list(cs.notes),
        **_raw_source_name(doc.path),
    }


def embed_sha256(chunk) -> str:
    """The sha256 of what the chunk embeds (of its text where they are the same), which the
    JSONL export writes as `text` and is checked against."""
    if chunk.embed_text == chunk.text:
        return chunk.sha256
    return hashlib.sha256(chunk.embed_text.encode("utf-8", "surrogatepass")).hexdigest()


def _raw_source_name(path) -> dict:
    """`source_name_bytes` when the source's path is not UTF-8. `source` shows such bytes as `\\xNN`,
    which a name could also hold literally; here every byte but printable ASCII (a backslash
    included) is `\\xNN`, so the exact bytes can be recovered."""
    if not path or printable_path(str(path)) == str(path):
        return {}
    raw = os.fsencode(display_path(path, raw=True))
    return {"source_name_bytes": "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02x}" for b in raw)}


def _file_display(out_dir: Path):
    """`name -> display_path(out_dir / name)`, resolving `out_dir` against the working folder once:
    a plain file name is joined to the folder's display as a string (15 us a chunk saved, 0.1 s of
    CPU for 3,500 chunks written under an absolute `-o`)."""
    shown_dir = display_path(out_dir)
    seps = {"/", os.sep, os.altsep or "/"}

    def show(name) -> str:
        if isinstance(name, str) and name not in ("", ".", "..") and not any(sep in name for sep in seps):
            name = printable_path(name)
            return name if shown_dir == "." else f"{shown_dir.rstrip('/')}/{name}"
        return display_path(out_dir / name)

    return show
