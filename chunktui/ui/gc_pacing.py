"""Garbage collection paced by the app and the command line, the only places chunktui touches the
collector (the library leaves the host's alone): the app runs none while a result is computed and
drawn and a full pass when idle (GCPacer); the command line runs none while a file is chunked
and written (`paused`).

CPython's automatic collector started 40-150 ms passes at whatever moment an allocation count
crossed its threshold: in the middle of drawing a result, or in the chunking or quality thread
while it held the GIL, so the screen froze while a 10 MB file re-chunked. Reference counting
still frees almost everything at once; only objects in reference cycles wait for `collect_if_due`,
which the app calls when nothing is running.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager

DUE_AFTER = 10_000  # net new container objects since the last pass before an idle pass is worth it
QUIET_SECONDS = 1.0  # no chunking or assessment for this long: the user has stopped stepping


class GCPacer:
    def __init__(self) -> None:
        self._was_enabled = False
        self._frozen: set[str] = set()
        self._active_at = time.monotonic()

    def start(self) -> None:
        self._was_enabled = gc.isenabled()
        gc.disable()

    def stop(self) -> None:
        """Give the interpreter its collector back, with nothing left frozen (tests run many apps)."""
        self.unfreeze()
        if self._was_enabled:
            gc.enable()

    def note_activity(self) -> None:
        """A chunking or an assessment started or ended: a pass now could land in the next one."""
        self._active_at = time.monotonic()

    def collect_if_due(self) -> None:
        """A full pass (30-45 ms at 10 MB) once enough garbage may have built up and the app has been quiet."""
        if gc.get_count()[0] > DUE_AFTER and time.monotonic() - self._active_at >= QUIET_SECONDS:
            gc.collect()

    def freeze(self, what: str) -> None:
        """Exempt what is alive now from the cyclic GC, once per `what` per document: after its first
        chunking and its first quality assessment, the document, its line index, scans and structure
        and the widgets live on, and every pass would walk each item of their lists (150 ms at 10 MB;
        30-45 ms without them). Objects freed by reference count are still freed; freezing after
        every result would keep each result's cyclic garbage forever."""
        if what not in self._frozen:
            self._frozen.add(what)
            gc.freeze()

    def unfreeze(self) -> None:
        """Another document: what was frozen for the last one can be collected again."""
        if self._frozen:
            self._frozen.clear()
            gc.unfreeze()


@contextmanager
def paused():
    """No automatic collection inside, the collector as it was after: for the command line, which
    owns its process. A run makes tens of thousands of chunks, spans and metadata that all stay
    reachable until it returns, so collections during it find nothing, yet pass over the growing
    heap again and again (markdown 512 on 10 MB: 239 ms with the collector on, 156 ms off)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
