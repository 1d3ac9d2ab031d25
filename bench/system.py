"""The machine and package versions a benchmark ran with, for BENCHMARKS.md."""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata
from pathlib import Path

APP_RESULTS = Path(__file__).with_name("app_results.json")

PACKAGES = (
    "chunktui",
    "tiktoken",
    "tree-sitter",
    "tree-sitter-python",
    "langchain-text-splitters",
    "chonkie",
    "semchunk",
    "semantic-text-splitter",
)


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
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_at_start": load,
    }


def versions() -> dict:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def store_app_results(section: str, label: str, value) -> None:
    """Put `value` under app_results.json[section][label], with this machine and Textual's version."""
    stored = json.loads(APP_RESULTS.read_text()) if APP_RESULTS.exists() else {}
    stored["machine"] = machine() | {"textual": metadata.version("textual")}
    stored.setdefault(section, {})[label] = value
    APP_RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
