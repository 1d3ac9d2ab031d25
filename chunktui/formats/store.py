"""chunks.yaml: the saved form of a ChunkSet that the app and `chunktui inspect` reload.

Loading never re-chunks: the chunks come back exactly as stored. They are set
against the source file when it is still there with the same sha256; otherwise
against a Document rebuilt from the stored chunk texts at their offsets, so the
saved chunks can be reviewed even after the source moved or changed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import chunktui
from chunktui.engine.documents import Document, load_document
from chunktui.engine.errors import DocumentError
from chunktui.engine.model import Chunk, ChunkSet, Gap
from chunktui.engine.readers import extraction_fields, same_extraction

from .manifest import MANIFEST_NAME
from .records import chunk_record, to_plain
from .yamlio import dump_yaml, read_yaml

STORE_NAME = "chunks.yaml"
SCHEMA = "chunktui.chunks/1"


@dataclass
class LoadedChunkSet:
    chunkset: ChunkSet
    source_path: Path | None
    source_found: bool
    source_matches: bool


def store_data(cs: ChunkSet, base: Path) -> dict:
    """The chunks.yaml content for `cs`; the source path is written relative to `base` when possible."""
    doc = cs.document
    chunks = []
    for c in cs.chunks:
        record = chunk_record(c)
        if c.context_text is not None:
            record["context_text"] = c.context_text
        record["text"] = c.text
        chunks.append(record)
    return {
        "schema": SCHEMA,
        "chunktui_version": chunktui.__version__,
        "source": {
            "path": _stored_path(doc.path, base) if doc.path else None,
            "sha256": doc.sha256,
            "kind": doc.kind,
            "language": doc.language,
            "encoding": doc.encoding,
            "lines": doc.line_count,
            "chars": len(doc.text),
            **extraction_fields(doc),
        },
        "strategy": cs.strategy,
        "params": to_plain(cs.params),
        "tokenizer": cs.tokenizer,
        "warnings": list(cs.warnings),
        "notes": list(cs.notes),
        "gaps": [{"start_char": g.start, "end_char": g.end, "start_line": g.start_line,
                  "end_line": g.end_line, "reason": g.reason,
                  "newlines": doc.text.count("\n", g.start, g.end)} for g in cs.gaps],
        "chunks": chunks,
    }


def save_chunkset(cs: ChunkSet, path) -> Path:
    """Write `cs` to `path` as chunks.yaml (safe YAML, key order kept)."""
    path = Path(path)
    data = store_data(cs, path.parent)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        dump_yaml(data, fh)
    return path


def load_chunkset(path) -> LoadedChunkSet:
    """Rebuild the ChunkSet saved in `path`; says whether its source is found and unchanged."""
    path = Path(path)
    data = read_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("chunks"), list) or not isinstance(data.get("source"), dict):
        raise DocumentError(path, "not a chunks.yaml (needs 'source' and 'chunks')")
    return _reload(data, path)


def _reload(data: dict, path: Path) -> LoadedChunkSet:
    """The ChunkSet of chunks.yaml's content `data`, read from `path`."""
    src = data["source"]
    source_path = _resolve_source(src.get("path"), path.parent)
    doc = None
    found = source_path is not None
    if found:
        try:
            mode = (src.get("extraction") or {}).get("mode")
            candidate = load_document(source_path, kind=src.get("kind"), language=src.get("language"),
                                      reader_options={"html": mode} if mode else None)
        except DocumentError:
            candidate = None
        # an extracted source must also give the same text again (another extractor version may not)
        if candidate is not None and candidate.sha256 == src.get("sha256") \
                and same_extraction(candidate, src.get("extraction")):
            doc = candidate
    matches = doc is not None
    try:
        if doc is None:
            doc = _rebuild_document(data, path)
        chunks = [_chunk(i, r, doc, path) for i, r in enumerate(data["chunks"])]
        gaps = [Gap(int(g["start_char"]), int(g["end_char"]), int(g["start_line"]), int(g["end_line"]),
                    str(g.get("reason", "uncovered"))) for g in data.get("gaps") or []]
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(path, f"malformed chunks.yaml ({type(exc).__name__}: {exc})") from None
    cs = ChunkSet(document=doc, strategy=str(data.get("strategy", "")), params=dict(data.get("params") or {}),
                  tokenizer=str(data.get("tokenizer", "cl100k_base")), chunks=chunks, gaps=gaps,
                  warnings=list(data.get("warnings") or []), notes=list(data.get("notes") or []))
    return LoadedChunkSet(cs, source_path, found, matches)


def load_saved(path) -> ChunkSet:
    """Saved chunks from a chunks.yaml store, an export's chunks.json or manifest.json, or an export
    folder (its chunks.yaml, chunks.json or manifest.json, in that order)."""
    path = Path(path)
    if path.is_dir():
        names = (STORE_NAME, "chunks.json", MANIFEST_NAME)
        found = [path / name for name in names if (path / name).is_file()]
        if not found:
            raise DocumentError(path, f"no saved chunks in this folder ({', '.join(names)})")
        path = found[0]
    if path.suffix.lower() in (".yaml", ".yml"):
        return load_chunkset(path).chunkset
    if not path.is_file():
        raise DocumentError(path, "no such file")
    if path.suffix.lower() != ".json":
        raise DocumentError(path, "not a saved chunks file (chunks.yaml, chunks.json or manifest.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentError(path, f"not readable JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("chunks"), list) \
            or not all(isinstance(r, dict) for r in data["chunks"]):
        raise DocumentError(path, "not a chunktui chunks.json or manifest.json (needs 'chunks')")
    try:
        stored = _manifest_as_stored(data, path) if "source_chars" in data else _export_as_stored(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(path, f"malformed chunk entry ({type(exc).__name__}: {exc})") from None
    return _reload(stored, path).chunkset


def _export_as_stored(data: dict) -> dict:
    """chunks.json (the json export) as chunks.yaml's content: it holds each chunk's text."""
    return {**data, "source": {"path": data.get("source"), "sha256": data.get("source_sha256")},
            "chunks": [{**r, "text": r["content"]} for r in data["chunks"]]}


def _manifest_as_stored(data: dict, path: Path) -> dict:
    """manifest.json as chunks.yaml's content, each chunk's text cut from the source file, which
    must be there unchanged (the texts are in the export's chunk files, in any of its formats)."""
    stored = data.get("source")
    source_path = _resolve_source(stored, path.parent)
    mode = (data.get("extraction") or {}).get("mode")
    doc = load_document(source_path, reader_options={"html": mode} if mode else None) \
        if source_path is not None else None
    if doc is None or doc.sha256 != data.get("source_sha256") or not same_extraction(doc, data.get("extraction")):
        raise DocumentError(path, f"its source {stored} is missing or changed; load the chunks.yaml or "
                                  "chunks.json beside it, which hold the chunk texts")
    return {**data, "source": {"path": stored, "sha256": doc.sha256, "kind": data.get("source_kind"),
                               "chars": data.get("source_chars"), "lines": data.get("source_lines")},
            "chunks": [{**r, "text": doc.text[int(r["start_char"]):int(r["end_char"])]} for r in data["chunks"]]}


def _stored_path(source, base: Path) -> str:
    """Relative to the YAML's folder when both live under the working folder, else absolute."""
    src = Path(source).absolute()
    base = base.absolute()
    cwd = Path.cwd()
    if src.is_relative_to(cwd) and base.is_relative_to(cwd):
        return Path(os.path.relpath(src, base)).as_posix()
    return src.as_posix()


def _resolve_source(stored, base: Path) -> Path | None:
    if not stored:
        return None
    p = Path(stored)
    for candidate in ([p] if p.is_absolute() else [base / p, p]):
        if candidate.is_file():
            tidy = Path(os.path.normpath(candidate))  # `out/x/../../doc.md` is shown as `doc.md`
            return tidy if tidy.is_file() and tidy.samefile(candidate) else candidate
    return None


def _rebuild_document(data: dict, path: Path) -> Document:
    """The source as far as the chunks know it: their texts at their offsets, gaps as blank filler.

    Gap filler keeps each gap's newline count, so every line number still matches the file.
    """
    src = data["source"]
    total = int(src.get("chars") or 0)
    gap_newlines = [(int(g["start_char"]), int(g["end_char"]), int(g.get("newlines", 0))) for g in data.get("gaps") or []]

    def newlines(a: int, b: int) -> int:
        return sum(n for s, e, n in gap_newlines if s >= a and e <= b)

    pieces, pos = [], 0
    for r in sorted(data["chunks"], key=lambda r: (int(r["start_char"]), int(r["end_char"]))):
        start, end, text = int(r["start_char"]), int(r["end_char"]), str(r["text"])
        if len(text) != end - start:
            raise DocumentError(path, f"{r.get('id')}: text has {len(text)} chars but offsets {start}:{end} span {end - start}")
        if start > pos:
            pieces.append(_filler(start - pos, newlines(pos, start), trailing=False))
            pos = start
        if end > pos:  # overlaps are checked against this text when the chunks are rebuilt
            pieces.append(text[pos - start:])
            pos = end
    if total > pos:
        filler = _filler(total - pos, newlines(pos, total), trailing=False)
        if Document("".join(pieces) + filler).line_count != int(src.get("lines") or 0):
            filler = _filler(total - pos, newlines(pos, total), trailing=True)
        pieces.append(filler)
    doc = Document(text="".join(pieces), path=src.get("path"), kind=src.get("kind") or "prose",
                   language=src.get("language"), sha256=str(src.get("sha256") or ""),
                   encoding=src.get("encoding") or "utf-8")
    doc.warnings.append(f"{path}: source file missing or changed since saving; text outside the chunks is blank")
    return doc


def _filler(length: int, newlines: int, trailing: bool) -> str:
    """`length` chars of blank with `newlines` line breaks, placed last (or first when `trailing`)."""
    newlines = min(newlines, length)
    blank = " " * (length - newlines)
    return "\n" * newlines + blank if trailing else blank + "\n" * newlines


def _chunk(index: int, r: dict, doc: Document, path: Path) -> Chunk:
    start, end, text = int(r["start_char"]), int(r["end_char"]), str(r["text"])
    if not 0 <= start <= end <= len(doc.text):  # a slice would clip, so the text check alone misses it
        raise DocumentError(path, f"{r.get('id')}: offsets {start}:{end} fall outside the source ({len(doc.text)} chars)")
    if doc.text[start:end] != text:
        raise DocumentError(path, f"{r.get('id')}: stored text differs from the source at {start}:{end}")
    return Chunk(
        index=index, start=start, end=end, start_line=int(r["start_line"]), end_line=int(r["end_line"]),
        text=text, tokens=int(r["tokens"]), sha256=str(r["sha256"]),
        boundary_type=str(r.get("boundary_type", "size")), boundary_label=str(r.get("boundary_label") or ""),
        overlap_prev_chars=int(r.get("overlap_start_chars", 0)), overlap_next_chars=int(r.get("overlap_end_chars", 0)),
        overlap_prev_lines=int(r.get("overlap_start", 0)), overlap_next_lines=int(r.get("overlap_end", 0)),
        start_byte=int(r.get("start_byte", 0)), end_byte=int(r.get("end_byte", 0)),
        metadata=MappingProxyType(dict(r.get("metadata") or {})), context_text=r.get("context_text"),
    )
