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
from typing import Any

import chunktui
from chunktui.engine.readers.documents import Document, load_document
from chunktui.engine.core.errors import ChunktuiError, DocumentError, ParamError, PasswordError
from chunktui.engine.core.model import CONTEXT_HEADERS, Chunk, ChunkSet, Gap, embedded_texts
from chunktui.engine.readers import Watch, extraction_change, extraction_fields
from chunktui.engine.strategies import saved_params
from chunktui.engine.core.tokens import get_counter
from chunktui.engine.run import document_headings

from .manifest import MANIFEST_NAME
from .records import chunk_record, gap_record, printable_path, to_plain
from .yamlio import dump_yaml, read_yaml

STORE_NAME = "chunks.yaml"
SCHEMA = "chunktui.chunks/1"


@dataclass
class LoadedChunkSet:
    chunkset: ChunkSet
    source_path: Path | None
    source_found: bool
    source_matches: bool
    source_locked: str | None = None  # why an encrypted source could not be checked (no password given)
    # the source file is unchanged (its sha256) but extracts to another text: "was X, now Y"
    extracted_differently: str | None = None


def store_data(cs: ChunkSet, base: Path) -> dict:
    """The chunks.yaml content for `cs`; the source path is written relative to `base` when possible."""
    doc = cs.document
    chunks = []
    for c in cs.chunks:
        record = chunk_record(c)
        if c.context_text is not None:
            record["context_text"] = c.context_text
        record["text"] = c.text
        if c.embed_text != c.text:  # else it is the text, not stored twice
            record["embed_text"] = c.embed_text
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
        "context_header": cs.context_header,
        "warnings": list(cs.warnings),
        "notes": list(cs.notes),
        "gaps": [{**gap_record(g), "newlines": doc.text.count("\n", g.start, g.end)} for g in cs.gaps],
        "chunks": chunks,
    }


def save_chunkset(cs: ChunkSet, path) -> Path:
    """Write `cs` to `path` as chunks.yaml (safe YAML, key order kept)."""
    path = Path(path)
    data = store_data(cs, path.parent)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        dump_yaml(data, fh)
    return path


def load_chunkset(path, password: str | None = None, watch: Watch | None = None) -> LoadedChunkSet:
    """Rebuild the ChunkSet saved in `path`; says whether its source is found and unchanged.

    Every field is checked for its type and range before it is used (`chunks[3].tokens: expected
    a whole number, got 'x'`), ids must be unique and offsets inside the source. `password` opens
    an encrypted PDF source: a wrong one fails (PasswordError), and without one the source is
    neither matched nor called changed but `source_locked`. `watch` hears of the source's
    extraction and may stop it (see readers.Watch).
    """
    path = Path(path)
    data = read_yaml(path)
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("chunks"), list)
        or not isinstance(data.get("source"), dict)
    ):
        raise DocumentError(path, "not a chunks.yaml (needs 'source' and 'chunks')")
    return _reload(data, path, password, watch)


def _reload(data: dict, path: Path, password: str | None = None, watch: Watch | None = None) -> LoadedChunkSet:
    """The ChunkSet of chunks.yaml's content `data` (or a chunks.json or manifest read as one),
    read from `path`, every field typed and checked first."""
    top = _Fields(data, "", path)
    src = top.fields("source")
    source: dict[str, Any] = {
        "path": src.text("path", None),
        "sha256": src.text("sha256", None),
        "kind": src.text("kind", None),
        "language": src.text("language", None),
        "encoding": src.text("encoding", None),
        "lines": src.whole("lines", 0),
        "chars": src.whole("chars", 0),
        "extraction": src.mapping("extraction"),
    }
    records = [_chunk_fields(r) for r in top.records("chunks")]
    gaps = [_gap_fields(g) for g in top.records("gaps", optional=True)]
    run: dict[str, Any] = {
        "strategy": top.text("strategy", ""),
        "params": top.mapping("params"),
        "tokenizer": top.text("tokenizer", "cl100k_base"),
        "warnings": top.texts("warnings"),
        "notes": top.texts("notes"),
        "context_header": top.text("context_header", "none"),
    }
    try:
        run["params"] = saved_params(run["strategy"], run["params"])
    except ParamError as exc:
        top.fail("params", f"{exc.name} {exc.problem}")
    if run["context_header"] not in CONTEXT_HEADERS:
        top.fail("context_header", f"expected one of {', '.join(CONTEXT_HEADERS)}, got {_shown(run['context_header'])}")
    _refuse_duplicate_ids(records, path)
    source_path = _resolve_source(source["path"], path.parent)
    doc = None
    locked = differently = None
    found = source_path is not None
    if found:
        try:
            mode = source["extraction"].get("mode")
            candidate = load_document(
                source_path,
                kind=source["kind"],
                language=source["language"],
                reader_options={"html": mode or "main", "password": password},
                watch=watch,
            )
        except PasswordError as exc:
            if password:
                raise
            candidate, locked = None, exc.problem
        except DocumentError:
            candidate = None
        # an extracted source must also give the same text again (another extractor version may not)
        if candidate is not None and candidate.sha256 == source["sha256"]:
            differently = extraction_change(candidate, source["extraction"])
            doc = candidate if differently is None else None
    matches = doc is not None
    if doc is None:
        doc = _rebuild_document(source, records, gaps, path)
    counter = _embed_counter(records, run, path)
    chunks = [_chunk(i, r, doc, path, run["context_header"], counter) for i, r in enumerate(records)]
    for g in gaps:
        if g["end_char"] > len(doc.text):
            raise DocumentError(
                path,
                f"{g['where']}: offsets {g['start_char']}:{g['end_char']} fall outside the "
                f"source ({len(doc.text)} chars)",
            )
    cs = ChunkSet(
        document=doc,
        chunks=chunks,
        **run,
        gaps=[Gap(g["start_char"], g["end_char"], g["start_line"], g["end_line"], g["reason"]) for g in gaps],
    )
    return LoadedChunkSet(cs, source_path, found, matches, locked, differently)


def load_saved(path, password: str | None = None) -> ChunkSet:
    """Saved chunks from a chunks.yaml store, an export's chunks.json or manifest.json, or an export
    folder (its chunks.yaml, chunks.json or manifest.json, in that order). `password` opens a
    source that is an encrypted PDF."""
    path = Path(path)
    if path.is_dir():
        names = (STORE_NAME, "chunks.json", MANIFEST_NAME)
        found = [path / name for name in names if (path / name).is_file()]
        if not found:
            raise DocumentError(path, f"no saved chunks in this folder ({', '.join(names)})")
        path = found[0]
    if path.suffix.lower() in (".yaml", ".yml"):
        return load_chunkset(path, password).chunkset
    if not path.is_file():
        raise DocumentError(path, "no such file")
    if path.suffix.lower() != ".json":
        raise DocumentError(path, "not a saved chunks file (chunks.yaml, chunks.json or manifest.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DocumentError(path, f"not readable JSON ({exc})") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("chunks"), list)
        or not all(isinstance(r, dict) for r in data["chunks"])
    ):
        raise DocumentError(path, "not a chunktui chunks.json or manifest.json (needs 'chunks')")
    try:
        stored = _manifest_as_stored(data, path, password) if "source_chars" in data else _export_as_stored(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(path, f"malformed chunk entry ({type(exc).__name__}: {exc})") from None
    return _reload(stored, path, password).chunkset


def _export_as_stored(data: dict) -> dict:
    """chunks.json (the json export) as chunks.yaml's content: it holds each chunk's text."""
    return {
        **data,
        "source": {"path": data.get("source"), "sha256": data.get("source_sha256")},
        "chunks": [{**r, "text": r["content"]} for r in data["chunks"]],
    }


def _manifest_as_stored(data: dict, path: Path, password: str | None) -> dict:
    """manifest.json as chunks.yaml's content, each chunk's text cut from the source file, which
    must be there unchanged (the texts are in the export's chunk files, in any of its formats).
    An encrypted PDF source needs `password`: without it (or with a wrong one) that is the error,
    not a source missing or changed."""
    stored = data.get("source")
    source_path = _resolve_source(stored, path.parent)
    mode = (data.get("extraction") or {}).get("mode")
    try:
        doc = (
            load_document(source_path, reader_options={"html": mode or "main", "password": password})
            if source_path is not None
            else None
        )
    except PasswordError as exc:
        raise PasswordError(
            path,
            f"its source {stored}: {exc.problem}"
            if password
            else f"its source {stored} is an encrypted PDF: give its password (--password, or "
            "password= to chunktui.load)",
        ) from None
    differently = extraction_change(doc, data.get("extraction")) if doc is not None else None
    if doc is not None and doc.sha256 == data.get("source_sha256") and differently:
        raise DocumentError(
            path,
            f"its source {stored} is the same file, extracted differently ({differently}); load the "
            "chunks.yaml or chunks.json beside it, which hold the chunk texts",
        )
    if doc is None or doc.sha256 != data.get("source_sha256"):
        raise DocumentError(
            path,
            f"its source {stored} is missing or changed; load the chunks.yaml or "
            "chunks.json beside it, which hold the chunk texts",
        )
    return {
        **data,
        "source": {
            "path": stored,
            "sha256": doc.sha256,
            "kind": data.get("source_kind"),
            "chars": data.get("source_chars"),
            "lines": data.get("source_lines"),
        },
        "chunks": [{**r, "text": doc.text[int(r["start_char"]) : int(r["end_char"])]} for r in data["chunks"]],
    }


_REQUIRED = object()


class _Fields:
    """Typed reads of one mapping of a chunks.yaml: a missing or mistyped field is one DocumentError
    naming it (`chunks[2].start_char: expected a whole number, got 'x'`), before any value is used."""

    def __init__(self, data: dict, where: str, path: Path):
        self.data, self.where, self.path = data, where, path

    def fail(self, key: str, problem: str):
        raise DocumentError(self.path, f"{self.where}{key}: {problem}")

    def get(self, key: str, default):
        value = self.data.get(key)
        if value is None:
            if default is _REQUIRED:
                self.fail(key, "missing")
            return default
        return value

    def whole(self, key: str, default=_REQUIRED, least: int = 0) -> int:
        value = self.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"expected a whole number, got {_shown(value)}")
        if value < least:
            self.fail(key, f"must be at least {least}, got {value}")
        return value

    def text(self, key: str, default=_REQUIRED) -> str | None:
        value = self.get(key, default)
        if value is not None and not isinstance(value, str):
            self.fail(key, f"expected text, got {_shown(value)}")
        return value

    def mapping(self, key: str) -> dict:
        value = self.get(key, {})
        if not isinstance(value, dict):
            self.fail(key, f"expected a mapping, got {_shown(value)}")
        return dict(value)

    def texts(self, key: str) -> list[str]:
        value = self.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"expected a list of text, got {_shown(value)}")
        return list(value)

    def fields(self, key: str) -> _Fields:
        return _Fields(self.mapping(key), f"{self.where}{key}.", self.path)

    def records(self, key: str, optional: bool = False) -> list[_Fields]:
        value = self.get(key, [] if optional else _REQUIRED)
        if not isinstance(value, list):
            self.fail(key, f"expected a list, got {_shown(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                self.fail(f"{key}[{i}]", f"expected a mapping, got {_shown(item)}")
        return [_Fields(item, f"{self.where}{key}[{i}].", self.path) for i, item in enumerate(value)]


def _shown(value) -> str:
    """A wrong value in an error line: containers by their type, anything else cut short."""
    if isinstance(value, (list, dict)):
        return f"a {'list' if isinstance(value, list) else 'mapping'}"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _chunk_fields(r: _Fields) -> dict:
    """A stored chunk's fields, typed and checked; errors name it by place and id (`chunks[2] (chunk-0003)`)."""
    named = f"{r.where.rstrip('.')} ({r.text('id')})"
    r = _Fields(r.data, named + ".", r.path)
    out = {
        "where": named,
        "id": r.data["id"],
        "text": r.text("text"),
        "sha256": r.text("sha256"),
        "start_char": r.whole("start_char"),
        "end_char": r.whole("end_char"),
        "start_line": r.whole("start_line", least=1),
        "end_line": r.whole("end_line", least=1),
        "tokens": r.whole("tokens"),
        "start_byte": r.whole("start_byte", 0),
        "end_byte": r.whole("end_byte", 0),
        "boundary_type": r.text("boundary_type", "size"),
        "boundary_label": r.text("boundary_label", ""),
        "context_text": r.text("context_text", None),
        "metadata": r.mapping("metadata"),
        "embed_text": r.text("embed_text", None),
        "embed_tokens": r.whole("embed_tokens") if r.data.get("embed_tokens") is not None else None,
    }
    for key in ("overlap_start_chars", "overlap_end_chars", "overlap_start", "overlap_end"):
        out[key] = r.whole(key, 0)
    for first, last in (("start_char", "end_char"), ("start_line", "end_line"), ("start_byte", "end_byte")):
        if out[first] > out[last]:
            r.fail(first, f"{out[first]} is past {last} ({out[last]})")
    return out


def _gap_fields(g: _Fields) -> dict:
    out: dict[str, Any] = {
        "where": g.where.rstrip("."),
        "start_char": g.whole("start_char"),
        "end_char": g.whole("end_char"),
        "start_line": g.whole("start_line", least=1),
        "end_line": g.whole("end_line", least=1),
        "reason": g.text("reason", "uncovered"),
        "newlines": g.whole("newlines", 0),
    }
    for first, last in (("start_char", "end_char"), ("start_line", "end_line")):
        if out[first] > out[last]:
            g.fail(first, f"{out[first]} is past {last} ({out[last]})")
    return out


def _refuse_duplicate_ids(records: list[dict], path: Path) -> None:
    seen: set[str] = set()
    for r in records:
        if r["id"] in seen:
            raise DocumentError(path, f"{r['where']}: id {r['id']!r} is used by an earlier chunk too")
        seen.add(r["id"])


def _stored_path(source, base: Path) -> str:
    """Relative to the YAML's folder when both live under the working folder, else absolute.

    Bytes of a name that are not UTF-8 are written as `\\xNN` (YAML text cannot hold them),
    so such a source is not found again on reload and the saved chunks are shown on their own.
    """
    src = Path(source).absolute()
    base = base.absolute()
    cwd = Path.cwd()
    if src.is_relative_to(cwd) and base.is_relative_to(cwd):
        return printable_path(Path(os.path.relpath(src, base)).as_posix())
    return printable_path(src.as_posix())


def is_chunk_store(path: Path) -> bool:
    """A saved chunks.yaml (by name, or a YAML file that declares the chunktui schema)."""
    path = Path(path)
    if path.name == "chunks.yaml":
        return True
    if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file():
        return False  # a FIFO named x.yaml would block the open below forever
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return "chunktui.chunks/" in head


def check_source_password(path: Path, password: str | None) -> None:
    """Raise PasswordError when `path` (a PDF, or a chunks.yaml whose source is one) is encrypted
    and `password` is missing or wrong; a review without any password is let through (it shows the
    stored chunks and says the source is not checked). A PDF or DOCX `path` that cannot be opened at
    all (damaged, truncated, not a zip) raises DocumentError too."""
    from chunktui.engine.readers import check_opens
    from chunktui.engine.readers.pdf import check_password

    path = Path(path)
    if is_chunk_store(path):
        data = read_yaml(path)
        stored = data.get("source") if isinstance(data, dict) else None
        source = _resolve_source(stored.get("path"), path.parent) if isinstance(stored, dict) else None
        if source is not None and password:
            check_password(source, password)
    else:
        check_opens(path, password)


def _resolve_source(stored, base: Path) -> Path | None:
    if not stored:
        return None
    p = Path(stored)
    for candidate in [p] if p.is_absolute() else [base / p, p]:
        if candidate.is_file():
            tidy = Path(os.path.normpath(candidate))  # `out/x/../../doc.md` is shown as `doc.md`
            return tidy if tidy.is_file() and tidy.samefile(candidate) else candidate
    return None


def _rebuild_document(source: dict, records: list[dict], gaps: list[dict], path: Path) -> Document:
    """The source as far as the chunks know it: their texts at their offsets, gaps as blank filler.

    Gap filler keeps each gap's newline count, so every line number still matches the file.
    """
    total = source["chars"]
    covered = max([r["end_char"] for r in records] + [g["end_char"] for g in gaps], default=0)
    if total > covered:  # chunks and gaps cover the whole source; past them, only blank would be made up
        raise DocumentError(path, f"source.chars: {total:,} is past the last chunk or gap (which end at {covered:,})")
    gap_newlines = [(g["start_char"], g["end_char"], g["newlines"]) for g in gaps]

    def newlines(a: int, b: int) -> int:
        return sum(n for s, e, n in gap_newlines if s >= a and e <= b)

    pieces, pos = [], 0
    for r in sorted(records, key=lambda r: (r["start_char"], r["end_char"])):
        start, end, text = r["start_char"], r["end_char"], r["text"]
        if len(text) != end - start:
            raise DocumentError(
                path, f"{r['id']}: text has {len(text)} chars but offsets {start}:{end} span {end - start}"
            )
        if start > pos:
            pieces.append(_filler(start - pos, newlines(pos, start), trailing=False))
            pos = start
        if end > pos:  # overlaps are checked against this text when the chunks are rebuilt
            pieces.append(text[pos - start :])
            pos = end
    if total > pos:
        filler = _filler(total - pos, newlines(pos, total), trailing=False)
        if Document("".join(pieces) + filler).line_count != source["lines"]:
            filler = _filler(total - pos, newlines(pos, total), trailing=True)
        pieces.append(filler)
    doc = Document(
        text="".join(pieces),
        path=source["path"],
        kind=source["kind"] or "prose",
        language=source["language"],
        sha256=source["sha256"] or "",
        encoding=source["encoding"] or "utf-8",
    )
    doc.warnings.append(f"{path}: source file missing or changed since saving; text outside the chunks is blank")
    return doc


def _filler(length: int, newlines: int, trailing: bool) -> str:
    """`length` chars of blank with `newlines` line breaks, placed last (or first when `trailing`)."""
    newlines = min(newlines, length)
    blank = " " * (length - newlines)
    return "\n" * newlines + blank if trailing else blank + "\n" * newlines


def _embed_counter(records: list[dict], run: dict, path: Path):
    """What counts the embedded texts whose count was not saved (chunks saved before embed_tokens
    was), in the saved run's tokenizer; None when every count is there."""
    if all(
        r["embed_text"] is not None
        and r["embed_tokens"] is not None
        or not (r["embed_text"] or r["context_text"] or run["context_header"] != "none")
        for r in records
    ):
        return None
    try:
        return get_counter(run["tokenizer"])
    except ChunktuiError as exc:
        raise DocumentError(path, f"tokenizer: {exc}") from None


def _chunk(index: int, r: dict, doc: Document, path: Path, context_header: str, counter) -> Chunk:
    start, end, text = r["start_char"], r["end_char"], r["text"]
    if end > len(doc.text):  # a slice would clip, so the text check alone misses it
        raise DocumentError(path, f"{r['id']}: offsets {start}:{end} fall outside the source ({len(doc.text)} chars)")
    if doc.text[start:end] != text:
        raise DocumentError(path, f"{r['id']}: stored text differs from the source at {start}:{end}")
    if r["end_line"] > max(doc.line_count, 1):
        raise DocumentError(
            path, f"{r['where']}.end_line: {r['end_line']} is past the source's last line ({doc.line_count})"
        )
    return Chunk(
        index=index,
        start=start,
        end=end,
        start_line=r["start_line"],
        end_line=r["end_line"],
        text=text,
        tokens=r["tokens"],
        sha256=r["sha256"],
        boundary_type=r["boundary_type"],
        boundary_label=r["boundary_label"] or "",
        overlap_prev_chars=r["overlap_start_chars"],
        overlap_next_chars=r["overlap_end_chars"],
        overlap_prev_lines=r["overlap_start"],
        overlap_next_lines=r["overlap_end"],
        start_byte=r["start_byte"],
        end_byte=r["end_byte"],
        metadata=MappingProxyType(r["metadata"]),
        context_text=r["context_text"],
        embed_text=(
            embed := r["embed_text"]
            or embedded_texts(
                doc,
                [text],
                [r["context_text"]],
                [r["metadata"]],
                context_header,
                [start + r["overlap_start_chars"]],
                [end],
                document_headings(doc, context_header),
            )[0]
        ),
        # a count saved for a text that was not (a manifest's, which has no context texts) is not this one's
        embed_tokens=r["embed_tokens"]
        if r["embed_text"] is not None and r["embed_tokens"] is not None
        else r["tokens"]
        if embed == text
        else counter.count(embed),
    )
