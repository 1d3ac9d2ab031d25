"""Output checks, so that no contender wins by doing less or by misplacing chunks."""

from __future__ import annotations

from chunktui.engine.core.tokens import get_encoding

from .contenders import TOKENIZER, Mode


def chunk_size(text: str, unit: str) -> int:
    if unit == "tokens":
        return len(get_encoding(TOKENIZER).encode_ordinary(text))
    if unit == "lines":
        return text.count("\n") + (0 if text.endswith("\n") else 1)
    return len(text)


def size_limit(mode: Mode) -> int:
    # `lines` chunks carry `overlap` lines on both sides of their core
    return mode.size + 2 * mode.overlap if mode.unit == "lines" else mode.size


def check(text: str, chunks: list, mode: Mode) -> dict:
    """Chunk count, largest chunk against the limit, and whether the offsets are true.

    Offsets are wrong when text[start:start+len] is not the chunk (no round trip),
    when a chunk starts before its predecessor (repeated text found at the wrong
    occurrence), when non-blank source falls between chunks (text lost or a chunk
    misplaced), or, without overlap, when chunks overlap.
    """
    sizes = [chunk_size(c, mode.unit) for _, c in chunks]
    limit = size_limit(mode)
    result = {
        "chunks": len(chunks),
        "max_size": max(sizes, default=0),
        "over_limit": sum(1 for s in sizes if s > limit),
        "limit": limit,
        "offsets": all(start is not None for start, _ in chunks),
    }
    if not result["offsets"]:
        return result
    bad_round_trip = out_of_order = lost_gaps = overlapping = 0
    covered = 0
    prev_start, prev_end = -1, 0
    for start, chunk in chunks:
        end = start + len(chunk)
        if text[start:end] != chunk:
            bad_round_trip += 1
        if start < prev_start:
            out_of_order += 1
        elif start > prev_end and text[prev_end:start].strip():
            lost_gaps += 1
        if start < prev_end and not mode.overlap:
            overlapping += 1
        covered += max(0, end - max(start, prev_end))
        prev_start, prev_end = start, max(prev_end, end)
    result.update(
        bad_round_trip=bad_round_trip,
        out_of_order=out_of_order,
        lost_gaps=lost_gaps,
        overlapping=overlapping,
        coverage=covered / len(text) if text else 1.0,
    )
    return result


def offsets_ok(result: dict) -> bool | None:
    """True/False when the contender gives offsets, None when it gives none."""
    if not result.get("offsets"):
        return None
    return not (result["bad_round_trip"] or result["out_of_order"] or result["lost_gaps"] or result["overlapping"])
