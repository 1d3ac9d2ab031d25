"""`chunktui chunk PATH... --jobs N`: files chunked and exported in N processes, with a corpus index.

Each worker runs what the one-process run does for a file (read, chunk, export with the same
atomic, verified writers), so each file's output is the same. Files go to the workers in tasks
of up to MAX_BATCH, and only a small entry a file comes back, so the parent, which shares the
cores with the workers, does little a file. The parent keeps one progress bar (files, chunks,
files a second) and writes `index.json` in the folder holding every file's output: the settings
and, for each source, its sha256, output folder, params, chunk count or error. `--resume` skips a
source whose index entry has the same settings, the params they give today and the same sha256,
and whose manifest is still there.
Workers ignore Ctrl-C: the parent cancels the tasks not started and tells the workers to stop
after the file each is writing, records what they finished and says what is missing, so no
output is half-written. A worker that dies (killed, out of memory) costs only the file it was
on, if that file kills it again.
"""

from __future__ import annotations

import errno
import hashlib
import json
import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING

import click

from chunktui import __version__
from chunktui.formats.discover import INDEX_NAME
from chunktui.cli.commands import EXIT_BAD_INPUT, EXIT_OK, fail_line, progress_bar, warn_line
from chunktui.engine.core.errors import ChunktuiError
from chunktui.engine.core.cpus import cores

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event as EventType

EXIT_INTERRUPTED = 130
How = tuple[
    str, dict, str, str, dict | None, str
]  # strategy, params, tokenizer, format, reader options, context header
MAX_BATCH = 16  # files a task at most
# Without --jobs, a run whose work is estimated below what starting the pool costs is chunked in
# this process. Measured on the 2-core machine at a load of 6 (python files of the standard library,
# in this process against a pool of 2, median of 3): the pool's start is 0.8 to 1.5 s of wall time,
# a file costs about 5 ms plus 1.8 ms a KB in one process.
POOL_START = 1.0  # seconds
FILE_COST = 0.005  # seconds a file
BYTE_COST = 1.8e-6  # seconds a byte


def run_parallel(
    jobs,
    strategy: str,
    params: dict,
    tokenizer: str,
    fmt: str,
    force: bool,
    budget: int,
    workers: int | None,
    resume: bool,
    reader_options: dict | None = None,
    context_header: str = "none",
    executor: str = "local",
    scheduler: str | None = None,
) -> int:
    """Chunk and export `jobs` in `workers` processes (default: one a core) or on a Dask cluster
    (`executor` "dask", at `scheduler` or a LocalCluster); index.json beside their outputs."""
    from chunktui.formats.export import check_target, recover_interrupted
    from chunktui.formats.records import display_path, to_plain

    root = index_root([j.out_dir for j in jobs])
    settings = {
        "strategy": strategy,
        "params": to_plain(params),
        "tokenizer": tokenizer,
        "format": fmt,
        "context_header": context_header,
    }
    earlier = read_index(root / INDEX_NAME, settings) if resume else {}
    files, todo = {}, []
    for job in jobs:
        key = display_path(job.source)
        entry = earlier.get(key)
        if entry is None and resume:
            entry = manifest_entry(job, settings, budget)
        if entry is not None and unchanged(entry, job):
            files[key] = entry
            continue
        recover_interrupted(job.out_dir, notify=warn_line)
        # --resume replaces the earlier export of a source it chunks again (still only a chunktui export)
        check_target(job.out_dir, force or resume, job.source)
        todo.append((key, job))
    skipped = len(jobs) - len(todo)
    in_process = workers is None and executor == "local" and not pool_pays([job for _, job in todo], cores())
    workers = workers or cores()
    started = time.perf_counter()
    done, interrupted = run_pool(
        todo,
        files,
        (strategy, params, tokenizer, fmt, reader_options, context_header),
        force or resume,
        budget,
        0 if in_process else workers,
        executor,
        scheduler,
    )
    duplicates = count_duplicates(files)
    indexed = save_index(root, settings, files)
    dataset = corpus_dataset(root, files) if fmt == "parquet" and not interrupted else None
    seconds = time.perf_counter() - started
    where = (
        f" in {seconds:.1f} s on the Dask cluster at {scheduler}"
        if scheduler
        else ""
        if in_process
        else f" in {seconds:.1f} s with {workers} process{'es' * (workers != 1)}"
    )
    return summary(files, todo, done, skipped, interrupted, root, budget, where, dataset, duplicates, indexed)


def count_duplicates(files: dict) -> int:
    """The chunks of this run with the sha256 of an earlier one (in any file), each entry's chunk
    sha256s taken out (they are not kept in index.json)."""
    seen: set[str] = set()
    total = 0
    for entry in files.values():
        shas = entry.pop("sha256s", ())
        total += len(shas)
        seen.update(shas)
    return total - len(seen)


def pool_pays(jobs, workers: int) -> bool:
    """Whether `workers` processes would finish `jobs` sooner than this process alone, their start
    included: the work they take off this process (all but a worker's share) against POOL_START."""
    if workers < 2:
        return False
    work = sum(FILE_COST + BYTE_COST * source_size(job.source) for job in jobs)
    return work * (1 - 1 / workers) > POOL_START


def source_size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def corpus_dataset(root: Path, files: dict) -> str | bool:
    """`corpus.parquet` beside index.json: every written file's chunks.parquet in one dataset, as
    the summary names it; False (after one error line) when it cannot be made."""
    from chunktui.formats.parquet import CORPUS_NAME, PARQUET_NAME, write_corpus
    from chunktui.formats.records import folder_display

    parts = [Path(entry["output"]) / PARQUET_NAME for _, entry in sorted(files.items()) if "error" not in entry]
    try:
        rows = write_corpus(parts, root)
    except ChunktuiError as exc:
        click.echo(f"chunktui: error: {exc}", err=True)
        return False
    return f"{folder_display(root)}{CORPUS_NAME} ({rows:,} chunks)"


def index_root(out_dirs) -> Path:
    """The folder holding every output folder (a lone file's: the folder above its output)."""
    if len(out_dirs) == 1:
        return Path(out_dirs[0]).absolute().parent
    return Path(os.path.commonpath([str(Path(d).absolute()) for d in out_dirs]))


def read_index(path: Path, settings: dict) -> dict:
    """The files of an earlier run's index.json made with `settings` and chunked with the params
    they give today; none when there is none, it is unreadable or its settings differ.

    `settings` hold the flags as given: the same flags may mean other values in another version
    (`--unit tokens` alone was a size of 1000 tokens, now 200), so an entry is trusted only when it
    records the params its strategy ran with and they are what that strategy makes of the flags
    now. An entry without them (an index.json written before they were recorded) is left out, and
    its file is checked against its manifest instead (manifest_entry)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["settings"] != settings:
            return {}
        effective = EffectiveParams(settings["params"])
        return {key: entry for key, entry in data["files"].items() if effective.made(entry)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


class EffectiveParams:
    """What each strategy makes of the params given (validated, defaults filled in), as a manifest
    records them: output made with other values is not the output a run with these flags makes."""

    def __init__(self, given: dict):
        self.given = given
        self.known: dict[str, dict | None] = {}

    def of(self, strategy: str) -> dict | None:
        """`strategy`'s params from the flags; None when it refuses them (output to make again)."""
        if strategy not in self.known:
            from chunktui.engine import get_strategy
            from chunktui.formats.records import to_plain

            try:
                self.known[strategy] = to_plain(get_strategy(strategy).validate(self.given))
            except ChunktuiError:
                self.known[strategy] = None
        return self.known[strategy]

    def made(self, entry: dict) -> bool:
        """Whether `entry`'s output was made with these params (an error entry is kept as it is)."""
        if "error" in entry:
            return True
        params = entry.get("params")
        return params is not None and params == self.of(entry["strategy"])


def manifest_entry(job, settings: dict, budget: int) -> dict | None:
    """The index entry of a source whose output folder's manifest.json was written with `settings`
    (a run without index.json, or one that did not record this source); None when it was not.
    The manifest holds the params the strategy ran with: `settings`' own are completed by that
    strategy to compare, and `auto` must have been asked for exactly when it picked the strategy."""
    from chunktui.engine import get_strategy
    from chunktui.formats.records import display_path

    try:
        manifest = json.loads((Path(job.out_dir) / "manifest.json").read_text(encoding="utf-8"))
        if any(manifest.get(k) != settings[k] for k in ("tokenizer", "format", "context_header")):
            return None
        strat = get_strategy(manifest["strategy"])
        picked = any(note.startswith("auto: picked ") for note in manifest.get("notes", []))
        asked = get_strategy(settings["strategy"]).name
        if (asked == "auto") != picked or asked not in ("auto", strat.name):
            return None
        entry = {"strategy": strat.name, "params": manifest["params"]}
        if not EffectiveParams(settings["params"]).made(entry):
            return None
        return {
            "source_sha256": manifest["source_sha256"],
            "output": display_path(job.out_dir),
            **entry,
            "chunks": len(manifest["chunks"]),
            "lines": manifest["source_lines"],
            "over_budget": sum(c["embed_tokens"] > budget for c in manifest["chunks"]),
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ChunktuiError):
        return None


def unchanged(entry: dict, job) -> bool:
    """The earlier run wrote this source as it is now, and its manifest is still there."""
    if "error" in entry or not (Path(job.out_dir) / "manifest.json").is_file():
        return False
    try:
        return file_sha256(job.source) == entry.get("source_sha256")
    except OSError:
        return False


def file_sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_index(root: Path, settings: dict, files: dict) -> bool:
    """index.json in `root`, or one error line saying why it could not be written (a read-only
    or full disk): the outputs already written stay, and --resume finds them by their manifests."""
    from chunktui.formats.export import write_problem
    from chunktui.formats.records import display_path

    try:
        write_index(root / INDEX_NAME, settings, files)
    except OSError as exc:
        fail_line(
            f"{display_path(root)}: cannot write {INDEX_NAME} ({write_problem(exc)}); the index was not written, "
            "the files' outputs written are kept"
        )
        return False
    return True


def write_index(path: Path, settings: dict, files: dict) -> None:
    """index.json, replaced whole: written aside, read back, then renamed with Ctrl-C and SIGTERM
    held back (a second Ctrl-C as a stopped run writes it); whatever stops it, an OSError or an
    interrupt, leaves nothing aside and the earlier index.json as it was."""
    from chunktui.formats.export import signals_deferred

    # chunktui_version marks the folder as chunktui's output, which folder scans leave alone
    index = {"chunktui_version": __version__, "settings": settings, "files": dict(sorted(files.items()))}
    data = (json.dumps(index, ensure_ascii=False, indent=2) + "\n").encode()
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # when every file failed, no export made it
        with open(tmp, "wb") as fh:
            fh.write(data)
        with open(tmp, "rb") as fh:
            if fh.read() != data:
                raise OSError(errno.EIO, f"{tmp.name} read back differs from what was written")
        with signals_deferred(path):
            os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # a read-only folder: nothing was made there
            pass
        raise


def run_pool(
    todo,
    files: dict,
    how: How,
    force: bool,
    budget: int,
    workers: int,
    executor: str = "local",
    scheduler: str | None = None,
) -> tuple[int, bool]:
    """Run every job of `todo` (`how`: strategy, params, tokenizer, format, reader options, context
    header), recording each result in `files` as it arrives. Returns how many finished and whether Ctrl-C stopped the run.

    `workers` 0 runs them in this process, one after the other, as a worker would.

    A worker that dies (killed, out of memory, a crash in a library) breaks the whole pool: the
    files of the batches that were in flight are chunked again a file a task, and the files in
    flight when that pool breaks too one at a time, so the one that kills its worker again is
    reported alone; the rest go to a new pool."""
    if not todo:
        return 0, False
    jobs = dict(todo)
    progress = progress_bar("{task.fields[chunks]:,} chunks · {task.fields[rate]} files/s")
    tally = {"done": 0, "chunks": 0}
    started = time.perf_counter()

    def finish(key: str, entry: dict) -> None:
        files[key] = entry
        tally["done"] += 1
        tally["chunks"] += entry.get("chunks", 0)
        rate = tally["done"] / max(time.perf_counter() - started, 1e-9)
        progress.update(task, completed=tally["done"], chunks=tally["chunks"], rate=f"{rate:.1f}")

    def run_round(keys: list[str], size: int, batch: int, again: bool) -> list[str]:
        # a file lost with a dead worker may have been written by a live one before the pool broke:
        # chunked again, it replaces that export of this run (the up-front check refused any other)
        return pool_round(
            [(k, jobs[k]) for k in keys], size, batch, how, force or again, budget, finish, progress.console
        )

    queue = list(jobs)
    suspects: list[str] = []  # the files of tasks a dead worker may have held: chunked again a file a task
    alone: list[str] = []  # the files in flight when that pool broke too: each in a pool of its own
    interrupted = again = False
    with progress:
        task = progress.add_task("chunking", total=len(todo), chunks=0, rate="0.0")
        if executor == "dask":
            from chunktui.cli.distributed import run_dask

            interrupted = run_dask(todo, how, budget, workers, scheduler, finish, progress.console)
            return tally["done"], interrupted
        try:
            if workers == 0:
                for key in queue:
                    job = jobs[key]
                    settle(chunk_task([(key, job.source, job.out_dir)], how, force, budget), finish, progress.console)
                queue = []
            while queue or suspects or alone:
                if alone:
                    key = alone.pop(0)
                    if run_round([key], 1, 1, again=True):
                        entry = {"error": f"{key}: its worker process died on it (killed, out of memory or a crash)"}
                        progress.console.print(
                            f"chunktui: error: {entry['error']}", markup=False, highlight=False, soft_wrap=True
                        )
                        finish(key, entry)
                    continue
                if suspects:
                    keys, suspects, batch = suspects, [], 1
                else:
                    keys, queue, batch = queue, [], batch_size(len(queue), workers)
                size = min(workers, -(-len(keys) // batch))  # no more processes than tasks
                broken = run_round(keys, size, batch, again)
                if not broken:
                    continue
                again = True
                # a pool hands out tasks in order, at most size + 1 at a time: their files were in flight
                held = (size + 1) * batch
                if batch == 1:
                    alone = broken[:held]
                else:
                    suspects = broken[:held]
                queue = broken[held:] + queue
                progress.console.print(
                    f"chunktui: warning: a worker process died; the {len(broken[:held])} files "
                    "it may have held are chunked again" + " one at a time" * (batch == 1),
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
        except KeyboardInterrupt:
            interrupted = True
    return tally["done"], interrupted


def batch_size(files: int, workers: int) -> int:
    """Files a task: enough that the pool's hand-offs (pickling, pipes, a future) cost the parent
    little a file, few enough that each worker gets about eight tasks, so they end together."""
    return max(1, min(MAX_BATCH, files // (workers * 8)))


def pool_round(todo, size: int, batch: int, how: How, force: bool, budget: int, finish, console) -> list[str]:
    """One pool of `size` processes over `todo`, `batch` files a task: each file's entry to
    `finish` as its task returns; the keys of the files lost when a worker died, in the order
    they were given. On Ctrl-C the tasks not started are cancelled, each worker stops after the
    file it is writing, and the files finished are recorded first."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["chunktui.engine", "chunktui.formats.export"])
    stop = context.Event()
    pool = ProcessPoolExecutor(max_workers=size, mp_context=context, initializer=_start_worker, initargs=(stop,))
    tasks = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    pending = {
        pool.submit(chunk_task, [(key, job.source, job.out_dir) for key, job in task], how, force, budget): [
            key for key, _ in task
        ]
        for task in tasks
    }
    lost: list[str] = []

    def collect(future) -> None:
        failure = future.exception()
        keys = pending.pop(future)
        if isinstance(failure, BrokenProcessPool):
            lost.extend(keys)
            return
        settle(future.result() if failure is None else [(k, failed(k, failure)) for k in keys], finish, console)

    try:
        for future in as_completed(list(pending)):
            collect(future)
    except KeyboardInterrupt:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)  # the files being written are finished
        for future in [f for f in pending if f.done() and not f.cancelled()]:
            collect(future)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    order = {key: i for i, (key, _) in enumerate(todo)}
    return sorted(lost, key=order.__getitem__)


_stop: EventType | None = None  # in a worker: set by the parent on Ctrl-C


def _start_worker(stop: EventType) -> None:
    """Ctrl-C goes to the parent, which decides and sets `stop`; a worker finishes the file it
    writes, then leaves the rest of its task."""
    global _stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _stop = stop


def chunk_task(task, how: How, force: bool, budget: int) -> list[tuple[str, dict]]:
    """In a worker: each file of `task` (key, source, output folder) as chunk_one does it; the
    keys and index entries of the files done, which are all of them unless Ctrl-C stopped it."""
    done = []
    for key, source, out_dir in task:
        if _stop is not None and _stop.is_set():
            break
        try:
            entry = chunk_one(source, out_dir, *how, force, budget)
        except Exception as exc:  # a bug in the worker (not a ChunktuiError): this file fails, the others go on
            entry = failed(key, exc)
        done.append((key, entry))
    return done


def failed(key: str, exc: BaseException) -> dict:
    """The index entry of a file whose worker raised what is not a ChunktuiError (a bug): it fails alone."""
    return {"error": f"{key}: worker failed ({type(exc).__name__}: {exc})"}


def settle(results: list[tuple[str, dict]], finish, console) -> None:
    """Each finished file's index entry to `finish`, then its warnings and error printed above the
    progress bar: recorded first, so that a Ctrl-C while printing loses no file that was written."""
    lines = []
    for _, entry in results:
        lines += [f"chunktui: warning: {line}" for line in entry.pop("warnings", [])]
        if "error" in entry:
            lines.append(f"chunktui: error: {entry['error']}")
    for key, entry in results:
        finish(key, entry)
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def chunk_one(source, out_dir, strategy, params, tokenizer, fmt, reader_options, context_header, force, budget) -> dict:
    """In a worker: one file read, chunked and exported as the one-process run does it."""
    from chunktui.engine import chunk_document
    from chunktui.formats.discover import load_source
    from chunktui.formats.export import export_chunkset
    from chunktui.formats.records import display_path, to_plain

    try:
        doc = load_source(source, reader_options)
        cs = chunk_document(doc, strategy, params, tokenizer=tokenizer, context_header=context_header)
        export_chunkset(cs, out_dir, fmt, force)
    except ChunktuiError as exc:
        return {"error": str(exc)}
    return {
        "source_sha256": doc.sha256,
        "output": display_path(out_dir),
        "strategy": cs.strategy,
        "params": to_plain(cs.params),  # what --resume compares with what the flags give then
        "chunks": len(cs.chunks),
        "lines": doc.line_count,
        "over_budget": sum(c.embed_tokens > budget for c in cs.chunks),
        "warnings": list(cs.warnings),
        "sha256s": [c.sha256 for c in cs.chunks],
    }


def summary(
    files: dict,
    todo,
    done: int,
    skipped: int,
    interrupted: bool,
    root: Path,
    budget: int,
    where: str,
    dataset: str | bool | None = None,
    duplicates: int = 0,
    indexed: bool = True,
) -> int:
    """The run's last lines and exit code: 2 when a file, index.json or the corpus dataset failed,
    130 when Ctrl-C stopped it."""
    from chunktui.cli.plan import plural
    from chunktui.formats.records import folder_display

    ran = [files[key] for key, _ in todo if key in files]
    failed = sum("error" in e for e in ran)
    written = [e for e in ran if "error" not in e]
    over = sum(e["over_budget"] for e in written)
    if over:
        over_files = sum(e["over_budget"] > 0 for e in written)
        warn_line(
            f"{plural(over, 'chunk')} in {plural(over_files, 'file')} over the {budget:,}-token budget (see --budget)"
        )
    line = (
        f"Split {plural(len(written), 'file')} ({plural(sum(e['lines'] for e in written), 'line')}) into "
        f"{plural(sum(e['chunks'] for e in written), 'chunk')}{where}"
        f". Output: {folder_display(root)} (one folder per file, each with its manifest.json)"
    )
    if indexed:
        line += f". Index: {folder_display(root)}{INDEX_NAME}"
    if dataset:
        line += f". Dataset: {dataset}"
    if duplicates:
        line += f". Duplicates (same sha256 as an earlier chunk): {duplicates:,}"
    if skipped:
        line += f". Unchanged, skipped (--resume): {plural(skipped, 'file')}"
    if failed:
        line += f". Failed: {plural(failed, 'file')} (see above)"
    click.echo(line)
    if interrupted:
        missing = len(todo) - done
        click.echo(
            f"chunktui: interrupted: {plural(missing, 'file')} not chunked; run again with --resume to finish", err=True
        )
        return EXIT_INTERRUPTED
    return EXIT_BAD_INPUT if failed or dataset is False or not indexed else EXIT_OK
