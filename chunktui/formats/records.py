"""Plain records shared by every writer, so manifest, chunks.json, JSONL and chunks.yaml agree."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def to_plain(value):
    """`value` as JSON/YAML-safe builtins: mappings become dicts, tuples and sets lists."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(to_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def display_path(path, base=None, raw: bool = False) -> str:
    """`path` relative to `base` (default: the working folder) when it lies below it, else absolute.

    Relative paths keep manifests portable with the project; paths outside it stay
    absolute because a chain of `..` would break as soon as the output moves. Bytes of a name
    that are not UTF-8 are shown as `\\xNN` (`printable_path`), unless `raw`.
    """
    p = Path(path).absolute()
    root = Path(base if base is not None else os.getcwd()).absolute()
    try:
        shown = p.relative_to(root).as_posix() or "."
    except ValueError:
        shown = p.as_posix()
    return shown if raw else printable_path(shown)


def printable_path(path: str) -> str:
    """`path` with each byte of a file name that is not UTF-8 shown as `\\xNN` (it cannot be written as text)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")


def folder_display(path, base=None) -> str:
    """A folder as `display_path` shows it, with the trailing slash users expect."""
    shown = display_path(path, base)
    return shown if shown.endswith("/") else shown + "/"


def gap_record(gap) -> dict:
    """The fields every format stores for a gap: its place and its reason."""
    return {
        "start_char": gap.start,
        "end_char": gap.end,
        "start_line": gap.start_line,
        "end_line": gap.end_line,
        "reason": gap.reason,
    }


def chunk_record(chunk) -> dict:
    """The fields every format stores for a chunk (no text): place, overlap, boundary, size, hash."""
    return {
        "id": chunk.id,
        "start_line": chunk.start_line,
        "end_line": chunk.end_line,
        "overlap_start": chunk.overlap_prev_lines,
        "overlap_end": chunk.overlap_next_lines,
        "boundary_type": chunk.boundary_type,
        "boundary_label": chunk.boundary_label,
        "start_char": chunk.start,
        "end_char": chunk.end,
        "overlap_start_chars": chunk.overlap_prev_chars,
        "overlap_end_chars": chunk.overlap_next_chars,
        "start_byte": chunk.start_byte,
        "end_byte": chunk.end_byte,
        "chars": chunk.chars,
        "tokens": chunk.tokens,
        "embed_tokens": chunk.embed_tokens,
        "sha256": chunk.sha256,
        "metadata": to_plain(chunk.metadata),
    }


def size_params(chunkset) -> tuple:
    """(chunk_size, overlap) as the strategy names them, or None where it has no such knob."""
    from chunktui.engine import UnknownStrategyError, get_strategy

    try:
        strat = get_strategy(chunkset.strategy)
        size_key, overlap_key = strat.size_param, strat.overlap_param
    except UnknownStrategyError:
        size_key, overlap_key = "size", "overlap"
    params = chunkset.params or {}
    return params.get(size_key) if size_key else None, params.get(overlap_key) if overlap_key else None
