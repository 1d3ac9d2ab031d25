"""`chunktui inspect`: a sanity check of saved chunks (cgft's ChunkInspector) without the app.

Reads a chunks.yaml or a manifest.json (with the chunk files beside it) and
reports count, size distribution, a histogram, duplicates and one sample chunk.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from chunktui.engine.readers.documents import read_file_bytes
from chunktui.engine.core.errors import DocumentError, ParamError
from chunktui.engine.core.stats import percentile, text_histogram
from chunktui.engine.strategies import saved_params

from chunktui.formats.manifest import MANIFEST_NAME
from chunktui.formats.store import load_chunkset
from chunktui.formats.yamlio import read_yaml

SAMPLE_LINES = 20
SAMPLE_WIDTH = 200  # a minified line is cut here unless --full
MAX_DUP_GROUPS, MAX_DUP_IDS = 5, 6


@dataclass
class ChunkInfo:
    id: str
    start_line: int
    end_line: int
    chars: int
    tokens: int
    sha256: str
    boundary_type: str
    boundary_label: str
    text: str | None = None


@dataclass
class Inspection:
    path: Path
    kind: str  # "chunks.yaml" or "manifest.json"
    source: str | None
    strategy: str
    tokenizer: str
    params: dict
    chunks: list[ChunkInfo]
    gaps: int = 0
    source_status: str = ""
    warnings: list[str] = field(default_factory=list)


def inspect_file(path, password: str | None = None) -> Inspection:
    """Read a chunks.yaml, a manifest.json, or a folder holding a manifest.json. `password` opens
    a source that is an encrypted PDF, to check it or to cut the chunk texts from it."""
    path = Path(path)
    if path.is_dir():
        if not (path / MANIFEST_NAME).is_file():
            inner = sorted(
                m.parent.as_posix()
                for pattern in ("*", "*/*")  # shallow: never walk a whole home
                for m in path.glob(f"{pattern}/{MANIFEST_NAME}")
            )
            hint = (
                f"inspect one of its {len(inner)} exports, e.g. {inner[0]}"
                if inner
                else "expected an export folder, a chunks.yaml or a manifest.json"
            )
            raise DocumentError(path, f"no {MANIFEST_NAME} in this folder; {hint}")
        path = path / MANIFEST_NAME
    if not path.exists():
        raise DocumentError(path, "no such file")
    if path.suffix.lower() == ".json":
        return _from_manifest(path, password)
    if path.suffix.lower() in (".yaml", ".yml"):
        return _from_store(path, password)
    raise DocumentError(path, "expected a chunks.yaml or a manifest.json")


def _from_store(path: Path, password: str | None) -> Inspection:
    loaded = load_chunkset(path, password)
    cs = loaded.chunkset
    status = (
        "found, unchanged"
        if loaded.source_matches
        else f"found, not checked ({loaded.source_locked})"
        if loaded.source_locked
        else f"found, the same file, extracted differently ({loaded.extracted_differently})"
        if loaded.extracted_differently
        else "found, CHANGED since the chunks were saved"
        if loaded.source_found
        else "not found"
    )
    chunks = [
        ChunkInfo(
            c.id, c.start_line, c.end_line, c.chars, c.tokens, c.sha256, c.boundary_type, c.boundary_label, c.text
        )
        for c in cs.chunks
    ]
    source = loaded.source_path or cs.document.path
    if not loaded.source_found and source and not Path(source).is_absolute():  # stored relative to the YAML
        source = os.path.normpath(path.parent / source)
    return Inspection(
        path,
        "chunks.yaml",
        str(source) if source else None,
        cs.strategy,
        cs.tokenizer,
        cs.params,
        chunks,
        len(cs.gaps),
        status,
        list(cs.warnings),
    )


def _from_manifest(path: Path, password: str | None) -> Inspection:
    raw = read_file_bytes(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise DocumentError(path, f"not a readable manifest.json ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("chunks"), list):
        raise DocumentError(path, "not a chunktui manifest (needs 'chunks')")
    try:
        texts = _manifest_texts(path.parent, data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, DocumentError):
        texts = {}  # unreadable chunk files: report sizes from the manifest, texts as missing
    if any(str(r.get("id")) not in texts for r in data["chunks"] if isinstance(r, dict)):
        texts = {**_source_texts(data, password), **texts}  # e.g. brain notes: cut the texts from the unchanged source
    try:
        chunks = [
            ChunkInfo(
                str(r["id"]),
                int(r["start_line"]),
                int(r["end_line"]),
                int(r["chars"]),
                int(r["tokens"]),
                str(r["sha256"]),
                str(r.get("boundary_type", "")),
                str(r.get("boundary_label") or ""),
                texts.get(str(r["id"])),
            )
            for r in data["chunks"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise DocumentError(path, f"malformed chunk entry in the manifest ({exc})") from None
    missing = sum(1 for c in chunks if c.text is None)
    warnings = [f"{path}: {missing} chunk text(s) not found beside the manifest"] if missing else []
    return Inspection(
        path,
        "manifest.json",
        data.get("source"),
        str(data.get("strategy", "")),
        str(data.get("tokenizer", "")),
        _params(data),
        chunks,
        len(data.get("gaps") or []),
        "",
        warnings,
    )


def _params(data: dict) -> dict:
    """The manifest's params under today's names (an older manifest may use an alias), as written
    when it names one parameter twice: inspect shows what the file holds, it does not judge it."""
    params = data.get("params") or {}
    if not isinstance(params, dict):
        return {}
    try:
        return saved_params(str(data.get("strategy", "")), params)
    except ParamError:
        return dict(params)


def _manifest_texts(folder: Path, data: dict) -> dict[str, str]:
    """Chunk texts by id from the files beside the manifest, whatever format wrote them."""
    texts: dict[str, str] = {}
    names = {Path(str(r.get("file", ""))).name for r in data["chunks"]}
    for name in names:
        f = folder / name
        if not f.is_file():
            continue
        if name == "chunks.json":
            for r in json.loads(f.read_text(encoding="utf-8")).get("chunks", []):
                texts[r["id"]] = r.get("content")
        elif name == "chunks.jsonl":
            for line in f.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    r = json.loads(line)
                    texts[r["id"]] = r.get("text")
        elif name.endswith((".yaml", ".yml")):
            for r in (read_yaml(f) or {}).get("chunks", []):
                texts[r["id"]] = r.get("text")
        elif name.endswith(".txt"):
            with open(f, encoding="utf-8", newline="") as fh:
                texts[Path(name).stem] = fh.read()
    return texts


def _source_texts(data: dict, password: str | None) -> dict[str, str]:
    """Chunk texts by id cut from the manifest's source file, if it is still there with the same
    sha256 and, for a PDF, HTML or DOCX file, gives the same text (read in the recorded HTML mode)."""
    from chunktui.engine.readers import same_extraction
    from chunktui.engine.readers.documents import load_document

    source = data.get("source")
    recorded = data.get("extraction")
    extraction = recorded if isinstance(recorded, dict) else {}
    options = {"html": extraction.get("mode") or "main", "password": password}
    try:
        doc = load_document(source, reader_options=options) if isinstance(source, str) else None
    except (DocumentError, OSError):
        return {}
    if doc is None or doc.sha256 != data.get("source_sha256") or not same_extraction(doc, extraction):
        return {}
    try:
        return {str(r["id"]): doc.text[int(r["start_char"]) : int(r["end_char"])] for r in data["chunks"]}
    except (KeyError, TypeError, ValueError):
        return {}


def duplicates(chunks: list[ChunkInfo]) -> list[list[str]]:
    """Ids of chunks sharing a sha256, one group per repeated text."""
    groups: dict[str, list[str]] = {}
    for c in chunks:
        groups.setdefault(c.sha256, []).append(c.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def pick_sample(chunks: list[ChunkInfo], which: str | None = None, where="--chunk") -> ChunkInfo | None:
    """The chunk named by id or 1-based number, else the one of median token size."""
    if which and not chunks:
        raise DocumentError(where, f"no chunk {which!r}: there are no chunks")
    if not chunks:
        return None
    if which:
        for i, c in enumerate(chunks, 1):
            if which in (c.id, str(i)):
                return c
        raise DocumentError(where, f"no chunk {which!r} (have 1..{len(chunks)}, {chunks[0].id} .. {chunks[-1].id})")
    return sorted(chunks, key=lambda c: (c.tokens, c.id))[(len(chunks) - 1) // 2]


def _dist(values: list[int]) -> str:
    if not values:
        return "-"
    return (
        f"min {min(values):,}  median {percentile(values, 50):,.0f}  "
        f"p95 {percentile(values, 95):,.0f}  max {max(values):,}"
    )


def _duplicates_text(dups: list[list[str]]) -> str:
    """Groups of equal chunks, capped so thousands of repeats stay one readable line."""
    if not dups:
        return "none"
    shown = [
        " = ".join(ids[:MAX_DUP_IDS]) + (f" (+{len(ids) - MAX_DUP_IDS:,} more)" if len(ids) > MAX_DUP_IDS else "")
        for ids in dups[:MAX_DUP_GROUPS]
    ]
    rest = len(dups) - MAX_DUP_GROUPS
    return "; ".join(shown) + (f"; and {rest:,} more groups" if rest > 0 else "")


def summary_lines(insp: Inspection, sample: str | None = None, full: bool = False) -> list[str]:
    """The report `chunktui inspect` prints, as plain lines (no colour, pipes well)."""
    chunks = insp.chunks
    lines = [
        f"{insp.path} ({insp.kind})",
        f"  source     {insp.source or '-'}" + (f"  [{insp.source_status}]" if insp.source_status else ""),
        f"  strategy   {insp.strategy}  " + " ".join(f"{k}={v}" for k, v in insp.params.items()),
        f"  tokenizer  {insp.tokenizer}",
        f"  chunks     {len(chunks):,}" + (f"  ({insp.gaps} gap{'s' if insp.gaps != 1 else ''})" if insp.gaps else ""),
        f"  chars      {_dist([c.chars for c in chunks])}",
        f"  tokens     {_dist([c.tokens for c in chunks])}",
    ]
    if chunks:
        lines.append("  histogram (tokens)")
        lines += ["    " + row for row in text_histogram([c.tokens for c in chunks])]
    dups = duplicates(chunks)
    lines.append("  duplicates " + _duplicates_text(dups))
    chosen = pick_sample(chunks, sample, insp.path)
    if chosen is not None:
        where = (
            f"line {chosen.start_line}"
            if chosen.start_line == chosen.end_line
            else f"lines {chosen.start_line}-{chosen.end_line}"
        )
        lines.append(
            f"  sample     {chosen.id}: {where}, "
            f"{chosen.chars:,} chars, {chosen.tokens:,} tokens, {chosen.boundary_type}"
            + (f" {chosen.boundary_label}" if chosen.boundary_label else "")
        )
        if chosen.text is None:
            lines.append("    (text not available)")
        else:
            body = chosen.text.splitlines()
            shown = body if full else body[:SAMPLE_LINES]
            lines += [
                "    | "
                + (
                    line
                    if full or len(line) <= SAMPLE_WIDTH
                    else f"{line[:SAMPLE_WIDTH]} ... (+{len(line) - SAMPLE_WIDTH:,} chars)"
                )
                for line in shown
            ]
            if len(shown) < len(body):
                lines.append(f"    | ... {len(body) - len(shown)} more lines (--full shows all)")
    lines += [f"  warning    {w}" for w in insp.warnings]
    return lines
