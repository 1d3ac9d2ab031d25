"""Timing helpers: one garbage collection before each run, medians of repetitions."""

from __future__ import annotations

import gc
import statistics
import time


def timed(fn) -> tuple[float, object]:
    gc.collect()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def median_time(fn, repeat: int) -> float:
    return statistics.median(timed(fn)[0] for _ in range(repeat))
