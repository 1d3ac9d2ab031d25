"""How many cores this process may use: the folder runs' process pool and the token index's encode
threads size themselves by it."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (its affinity), which a container or taskset may limit."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity on macOS and Windows
        return os.cpu_count() or 1


def free_cores() -> int:
    """Cores that work split across threads may count on: the calling thread's, and those the
    1-minute load average leaves free, rounded (all of them where the system keeps no load
    average). Work on a second thread pays only where a core is idle: on this project's 2-core
    machine with two other busy processes (load 3.5-4.3), a 6 MB document's whole chunking with its
    encode in two blocks took 0.35 s more CPU than in one, and longer in wall time too."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has no load average
        return cores()
    return max(1, min(cores(), 1 + int(cores() - load + 0.5)))
