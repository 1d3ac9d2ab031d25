"""Timing helpers: medians of repetitions, with one garbage collection before each run unless the
run is a millisecond call, where the collection (and the cold caches it leaves) is what gets measured."""

from __future__ import annotations

import gc
import statistics
import time


def timed(fn, collect: bool = True) -> tuple[float, object]:
    if collect:
        gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def cpu_timed(fn, collect: bool = True) -> tuple[float, object]:
    """`timed` in this process's CPU time (`time.process_time`): what the machine's other load
    changes least; work done in other processes (a sweep's workers) is not counted."""
    if collect:
        gc.collect()
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def median_time(fn, repeat: int) -> float:
    return statistics.median(timed(fn)[0] for _ in range(repeat))
