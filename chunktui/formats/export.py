"""Export a ChunkSet to a folder: chunk files in one format plus manifest.json, all or nothing.

Everything is written into a temporary folder beside the target and renamed into
place at the end, so an interrupted or failed export never leaves half a folder.
The CLI and the app's export dialog both call `export_chunkset`.

Writers register by name: `@register_writer("brain")` on a function
`(cs, folder: Path) -> list[str]` that writes into `folder` and returns, for each
chunk in order, the name of the file holding it.
"""

from __future__ import annotations

import errno
import hashlib
import importlib
import json
import os
import pkgutil
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from chunktui.engine.errors import ChunktuiError
from chunktui.engine.readers import write_extracted_text

from .manifest import MANIFEST_NAME, build_manifest
from .records import chunk_record, display_path, to_plain
from .store import STORE_NAME, save_chunkset
from .yamlio import read_yaml

DEFAULT_ROOT = "chunks"

Writer = Callable[..., list]
WRITERS: dict[str, Writer] = {}


class ExportError(ChunktuiError):
    """The output folder cannot be written (not empty, not a folder, no permission)."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


@dataclass
class ExportResult:
    out_dir: Path
    manifest_path: Path
    files: list[Path]


def register_writer(name: str):
    """Decorator adding a writer under `name` (a `--format` choice and an export dialog option)."""

    def add(fn: Writer) -> Writer:
        WRITERS[name] = fn
        return fn

    return add


_loaded = False


def writer_names() -> list[str]:
    """Every format, after importing the formats modules that register more writers."""
    global _loaded
    if not _loaded:
        _loaded = True
        package = importlib.import_module("chunktui.formats")
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"chunktui.formats.{info.name}")
    builtin = ["text", "json", "yaml", "jsonl"]
    return builtin + sorted(n for n in WRITERS if n not in builtin)


def default_output_dir(source_path) -> Path:
    """`chunks/<file-name-with-dots-as-dashes>/`: `src/auth/middleware.ts` -> `chunks/middleware-ts`."""
    name = Path(source_path).name if source_path else "text"
    return Path(DEFAULT_ROOT) / (name.replace(".", "-").strip("-") or "text")


def check_target(out_dir, force: bool = False) -> Path:
    """Refuse a target we must not write: a file, or a non-empty folder without `force`.

    Even with `force` only an earlier export (it holds a manifest.json) is replaced,
    so a mistyped `--output .` can never wipe a project.
    """
    target = Path(out_dir)
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise ExportError(target, "exists and is not a folder")
        if any(target.iterdir()):
            if not force:
                raise ExportError(target, "output folder is not empty (use --force to replace it)")
            if not (target / MANIFEST_NAME).is_file():
                raise ExportError(target, "output folder is not empty and holds no manifest.json, "
                                          "so it is not an earlier export; refusing to replace it even with --force")
    return target


def export_chunkset(cs, out_dir=None, fmt: str = "text", force: bool = False) -> ExportResult:
    """Write `cs` in `fmt` plus manifest.json to `out_dir` (default: `default_output_dir`)."""
    names = writer_names()
    if fmt not in WRITERS:
        raise ExportError(out_dir or "export", f"unknown format {fmt!r} (known: {', '.join(names)})")
    target = check_target(out_dir if out_dir is not None else default_output_dir(cs.document.path), force)
    parent = target.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
    except OSError as exc:
        blocker = next((a for a in parent.parents if a.exists() and not a.is_dir()), None)
        if parent.exists() and not parent.is_dir():
            blocker = parent
        why = f"{blocker} is a file, not a folder" if blocker else exc.strerror or str(exc)
        raise ExportError(target, f"cannot create the output folder ({why})") from None
    try:
        chunk_files = WRITERS[fmt](cs, tmp)
        write_extracted_text(cs.document, tmp)  # a PDF's, HTML's or DOCX's text, which the offsets index
        manifest = build_manifest(cs, target, fmt, chunk_files)
        _write_json(tmp / MANIFEST_NAME, manifest)
        problem = verify_export(tmp, fmt, chunk_files)
        if problem:
            raise ExportError(target, f"verification failed, nothing written: {problem}")
        written = sorted(p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file())
        _move_into_place(tmp, target, force)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        why = "disk full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        raise ExportError(target, f"cannot write ({why}); nothing written, earlier output kept") from None
    except UnicodeEncodeError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ExportError(target, f"cannot write a chunk as UTF-8 ({exc.reason})") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ExportResult(out_dir=target, manifest_path=target / MANIFEST_NAME, files=[target / p for p in written])


def _move_into_place(tmp: Path, target: Path, force: bool) -> None:
    """Rename the finished folder onto `target`; an old one is set aside until the swap succeeds."""
    old = None
    if target.exists():
        check_target(target, force)  # the folder may have changed while we were writing
        old = tmp.with_name(tmp.name[:-4] + ".old")
        os.rename(target, old)
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        os.rename(tmp, target)
    except BaseException:  # an interrupt mid-swap too: the earlier output goes back
        if old is not None and not target.exists():
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def verify_export(folder: Path, fmt: str, chunk_files: list[str]) -> str | None:
    """Re-read manifest.json and every chunk as stored; the first mismatch with its sha256, or None.

    The text, json, jsonl and yaml formats hold the chunk texts themselves and are hashed;
    other writers' files (brain notes wrap the text) must at least exist and not be empty.
    """
    try:
        entries = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))["chunks"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{MANIFEST_NAME} cannot be read back ({exc})"
    if len(entries) != len(chunk_files):
        return f"{MANIFEST_NAME} lists {len(entries)} chunks but {len(chunk_files)} were written"
    stored: dict[str, dict | None] = {}
    for entry, name in zip(entries, chunk_files):
        if name not in stored:
            try:
                stored[name] = _stored_texts(folder / name, fmt)
            except (OSError, ValueError, KeyError, TypeError, ChunktuiError) as exc:
                return f"{name} cannot be read back ({exc})"
        texts = stored[name]
        if texts is None:
            if (folder / name).stat().st_size == 0:
                return f"{name} is empty"
            continue
        text = texts.get(entry["id"], texts.get(None))
        if text is None:
            return f"{entry['id']} is missing from {name}"
        if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != entry["sha256"]:
            return f"{entry['id']} in {name} does not match its sha256"
    return None


def _stored_texts(path: Path, fmt: str) -> dict | None:
    """{chunk id: text} read back from one written file ({None: text} for a one-chunk file)."""
    if fmt == "json":
        return {c["id"]: c["content"] for c in json.loads(path.read_text(encoding="utf-8"))["chunks"]}
    if fmt == "jsonl":
        with open(path, encoding="utf-8", newline="\n") as fh:
            return {r["id"]: r["text"] for r in map(json.loads, fh)}
    if fmt == "yaml":
        return {c["id"]: c["text"] for c in read_yaml(path)["chunks"]}
    if fmt == "text":
        with open(path, encoding="utf-8", newline="") as fh:
            return {None: fh.read()}
    path.stat()  # must exist
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_json(path: Path, data) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")


@register_writer("text")
def write_text(cs, folder: Path) -> list[str]:
    """One file per chunk, `chunk-0001.txt`, holding exactly the chunk's text (CRLF kept)."""
    names = []
    for c in cs.chunks:
        name = f"{c.id}.txt"
        with open(folder / name, "w", encoding="utf-8", newline="") as fh:
            fh.write(c.text)
        names.append(name)
    return names


@register_writer("json")
def write_json(cs, folder: Path) -> list[str]:
    """`chunks.json`: the run's settings and every chunk's fields with its content embedded."""
    doc = cs.document
    chunks = [{**chunk_record(c), "context_text": c.context_text, "content": c.text} for c in cs.chunks]
    _write_json(folder / "chunks.json", {
        "source": display_path(doc.path) if doc.path else None,
        "source_sha256": doc.sha256,
        "strategy": cs.strategy,
        "params": to_plain(cs.params),
        "tokenizer": cs.tokenizer,
        "chunks": chunks,
    })
    return ["chunks.json"] * len(cs.chunks)


@register_writer("yaml")
def write_yaml(cs, folder: Path) -> list[str]:
    """`chunks.yaml`, the store format the app and `chunktui inspect` reload."""
    save_chunkset(cs, folder / STORE_NAME)
    return [STORE_NAME] * len(cs.chunks)


@register_writer("jsonl")
def write_jsonl(cs, folder: Path) -> list[str]:
    """`chunks.jsonl`: one `{"id", "text", "metadata"}` a line, the shape vector stores ingest."""
    source = display_path(cs.document.path) if cs.document.path else None
    with open(folder / "chunks.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for c in cs.chunks:
            line = {"id": c.id, "text": c.text}
            if c.context_text is not None:
                line["context_text"] = c.context_text
            line["metadata"] = {
                **to_plain(c.metadata),
                "source": source,
                "source_sha256": cs.document.sha256,
                "strategy": cs.strategy,
                "chunk_index": c.index,
                "start_char": c.start,
                "end_char": c.end,
                "start_line": c.start_line,
                "end_line": c.end_line,
                "lines": f"{c.start_line}-{c.end_line}",
                "chars": c.chars,
                "tokens": c.tokens,
                "tokenizer": cs.tokenizer,
                "sha256": c.sha256,
                "boundary": c.boundary_type,
                "boundary_label": c.boundary_label,
                "label": c.label,
            }
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return ["chunks.jsonl"] * len(cs.chunks)
