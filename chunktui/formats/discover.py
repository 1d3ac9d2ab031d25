"""Which files a `chunktui chunk PATH...` run reads, and the output folder each one gets."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from chunktui.engine.documents import CODE_LANGUAGES, KIND_BY_EXTENSION
from chunktui.engine.documents import load_document
from chunktui.engine.errors import DocumentError
from chunktui.engine.mail import is_email_folder, load_email_folder

from .export import DEFAULT_ROOT, ExportError, default_output_dir
from .manifest import MANIFEST_NAME

# Generated or vendored trees nobody wants chunked; hidden folders (.git, .venv, .tox) go too.
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "dist", "build"})
SPECIAL_NAMES = frozenset({"Makefile", "Dockerfile"})


@dataclass(frozen=True)
class Job:
    source: Path
    out_dir: Path


def is_supported(path: Path) -> bool:
    ext = path.suffix.lower()
    return ext in CODE_LANGUAGES or ext in KIND_BY_EXTENSION or path.name in SPECIAL_NAMES


def supported_extensions() -> list[str]:
    return sorted(set(CODE_LANGUAGES) | set(KIND_BY_EXTENSION))


def _is_export(folder: Path) -> bool:
    """A folder chunktui wrote earlier: re-chunking its chunks would only feed on itself."""
    manifest = folder / MANIFEST_NAME
    if not manifest.is_file():
        return False
    try:
        with open(manifest, encoding="utf-8") as fh:
            return "chunktui_version" in json.loads(fh.read(1 << 20) or "{}")
    except (OSError, ValueError):
        return False


def _skip_dir(path: Path, skip: set[Path]) -> bool:
    name = path.name
    return (name.startswith(".") or name in SKIP_DIRS or (path / "pyvenv.cfg").exists()
            or path.resolve() in skip or _is_export(path))


def walk_folder(root: Path, skip: set[Path] = frozenset()) -> list[Path]:
    """Every supported, non-hidden file below `root`, in a stable order; symlinked folders are not followed."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(n for n in dirnames if not _skip_dir(here / n, skip))
        found += [here / f for f in sorted(filenames) if not f.startswith(".") and is_supported(here / f)
                  and not _is_special(here / f)]
    return found


def _is_special(path: Path) -> bool:
    """A pipe, socket or device: reading one blocks or never ends (a FIFO named notes.md, /dev/zero)."""
    return path.exists() and not path.is_file() and not path.is_dir()


def load_source(path: Path):
    """The Document for a job: a file, or a folder of .eml files read as one mailbox."""
    return load_email_folder(path) if Path(path).is_dir() else load_document(path)


def plan_jobs(paths, output=None) -> list[Job]:
    """One job per file. A lone file writes to `output` itself; otherwise each file gets a folder below it.

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
            files = walk_folder(p, {root.resolve()})
            if not files:
                raise DocumentError(p, "no supported files in this folder (looked for "
                                       + " ".join(supported_extensions()) + ")")
            base = root / p.resolve().name if len(paths) > 1 else root
            jobs += [Job(f, base / f.parent.relative_to(p) / default_output_dir(f).name) for f in files]
        else:
            jobs.append(Job(p, root / default_output_dir(p).name))
    seen: dict[Path, Path] = {}
    for job in jobs:
        key = job.out_dir.resolve()
        if key in seen and seen[key].resolve() != job.source.resolve():
            raise ExportError(job.out_dir, f"both {seen[key]} and {job.source} would be written here; "
                                           "pass their folders instead, or chunk them in separate runs with different --output")
        seen[key] = job.source
    unique = {job.out_dir.resolve(): job for job in jobs}
    return list(unique.values())
