"""Export a ChunkSet to a folder: chunk files in one format plus manifest.json, all or nothing.

Everything is written into a temporary folder beside the target and swapped into
place at the end, so an interrupted or failed export never leaves half a folder.
The CLI and the app's export dialog both call `export_chunkset`.

Beside a target `out` an export keeps, only while it runs: `.out.lock` (an flock
that makes runs on one target take turns), `.out.XXXXXXXX.tmp` (the folder being
written; after the swap, the earlier export being deleted) and, only where the
two-rename fallback is used, `.out.XXXXXXXX.old` (the whole earlier export, set
aside for the moment between the renames). A run killed outright (SIGKILL, power)
leaves them; the next run on that target removes them or puts the `.old` back.

Writers register by name: `@register_writer("brain")` on a function
`(cs, folder: Path) -> list[str]` that writes into `folder` and returns, for each
chunk in order, the name of the file holding it. A writer that returns `Written`
(the names and the sha256 of every file's bytes, hashed as they were written, see
`HashedFile`) is checked by hashing its files on disk again (and, for a format in
`TEXTS_DIFFER`, by parsing the bytes read back and comparing each text with its chunk's, from
which the manifest's digests were made); any other is read back and parsed (`verify_export`).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import importlib
import json
import os
import pkgutil
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from contextlib import contextmanager
from functools import partial
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Literal

import orjson

from chunktui.engine.core.errors import ChunktuiError
from chunktui.engine.readers import EXTRACTED_TEXT_NAME, write_extracted_text

from .manifest import MANIFEST_NAME, build_manifest
from .records import chunk_record, display_path, to_plain

DEFAULT_ROOT = "chunks"
LOCK_WAIT_SECONDS = 10.0  # a second run on the same target waits this long for the first, then fails
PAUSE_ENV = "CHUNKTUI_EXPORT_PAUSE"  # tests: "<point>:<folder>" stops the export at a named point

Writer = Callable[..., list]
WRITERS: dict[str, Writer] = {}
READ_BACKS: dict[str, Callable[[Path], dict]] = {}


class ExportInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM arrived while the new export was being swapped in: it is in place, whole."""


class ExportError(ChunktuiError):
    """The output folder cannot be written (not empty, not a folder, no permission)."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class Written(list):
    """A writer's file name per chunk, and `sha256`: each file's digest, of the bytes as written."""

    def __init__(self, names=()):
        super().__init__(names)
        self.sha256: dict[str, str] = {}


class HashedFile:
    """A file opened for binary writing that hashes every byte written to it, so the export can check
    what is on disk against what was written by hashing it again (`_disk_differs`); the chunk texts
    are then checked against the chunks from those bytes (`TEXTS_DIFFER`). Writes are joined into
    batches of a megabyte, each hashed and written at once: a JSONL line at a time, the 6 MB
    corpus's 3,484 lines took 26-31 ms of CPU to hash and write, in batches 15-16 ms."""

    BATCH = 1 << 20  # bytes held before they are hashed and written

    def __init__(self, path: Path, digests: dict[str, str]):
        self._fh = open(path, "wb")
        self._sha = hashlib.sha256()
        self._name = path.name
        self._digests = digests
        self._held: list[bytes] = []
        self._held_bytes = 0

    def write(self, data: bytes) -> None:
        self._held.append(data)
        self._held_bytes += len(data)
        if self._held_bytes >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        data = b"".join(self._held)
        self._held.clear()
        self._held_bytes = 0
        self._sha.update(data)
        self._fh.write(data)

    def __enter__(self) -> HashedFile:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._flush()
        finally:
            self._fh.close()
        self._digests[self._name] = self._sha.hexdigest()


@dataclass
class ExportResult:
    out_dir: Path
    manifest_path: Path
    files: list[Path]


def register_writer(name: str, read_back: Callable[[Path], dict] | None = None):
    """Decorator adding a writer under `name` (a `--format` choice and an export dialog option).
    `read_back(path)` gives {chunk id: text} of a file the writer wrote, for `verify_export` to
    hash (the text formats' are built in); it raises ValueError or ChunktuiError when the file
    is not whole."""

    def add(fn: Writer) -> Writer:
        WRITERS[name] = fn
        if read_back is not None:
            READ_BACKS[name] = read_back
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


def has_writer(name: str) -> bool:
    """Whether `name` is a format; the built-in ones are known without importing the formats modules
    (the SQLite and Parquet writers among them: 15 ms of a JSONL run's start)."""
    return name in WRITERS or name in writer_names()


def default_output_dir(source_path) -> Path:
    """`chunks/<file-name-with-dots-as-dashes>/`: `src/auth/middleware.ts` -> `chunks/middleware-ts`.

    Bytes of the name that are not UTF-8 become `%XX`, so the folder name can be written in manifests.
    """
    name = _percent_escaped(Path(source_path).name) if source_path else "text"
    return Path(DEFAULT_ROOT) / (name.replace(".", "-").strip("-") or "text")


def _percent_escaped(name: str) -> str:
    return "".join(_percent_pieces(os.fsencode(name)))


def _percent_pieces(raw: bytes):
    while raw:
        try:
            yield raw.decode("utf-8")
            return
        except UnicodeDecodeError as exc:
            yield raw[: exc.start].decode("utf-8")
            yield "".join(f"%{b:02X}" for b in raw[exc.start : exc.end])
            raw = raw[exc.end :]


def check_target(out_dir, force: bool = False, source=None) -> Path:
    """Refuse a target we must not write: a file, or a non-empty folder without `force`.

    Even with `force` only an earlier chunktui export is replaced (see `not_an_export`), and
    never the folder holding `source` or any folder above it, the working folder, / or home,
    so a mistyped `--output` can never wipe a project.
    """
    target = Path(out_dir)
    try:
        if stat.S_ISLNK(os.lstat(target).st_mode) or not target.is_dir():
            raise ExportError(target, "exists and is not a folder")
        if not any(target.iterdir()):
            return target
    except (FileNotFoundError, NotADirectoryError):  # a file above it is reported when it is created
        return target
    except OSError as exc:  # a name too long for the file system, a folder we may not read
        raise ExportError(target, f"cannot use this output folder ({exc.strerror or exc})") from None
    if not force:
        raise ExportError(target, "output folder is not empty (use --force to replace it)")
    why = _protected(target, source) or not_an_export(target)
    if why:
        raise ExportError(target, f"{why}; refusing to replace it even with --force")
    return target


def _protected(target: Path, source) -> str | None:
    """Why `target` must never be replaced, or None."""
    real = target.resolve()
    if real == Path(real.anchor):
        return "it is the root folder"
    if real == Path.home().resolve():
        return "it is the home folder"
    if real == Path.cwd().resolve():
        return "it is the working folder"
    if real in Path.cwd().resolve().parents:
        return "it holds the working folder"
    if source is not None and real in Path(source).resolve().parents:
        return f"it holds the source file {Path(source).name}"
    return None


def not_an_export(folder: Path) -> str | None:
    """What in `folder` shows it is not an earlier chunktui export, or None.

    An export is a manifest.json that names a chunktui version, and beside it only regular
    files that manifest lists (its `files`, or for older manifests its chunks' `file`s).
    """
    listed = _manifest_files(folder / MANIFEST_NAME)
    if isinstance(listed, str):
        return listed
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name not in listed:
            return f"it is not an earlier export ({entry.name} is not listed in its {MANIFEST_NAME})"
        if not entry.is_file(follow_symlinks=False):
            return f"it is not an earlier export ({entry.name} is not a regular file)"
    return None


# The last manifest read by _manifest_files: its file's identity and what was read from it. An export
# under --force checks its target three times (before chunking, under the lock, before the swap),
# and parsing a 3,900-chunk manifest (2.7 MB) took 15-35 ms each time.
_manifest_read: tuple[tuple, set[str] | str] | None = None


def _manifest_files(path: Path) -> set[str] | str:
    """The files an earlier export's manifest lists (with itself), or why it is not one. Read again
    only when the file changed: any write to it changes its ctime, which no caller can set back."""
    global _manifest_read
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            if _manifest_read is not None and _manifest_read[0] == key:
                return _manifest_read[1]
            manifest = orjson.loads(f.read())  # a fifth of json's time, for --force
    except FileNotFoundError:
        return f"it is not an earlier export (it holds no {MANIFEST_NAME})"
    except (OSError, ValueError) as exc:
        return f"it is not an earlier export (its {MANIFEST_NAME} cannot be read: {exc})"
    if not isinstance(manifest, dict) or "chunktui_version" not in manifest:
        found: set[str] | str = (
            f"it is not an earlier export (its {MANIFEST_NAME} is not chunktui's: no chunktui_version)"
        )
    else:
        found = {MANIFEST_NAME, *_listed_files(manifest)}
    _manifest_read = (key, found)
    return found


def _listed_files(manifest: dict) -> set[str]:
    files = manifest.get("files")
    if not isinstance(files, list):
        chunks = manifest.get("chunks")
        files = [c.get("file") for c in chunks if isinstance(c, dict)] if isinstance(chunks, list) else []
    return {Path(f).name for f in files if isinstance(f, str)}


def export_chunkset(
    cs, out_dir=None, fmt: str = "text", force: bool = False, notify: Callable[[str], None] | None = None
) -> ExportResult:
    """Write `cs` in `fmt` plus manifest.json to `out_dir` (default: `default_output_dir`).

    One run at a time per target (the second waits up to LOCK_WAIT_SECONDS, then fails).
    `notify` gets one line when leftovers of an earlier interrupted run are cleaned up.
    """
    if not has_writer(fmt):
        raise ExportError(out_dir or "export", f"unknown format {fmt!r} (known: {', '.join(writer_names())})")
    source = cs.document.path
    target = Path(out_dir if out_dir is not None else default_output_dir(source))
    with _sigterm_as_interrupt(), _exclusive(target) as after_a_kill:
        if after_a_kill:
            _recover(target, notify)
        check_target(target, force, source)  # with the lock held: no other export changes it from here
        return _export_locked(cs, target, fmt, force)


def write_problem(exc: OSError) -> str:
    """What stopped a write, in the words of an error line: "disk full", "Read-only file system"..."""
    return "disk full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)


def _blocker(parent: Path, exc: OSError) -> str:
    blocker = next((a for a in parent.parents if a.exists() and not a.is_dir()), None)
    if parent.exists() and not parent.is_dir():
        blocker = parent
    return f"{blocker} is a file, not a folder" if blocker else exc.strerror or str(exc)


def _export_locked(cs, target: Path, fmt: str, force: bool) -> ExportResult:
    parent = target.absolute().parent
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_stem(target) + ".", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise ExportError(target, f"cannot create the output folder ({_blocker(parent, exc)})") from None
    try:
        _pause("locked")
        chunk_files = WRITERS[fmt](cs, tmp)
        write_extracted_text(cs.document, tmp)  # a PDF's, HTML's or DOCX's text, which the offsets index
        written = sorted(p.name for p in tmp.iterdir()) + [MANIFEST_NAME]
        manifest = build_manifest(cs, target, fmt, chunk_files)
        manifest["files"] = written
        problem = _manifest_differs(manifest, cs, chunk_files)
        if not problem:
            problem = _write_and_check(tmp, fmt, chunk_files, manifest, cs.chunks)
        if problem:
            raise ExportError(target, f"verification failed, nothing written: {problem}")
        _pause("written")
        with signals_deferred(target):
            _move_into_place(tmp, target, force, cs.document.path)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ExportError(
            target, f"cannot write ({write_problem(exc)}); nothing written, earlier output kept"
        ) from None
    except (UnicodeEncodeError, orjson.JSONEncodeError) as exc:  # a lone surrogate in a text
        shutil.rmtree(tmp, ignore_errors=True)
        why = exc.reason if isinstance(exc, UnicodeEncodeError) else str(exc).split(": ", 1)[-1]
        raise ExportError(target, f"cannot write a chunk as UTF-8 ({why})") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ExportResult(out_dir=target, manifest_path=target / MANIFEST_NAME, files=[target / p for p in written])


def _move_into_place(tmp: Path, target: Path, force: bool, source) -> None:
    """Put the finished folder at `target`; afterwards nothing of `tmp` or of an earlier export is left.

    An earlier export is swapped with the new one in one step (renameat2 RENAME_EXCHANGE) and then
    deleted. Where the OS or file system cannot exchange, it is renamed aside to `.old`, the new
    one renamed in, and the `.old` renamed back to `.tmp` before it is deleted (so a `.old` is
    always a whole earlier export, which the next run puts back if the target is missing).
    The working folder, when it is the (empty) target, is filled file by file instead: renaming
    over it would pull the folder out from under this process and the user's shell.
    """
    os.chmod(tmp, 0o777 & ~_umask())
    if not os.path.lexists(target):
        os.rename(tmp, target)
        return
    check_target(target, force, source)  # the folder may have changed while we were writing
    if target.resolve() == Path.cwd().resolve():
        _fill_working_folder(tmp, target)
    elif not any(target.iterdir()):
        os.rename(tmp, target)  # replaces an empty folder in one step
    elif _exchange(tmp, target):
        _pause("swapped")
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        old = tmp.with_name(tmp.name[: -len(".tmp")] + ".old")
        os.rename(target, old)
        _pause("set-aside")
        try:
            os.rename(tmp, target)
        except BaseException:
            os.rename(old, target)
            raise
        _pause("swapped")
        try:
            os.rename(old, tmp)
        except OSError:
            tmp = old
        shutil.rmtree(tmp, ignore_errors=True)


def _fill_working_folder(tmp: Path, target: Path) -> None:
    """Move each file into the empty working folder, manifest.json last; on a failure take them out again."""
    moved = []
    try:
        for path in sorted(tmp.iterdir(), key=lambda p: p.name == MANIFEST_NAME):
            os.rename(path, target / path.name)
            moved.append(path.name)
    except BaseException:
        for name in moved:
            os.rename(target / name, tmp / name)
        raise
    os.rmdir(tmp)


_renameat2: Callable[..., int] | Literal[False] | None = (
    None  # libc's function; False where it has none, None until looked up
)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step with Linux's renameat2(RENAME_EXCHANGE); False where unsupported."""
    global _renameat2
    import ctypes  # here, not at the top: 5 ms of every run's start, and only a replacing run needs it

    if _renameat2 is None:
        try:  # the process's own symbols hold libc's (ctypes.util.find_library would run ldconfig)
            fn = ctypes.CDLL(None, use_errno=True).renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            fn.restype = ctypes.c_int
            _renameat2 = fn
        except (OSError, AttributeError, TypeError):  # not Linux, or a libc without it (glibc < 2.28)
            _renameat2 = False
    if not _renameat2:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if _renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a file system (or kernel) that cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


def _stem(target: Path) -> str:
    """`.out`: the name the lock and temporary folders beside `target` start with.

    Cut to fit a 255-byte file name with its suffixes (`.XXXXXXXX.tmp`); a cut name ends
    with a hash of the whole one, so two long names sharing a start do not share leftovers.
    """
    raw = os.fsencode(target.absolute().name)
    if len(raw) > 200:
        raw = raw[:190] + b"~" + hashlib.sha256(raw).hexdigest()[:8].encode()
    return "." + os.fsdecode(raw)


def _lock_path(target: Path) -> Path:
    return target.absolute().parent / (_stem(target) + ".lock")


@contextmanager
def _exclusive(target: Path):
    """Hold `.out.lock` beside `target` (flock): one export per target at a time; the file goes at the end.

    Yields whether the lock file was there before and still is once locked: a run that ends, even
    by an exception or a signal, removes it, so it was left by a killed run (whose leftovers are
    then worth looking for; a clean run leaves none, and looking costs a scan of the parent folder).
    A waiting run that wakes on a lock file its holder already removed locks the new one instead.
    """
    parent = target.absolute().parent
    path = _lock_path(target)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            parent.mkdir(parents=True, exist_ok=True)
            fd, found = _open_lock(path)
        except OSError as exc:
            raise ExportError(target, f"cannot create the output folder ({_blocker(parent, exc)})") from None
        try:
            _flock(fd, target, deadline)
            if _same_file(fd, path):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    try:
        yield found
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def _open_lock(path: Path) -> tuple[int, bool]:
    """The lock file's descriptor, and whether the file was there already."""
    while True:
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), False
        except FileExistsError:
            try:
                return os.open(path, os.O_RDWR | os.O_CLOEXEC), True
            except FileNotFoundError:  # its holder removed it in between
                continue


def _flock(fd: int, target: Path, deadline: float) -> None:
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ExportError(
                    target,
                    f"another export to this folder is still running (waited {LOCK_WAIT_SECONDS:g} s); nothing written",
                ) from None
            time.sleep(0.05)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def recover_interrupted(out_dir, notify: Callable[[str], None] | None = None) -> None:
    """Clean up after an export to `out_dir` that was killed, before a run that may refuse the target.

    Only a lock file left beside the target says there may be something (see `_exclusive`).
    """
    target = Path(out_dir)
    try:
        if not _lock_path(target).exists():
            return
    except OSError:  # a folder name too long, say: the up-front check names the problem
        return
    with _exclusive(target) as after_a_kill:
        if after_a_kill:
            _recover(target, notify)


def _leftovers(target: Path) -> list:
    """The temporary and set-aside folders of exports to `target`, oldest first."""
    pattern = re.compile(re.escape(_stem(target)) + r"\.[a-z0-9_]{8}\.(tmp|old)")
    with os.scandir(target.absolute().parent) as entries:
        found = [e for e in entries if pattern.fullmatch(e.name) and e.is_dir(follow_symlinks=False)]
    return sorted(found, key=lambda e: e.stat(follow_symlinks=False).st_mtime)


def _recover(target: Path, notify) -> None:
    """Remove what an earlier run on `target` left when it was killed, putting a set-aside export back;
    `notify` gets one line saying what was done.

    Called with the lock held, so every match is from a run that is no longer running.
    """
    found = _leftovers(target)
    if not found:
        return
    olds = [e for e in found if e.name.endswith(".old")]
    said = []
    if olds and not os.path.lexists(target):
        os.rename(olds[-1].path, target)
        said.append(f"put back the earlier export an interrupted run had set aside as {olds[-1].name}")
        found.remove(olds[-1])
    for e in found:
        shutil.rmtree(e.path, ignore_errors=True)
    if found:
        said.append(
            f"removed {len(found)} leftover folder{'s' * (len(found) > 1)} of an interrupted export "
            f"({', '.join(e.name for e in found)})"
        )
    if notify:
        notify(f"{target}: {'; '.join(said)}")


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def _sigterm_as_interrupt():
    """SIGTERM ends an export the way Ctrl-C does (cleanly, earlier output kept), unless a handler is set."""
    if not _in_main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextmanager
def signals_deferred(target: Path):
    """Hold Ctrl-C and SIGTERM back while the new export is swapped in; if one came, say it is in place.

    Raised in the middle of the swap, they could leave neither export whole, or report an
    interrupt after the new one was already in place.
    """
    if not _in_main_thread():
        yield
        return
    caught = []
    before = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    if caught:
        raise ExportInterrupted(f"{target} was written in full before it stopped")


def _pause(point: str) -> None:
    """Test hook: with CHUNKTUI_EXPORT_PAUSE="<point>:<folder>", create <folder>/paused at `point` and wait
    (up to a minute) for <folder>/go, so a test can kill the process at that exact step."""
    where = os.environ.get(PAUSE_ENV, "")
    if not where.startswith(point + ":"):
        return
    folder = Path(where[len(point) + 1 :])
    (folder / "paused").touch()
    deadline = time.monotonic() + 60
    while not (folder / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def _manifest_differs(manifest: dict, cs, chunk_files: list[str]) -> str | None:
    """The first way the manifest about to be written disagrees with the chunks written, or None."""
    entries = manifest["chunks"]
    if len(entries) != len(chunk_files):
        return f"{MANIFEST_NAME} lists {len(entries)} chunks but {len(chunk_files)} were written"
    for entry, chunk in zip(entries, cs.chunks):
        if entry["id"] != chunk.id or entry["sha256"] != chunk.sha256:
            return f"{MANIFEST_NAME} does not list {chunk.id} as written"
    return None


def _write_and_check(folder: Path, fmt: str, chunk_files: list[str], manifest: dict, chunks) -> str | None:
    """Write manifest.json, then check every file against what was written; the first mismatch, or None.

    Files of a writer that hashed its bytes as it wrote them (`Written`), the manifest's too, are hashed
    on disk again and compared; the others are read back and parsed (`verify_export`). Either way the
    chunk texts on disk are tied to the manifest's digests: a text file's bytes are its chunk's
    sha256, chunks.json and chunks.jsonl are parsed from the bytes read back and each text compared
    with its chunk's (`TEXTS_DIFFER`: the texts the manifest's digests were made from), and an
    extracted text's source.md must hash to the manifest's `text_sha256`.
    """
    digests = dict(getattr(chunk_files, "sha256", {}))
    with HashedFile(folder / MANIFEST_NAME, digests) as fh:
        fh.write(_json_bytes(manifest, indent=True))
    # source.md is the text itself, so its bytes' sha256 is the manifest's text_sha256
    checked = {MANIFEST_NAME: digests[MANIFEST_NAME], **_extracted_digest(manifest)}
    if not isinstance(chunk_files, Written):
        return _disk_differs(folder, checked) or verify_export(folder, fmt, chunk_files)
    missing = next((name for name in chunk_files if name not in digests), None)
    if missing is not None:
        return f"{missing} holds a chunk but was not written"
    if fmt == "text":  # each file is its chunk's text: the bytes written are the manifest's sha256
        for entry, name in zip(manifest["chunks"], chunk_files):
            if digests[name] != entry["sha256"]:
                return f"{entry['id']} in {name} does not match its sha256"
    differ = TEXTS_DIFFER.get(fmt)
    parsed: dict[str, Callable[[bytes], str | None]] = (
        {name: partial(differ, entries=manifest["chunks"], chunks=chunks, name=name) for name in set(chunk_files)}
        if differ
        else {}
    )
    return _disk_differs(folder, {**digests, **checked}, parsed)


def _extracted_digest(manifest: dict) -> dict[str, str]:
    """{source.md: its text's sha256} for an export of extracted text (PDF, HTML, DOCX), else {}."""
    extraction = manifest.get("extraction") or {}
    return {EXTRACTED_TEXT_NAME: extraction["text_sha256"]} if extraction.get("file") == EXTRACTED_TEXT_NAME else {}


def _disk_differs(
    folder: Path, digests: dict[str, str], parsed: dict[str, Callable[[bytes], str | None]] | None = None
) -> str | None:
    """The first file whose bytes on disk are not the bytes written (by their sha256), or whose texts
    `parsed[name](data)` finds unlike the chunks'; None when every file is as written."""
    for name, digest in digests.items():
        check = (parsed or {}).get(name)
        try:
            if check is not None:  # read whole: parsed from the bytes that were hashed
                data = (folder / name).read_bytes()
                sha = hashlib.sha256(data)
            else:
                sha = hashlib.sha256()
                with open(folder / name, "rb") as fh:
                    while block := fh.read(1 << 20):
                        sha.update(block)
        except OSError as exc:
            return f"{name} cannot be read back ({exc.strerror or exc})"
        if sha.hexdigest() != digest:
            return f"{name} on disk is not what was written (its sha256 differs)"
        problem = check(data) if check is not None else None
        if problem:
            return problem
    return None


def _jsonl_texts_differ(data: bytes, entries: list[dict], chunks, name: str) -> str | None:
    """The first chunk of chunks.jsonl (its bytes `data`) whose `text` is not what the chunk embeds
    (its embed_text, which the manifest's `embed_sha256` is the digest of), or that is missing or out
    of order; None when all match. Compared as strings, not hashed again: 12 ms for the 6 MB corpus's
    3,877 lines, against 19 ms with a sha256 of each. JSON strings escape line breaks, so a line is a
    row; each is parsed in place (a memoryview)."""
    view, start = memoryview(data), 0
    try:
        for n, (entry, chunk) in enumerate(zip(entries, chunks), 1):
            end = data.find(b"\n", start)
            if end < 0:
                return f"{name} holds {n - 1} chunks but {MANIFEST_NAME} lists {len(entries)}"
            row = orjson.loads(view[start:end])
            start = end + 1
            if row["id"] != entry["id"]:
                return f"{entry['id']} is missing from {name} (line {n} is {row['id']})"
            if row["text"] != chunk.embed_text:
                return f"{entry['id']} in {name} does not match its sha256"
    except (ValueError, KeyError, TypeError) as exc:
        return f"{name} cannot be read back ({exc})"
    if start != len(data):
        return f"{name} holds more chunks than the {len(entries)} {MANIFEST_NAME} lists"
    return None


def _json_texts_differ(data: bytes, entries: list[dict], chunks, name: str) -> str | None:
    """The first chunk of chunks.json (its bytes `data`) whose `content` is not the chunk's text or
    whose `embed_text` not what it embeds (the texts of the manifest's `sha256` and `embed_sha256`),
    or that is missing or out of order; None when all match."""
    try:
        stored = orjson.loads(data)["chunks"]
        for i, (row, entry, chunk) in enumerate(zip(stored, entries, chunks)):
            if row["id"] != entry["id"]:
                return f"{entry['id']} is missing from {name} (chunk {i + 1} is {row['id']})"
            if row["content"] != chunk.text or row["embed_text"] != chunk.embed_text:
                return f"{entry['id']} in {name} does not match its sha256"
        if len(stored) != len(entries):
            return f"{name} holds {len(stored)} chunks but {MANIFEST_NAME} lists {len(entries)}"
    except (ValueError, KeyError, TypeError) as exc:
        return f"{name} cannot be read back ({exc})"
    return None


# The written formats that hold the chunk texts in one file, and how that file's bytes are checked
# against the chunks the manifest was made from (parsed: a check that only hashes the bytes as
# written would accept a writer that serialized a text wrongly).
TEXTS_DIFFER: dict[str, Callable[..., str | None]] = {"jsonl": _jsonl_texts_differ, "json": _json_texts_differ}


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
        # JSONL's text is what the chunk embeds
        if (
            hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            != entry["embed_sha256" if fmt == "jsonl" else "sha256"]
        ):
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
        from .yamlio import read_yaml

        return {c["id"]: c["text"] for c in read_yaml(path)["chunks"]}
    if fmt == "text":
        with open(path, encoding="utf-8", newline="") as fh:
            return {None: fh.read()}
    if fmt in READ_BACKS:
        return READ_BACKS[fmt](path)
    path.stat()  # must exist
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _json_bytes(data, indent: bool = False) -> bytes:
    """`data` as UTF-8 JSON by orjson (several times json's speed; indented as json's indent=2,
    compact on one line without spaces otherwise), ending in a line feed."""
    return orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0))


@register_writer("text")
def write_text(cs, folder: Path) -> list[str]:
    """One file per chunk, `chunk-0001.txt`, holding exactly the chunk's text (CRLF kept)."""
    names = Written()
    for c in cs.chunks:
        name = f"{c.id}.txt"
        with HashedFile(folder / name, names.sha256) as fh:
            fh.write(c.text.encode("utf-8"))
        names.append(name)
    return names


@register_writer("json")
def write_json(cs, folder: Path) -> list[str]:
    """`chunks.json`: the run's settings and every chunk's fields with its content embedded."""
    doc = cs.document
    chunks = [
        {**chunk_record(c), "context_text": c.context_text, "content": c.text, "embed_text": c.embed_text}
        for c in cs.chunks
    ]
    written = Written(["chunks.json"] * len(cs.chunks))
    with HashedFile(folder / "chunks.json", written.sha256) as fh:
        fh.write(
            _json_bytes(
                {
                    "source": display_path(doc.path) if doc.path else None,
                    "source_sha256": doc.sha256,
                    "strategy": cs.strategy,
                    "params": to_plain(cs.params),
                    "tokenizer": cs.tokenizer,
                    "context_header": cs.context_header,
                    "chunks": chunks,
                },
                indent=True,
            )
        )
    return written


@register_writer("yaml")
def write_yaml(cs, folder: Path) -> list[str]:
    """`chunks.yaml`, the store format the app and `chunktui inspect` reload. Its module (and the
    YAML one's patterns) is imported here: every command line that chunks imports this module
    before its document is read, 4 ms of it for the one format."""
    from .store import STORE_NAME, save_chunkset

    save_chunkset(cs, folder / STORE_NAME)
    return [STORE_NAME] * len(cs.chunks)


@register_writer("jsonl")
def write_jsonl(cs, folder: Path) -> list[str]:
    """`chunks.jsonl`: one `{"id", "text", "metadata"}` a line, the shape vector stores ingest.
    `text` is what to embed (the chunk's embed_text); the metadata places the raw span."""
    source = display_path(cs.document.path) if cs.document.path else None
    written = Written(["chunks.jsonl"] * len(cs.chunks))
    with HashedFile(folder / "chunks.jsonl", written.sha256) as fh:
        for c in cs.chunks:
            line = {"id": c.id, "text": c.embed_text}
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
                "embed_tokens": c.embed_tokens,
                "context_header": cs.context_header,
                "tokenizer": cs.tokenizer,
                "sha256": c.sha256,
                "boundary": c.boundary_type,
                "boundary_label": c.boundary_label,
                "label": c.label,
            }
            fh.write(_json_bytes(line))
    return written
