"""`chunktui chunk FOLDER --executor dask [--scheduler ADDRESS]`: the --jobs run on a Dask cluster.

Each task is `parallel.chunk_one`, what a local worker process runs for a file (read, chunk,
export with the atomic, verified writers), so the outputs are the local run's; the parent writes
index.json as the local run does. On Ctrl-C the tasks not started are dropped and the files
being written are finished and recorded, as in a local run. The workers write the outputs themselves, so on a real cluster
they must see the sources and the output folder at the same paths (a shared filesystem) and run
in the same working folder (manifests name sources relative to it).

Dask rather than Ray: dask and distributed are pure Python wheels (a few MB) and a LocalCluster
starts in about 3 s; Ray is a ~70 MB native wheel with its own object store and a slower start.

A worker process that dies on a file (a crash, the nanny's memory limit) is restarted by Dask;
the files lost with it are chunked again one at a time, so the file that kills its worker again
is reported alone and the others are written, as the local run does.
"""

from __future__ import annotations

import signal
import time
import uuid

from chunktui.engine.core.errors import ChunktuiError

CONNECT_TIMEOUT = "3s"
DIED = "its worker process died on it (killed, out of memory or a crash)"


def run_dask(todo, how: tuple, budget: int, workers: int, scheduler: str | None, finish, console) -> bool:
    """Every job of `todo` chunked on the cluster at `scheduler` (default: a LocalCluster of
    `workers` processes), each result given to `finish`; whether Ctrl-C stopped the run."""
    from distributed import Event

    if not todo:
        return False
    jobs = dict(todo)
    # Dask computes again a file whose result died with its worker, though that worker may have
    # written it: it replaces that export of this run (run_parallel's up-front check refused any other)
    with _client(scheduler, workers) as client:
        stop = Event(f"chunktui-stop-{uuid.uuid4().hex}", client=client)
        try:
            lost = _round(client, list(jobs), jobs, how, budget, finish, console, stop)
            for key in lost:  # alone now: the file that kills its worker again is the one to blame
                if _round(client, [key], jobs, how, budget, finish, console, stop):
                    console.print(f"chunktui: error: {key}: {DIED}", markup=False, highlight=False, soft_wrap=True)
                    finish(key, {"error": f"{key}: {DIED}"})
        except KeyboardInterrupt:
            return True
    return False


def _client(scheduler: str | None, workers: int):
    """A Client of the cluster at `scheduler`, or of a new LocalCluster whose scheduler gives up
    on a task after its worker died with it once (the retry alone is ours)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is None:
        # the worker processes start with Ctrl-C ignored (kept across exec): it goes to this
        # process, which decides, and not to the workers, which would die with tracebacks
        default = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
                )
        finally:
            signal.signal(signal.SIGINT, default)
        return _Owned(Client(cluster), cluster)
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ChunktuiError(f"--scheduler: cannot reach {scheduler}: {problem}") from None


class _Owned:
    """A Client and the LocalCluster made for it, closed together."""

    def __init__(self, client, cluster):
        self.client, self.cluster = client, cluster

    def __enter__(self):
        return self.client

    def __exit__(self, *exc):
        self.client.close()
        self.cluster.close()


def _round(client, keys, jobs, how, budget, finish, console, stop) -> list[str]:
    """`keys` submitted at once; each result to `finish`; the keys lost with a dead worker, in order.
    On Ctrl-C the files being written are finished and recorded (see _stop)."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    from chunktui.cli.parallel import failed, settle

    futures = {
        client.submit(
            chunk_unless_stopped,
            stop.name,
            jobs[k].source,
            jobs[k].out_dir,
            *how,
            True,
            budget,
            key=f"chunktui-{k}-{time.monotonic_ns()}",
            pure=False,
            retries=0,
        ): k
        for k in keys
    }
    pending, lost = set(futures), []

    def collect(future) -> None:
        key = futures[future]
        # both fetch from the cluster: a Ctrl-C meanwhile leaves the future pending, for _stop
        failure = future.exception() if future.status == "error" else None
        entry = None if failure is not None else future.result()
        pending.discard(future)
        if isinstance(failure, KilledWorker):
            lost.append(key)
        elif failure is not None:  # a bug in the worker (not a ChunktuiError): this file fails, the others go on
            settle([(key, failed(key, failure))], finish, console)
        elif entry is not None:  # None: the task started after Ctrl-C and wrote nothing
            settle([(key, entry)], finish, console)

    try:
        for future in as_completed(futures):
            collect(future)
    except KeyboardInterrupt:
        for future in _stop(client, pending, stop):
            collect(future)
        raise
    order = {k: i for i, k in enumerate(keys)}
    return sorted(lost, key=order.__getitem__)


def _stop(client, pending: set, stop) -> list:
    """Ctrl-C: the tasks not started are dropped and the ones started are waited for, so that a
    file a worker finishes after the signal is recorded (and --resume skips it). Returns those.

    `stop` is set first: a task that starts after it returns at once without writing. Then the
    scheduler is asked which tasks it handed to a worker, then which it has the result of: a
    task finishing between the two questions is in the first answer, one starting between them
    returns at once, so every other task can be cancelled."""
    from distributed import wait

    stop.set()
    started = {key for keys in client.processing().values() for key in keys}
    started |= {key for key, holders in client.who_has(list(pending)).items() if holders}
    keep = [f for f in pending if f.key in started or f.done()]
    client.cancel([f for f in pending if f not in keep])
    wait(keep)
    return keep


def chunk_unless_stopped(stop_name: str, *args):
    """On a worker: parallel.chunk_one, or None when Ctrl-C stopped the run before this task started."""
    from distributed import Event

    from chunktui.cli.parallel import chunk_one

    if Event(stop_name).is_set():
        return None
    return chunk_one(*args)
