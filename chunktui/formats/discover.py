"""Which files a `chunktui chunk PATH...` run reads, and the output folder each one gets."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Set
from dataclasses import dataclass
from pathlib import Path

from chunktui.engine.readers.documents import CODE_LANGUAGES, KIND_BY_EXTENSION
from chunktui.engine.readers.documents import load_document
from chunktui.engine.readers import READERS
from chunktui.engine.core.errors import DocumentError, ParamError

from .export import DEFAULT_ROOT, ExportError, default_output_dir
from .manifest import MANIFEST_NAME

# Generated or vendored trees nobody wants chunked; hidden folders (.git, .venv, .tox) go too.
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "dist", "build"})
INDEX_NAME = "index.json"  # written by `chunktui chunk --jobs` beside its exports
SPECIAL_NAMES = frozenset({"Makefile", "Dockerfile"})
DEFAULT_MAX_FILE_SIZE = 100_000_000  # 100 MB: bigger files in a folder scan are skipped, saying so
_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "kb": 10**3,
    "m": 10**6,
    "mb": 10**6,
    "g": 10**9,
    "gb": 10**9,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
}
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*", re.I)  # ASCII digits: float() takes any script's


@dataclass(frozen=True)
class Job:
    source: Path
    out_dir: Path


@dataclass(frozen=True)
class Skipped:
    """A file a folder scan left out, and why (the CLI prints one warning line for each)."""

    path: Path
    reason: str


def parse_size(text) -> int:
    """`100MB`, `20 mb`, `1.5GB`, `512KiB` or plain bytes; 0 means no limit."""
    m = _SIZE.fullmatch(str(text))
    if not m or m.group(2).lower() not in _UNITS:
        raise ParamError("max_file_size", f"{text!r} is not a size (e.g. 100MB, 20MB, 1.5GB, 500000 bytes)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_size(n: int) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


def is_supported(path: Path) -> bool:
    ext = path.suffix.lower()
    return ext in CODE_LANGUAGES or ext in KIND_BY_EXTENSION or ext in READERS or path.name in SPECIAL_NAMES


def supported_extensions() -> list[str]:
    return sorted(set(CODE_LANGUAGES) | set(KIND_BY_EXTENSION) | set(READERS))


def _is_export(folder: Path) -> bool:
    """A folder chunktui wrote earlier (an export's manifest.json, or the index.json of a `--jobs`
    run above the exports): re-chunking its chunks would only feed on itself."""
    for name in (MANIFEST_NAME, INDEX_NAME):
        marker = folder / name
        if not marker.is_file():
            continue
        try:
            with open(marker, encoding="utf-8") as fh:
                if "chunktui_version" in json.loads(fh.read(1 << 20) or "{}"):
                    return True
        except (OSError, ValueError, TypeError):
            continue
    return False


def _skip_dir(path: Path, skip: Set[Path]) -> bool:
    name = path.name
    return (
        name.startswith(".")
        or name in SKIP_DIRS
        or (path / "pyvenv.cfg").exists()
        or path.resolve() in skip
        or _is_export(path)
    )


def walk_folder(
    root: Path, skip: Set[Path] = frozenset(), max_size: int | None = None, skipped: list[Skipped] | None = None
) -> list[Path]:
    """Every supported, non-hidden file below `root`, in a stable order.

    Never leaves `root`: symlinked folders are not followed (so symlink loops cannot
    hang a scan) and symlinked files pointing outside it are left out. Files over
    `max_size` bytes are left out too; each left-out file is appended to `skipped`.
    """
    skipped = [] if skipped is None else skipped
    inside = Path(root).resolve()
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        kept = sorted(n for n in dirnames if not _skip_dir(here / n, skip))
        skipped += [Skipped(here / n, "symlinked folder, not followed") for n in kept if (here / n).is_symlink()]
        dirnames[:] = [n for n in kept if not (here / n).is_symlink()]
        for name in sorted(filenames):
            path = here / name
            if name.startswith(".") or not is_supported(path) or _is_special(path):
                continue
            reason = _skip_reason(path, inside, max_size)
            if reason:
                skipped.append(Skipped(path, reason))
            else:
                found.append(path)
    return found


def _skip_reason(path: Path, inside: Path, max_size: int | None) -> str | None:
    """Why a scanned file must be left out (a symlink leaving the folder, broken or looping; too big), or None."""
    if path.is_symlink():
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # RuntimeError: a symlink loop on Python < 3.13
            return "broken or looping symlink"
        if not real.is_relative_to(inside):
            return f"symlink to {real}, outside {inside}"
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot read ({exc.strerror or exc})"
    if max_size and size > max_size:
        return f"{format_size(size)}, over the {format_size(max_size)} limit (see --max-file-size)"
    return None


def _is_special(path: Path) -> bool:
    """A pipe, socket or device: reading one blocks or never ends (a FIFO named notes.md, /dev/zero)."""
    return path.exists() and not path.is_file() and not path.is_dir()


def load_source(path: Path, reader_options: dict | None = None):
    """The Document for a job: a file, or a folder of .eml files read as one mailbox."""
    if Path(path).is_dir():
        from chunktui.engine.readers.mail import load_email_folder  # here: a run of files has no use for it

        return load_email_folder(path)
    return load_document(path, reader_options=reader_options)


def is_email_folder(path: Path) -> bool:
    """mail.is_email_folder, imported when a folder is named: a run of files has no use for the mail reader."""
    from chunktui.engine.readers.mail import is_email_folder as mailbox

    return mailbox(path)


def plan_jobs(
    paths, output=None, max_file_size: int | None = DEFAULT_MAX_FILE_SIZE, skipped: list[Skipped] | None = None
) -> list[Job]:
    """One job per file. A lone file writes to `output` itself; otherwise each file gets a folder below it.

    `max_file_size` (bytes, None or 0 for no limit) and the symlink rules of `walk_folder`
    apply to folder scans only: a file named on the command line is always chunked.
    Files a scan leaves out are appended to `skipped`.

    Files from a folder keep their sub-folders (`docs/api/auth.md` -> `chunks/api/auth-md/`),
    so equal names in different places never share an output folder; with several
    paths, a folder's files also go below its name (`chunks/docs/api/auth-md/`).
    """
    paths = [Path(p) for p in paths]
    root = Path(output) if output is not None else Path(DEFAULT_ROOT)
    for p in paths:
        if not p.exists():
            raise DocumentError(p, "no such file or folder")
        if _is_special(p):
            raise DocumentError(p, "not a regular file (a pipe, socket or device); nothing to chunk")
    if len(paths) == 1 and (not paths[0].is_dir() or is_email_folder(paths[0])):
        return [Job(paths[0], Path(output) if output is not None else default_output_dir(paths[0]))]
    jobs: list[Job] = []
    for p in paths:
        if p.is_dir() and not is_email_folder(p):
            left_out: list[Skipped] = []
            files = walk_folder(p, {root.resolve()}, max_file_size, left_out)
            if not files and left_out:
                raise DocumentError(
                    p,
                    f"nothing to chunk: every supported file was skipped ({left_out[0].path}: "
                    f"{left_out[0].reason}" + (f"; and {len(left_out) - 1} more)" if len(left_out) > 1 else ")"),
                )
            if not files:
                raise DocumentError(
                    p, "no supported files in this folder (looked for " + " ".join(supported_extensions()) + ")"
                )
            if skipped is not None:
                skipped += left_out
            base = root / p.resolve().name if len(paths) > 1 else root
            jobs += [Job(f, base / f.parent.relative_to(p) / default_output_dir(f).name) for f in files]
        else:
            jobs.append(Job(p, root / default_output_dir(p).name))
    seen: dict[Path, Path] = {}
    for job in jobs:
        key = job.out_dir.resolve()
        if key in seen and seen[key].resolve() != job.source.resolve():
            raise ExportError(
                job.out_dir,
                f"both {seen[key]} and {job.source} would be written here; "
                "pass their folders instead, or chunk them in separate runs with different --output",
            )
        seen[key] = job.source
    unique = {job.out_dir.resolve(): job for job in jobs}
    return list(unique.values())
