"""The machine and package versions a benchmark ran with, for BENCHMARKS.md."""

from __future__ import annotations

import os
import platform
from importlib import metadata

PACKAGES = ("chunktui", "tiktoken", "tree-sitter", "tree-sitter-python", "langchain-text-splitters",
            "chonkie", "semchunk", "semantic-text-splitter")


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = "unknown"
    try:
        for line in open("/proc/meminfo", encoding="utf-8"):
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    try:
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": memory, "python": platform.python_version(),
            "platform": platform.platform(), "load_at_start": load}


def versions() -> dict:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
