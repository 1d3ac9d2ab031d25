"""A replaced result's big lists freed off the event loop, a slice at a time.

Freeing a chunking is one C call per list: dropping the last reference to a 100 MB log's list of
117,000 chunks (their texts, metadata and lines) frees over a million objects at once, 100+ ms
during which nothing else runs, and it happened on the event loop, wherever the screen let go of
the old chunking last (the histogram's flags, the table). The app hands the lists of a result it
replaces to one thread here, which waits until nothing else refers to a list (the screen, a
worker, the ChunkSet that holds it) and then empties it a slice at a time, so the interpreter
can switch threads between slices.
"""

from __future__ import annotations

import queue
import sys
import threading
import time

STEP = 2048  # items freed per C call: about 2 ms of a 100 MB log's chunks
POLL_S = 0.1  # how often lists still referred to elsewhere are looked at again
GIVE_UP_S = 300.0  # a list still held elsewhere after this is left to whoever holds it

_incoming: queue.SimpleQueue = queue.SimpleQueue()
_started = threading.Lock()
_thread: threading.Thread | None = None
# The references to a list this module holds while it looks at one: `_pending`'s entry, the loop's
# name for it, and getrefcount's argument. More means someone else still refers to it.
_OWN_REFERENCES = 3


def release(*lists: list) -> None:
    """Free each of `lists` in slices once nothing but this module refers to it."""
    global _thread
    for items in lists:
        _incoming.put(items)
    with _started:
        if _thread is None:
            _thread = threading.Thread(target=_run, name="chunktui-release", daemon=True)
            _thread.start()


_pending: list[tuple[list, float]] = []


def _run() -> None:
    while True:
        try:
            _pending.append((_incoming.get(timeout=POLL_S if _pending else None), time.monotonic()))
            continue  # take everything handed over before looking at any
        except queue.Empty:
            pass
        now, kept = time.monotonic(), []
        for entry in _pending:
            items = entry[0]
            if sys.getrefcount(items) <= _OWN_REFERENCES:
                while items:
                    del items[-STEP:]
            elif now - entry[1] < GIVE_UP_S:
                kept.append(entry)
            del items
        _pending[:] = kept
