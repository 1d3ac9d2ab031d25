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
