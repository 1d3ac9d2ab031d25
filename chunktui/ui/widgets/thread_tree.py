"""The email thread tree in the detail pane: threads, and under each its chunks as the engine nests them.

Built from the chunks' thread metadata alone (via `thread_outline`), so it works for
the email strategy and for a reloaded chunks.yaml. Every thread gets one line; the
selected chunk's thread is opened, its windows in branch order with forks one level
deeper and marked ⑂, the selected chunk marked ▶.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from rich.text import Text
from rich.tree import Tree

from chunktui.engine import Chunk, ChunkSet
from chunktui.engine.readers.mail import thread_outline
from .chunk_detail import on_click, register_detail_panel

MAX_THREADS = 60  # thread lines drawn around the selected one; the rest are counted


@dataclass(eq=False)
class Thread:
    thread_id: str
    subject: str
    rows: list[tuple[int, Chunk]] = field(default_factory=list)  # (depth, chunk) in tree order

    @property
    def participants(self) -> set[str]:
        return {p for _, c in self.rows for p in c.metadata.get("participants") or ()}

    @property
    def date_range(self) -> tuple[str | None, str | None]:
        starts = [c.metadata["date_start"] for _, c in self.rows if c.metadata.get("date_start")]
        ends = [c.metadata["date_end"] for _, c in self.rows if c.metadata.get("date_end")]
        return (min(starts, key=_sort_key) if starts else None, max(ends, key=_sort_key) if ends else None)


def build_threads(cs: ChunkSet) -> list[Thread]:
    """Threads in order of first appearance, each with its chunks as (depth, chunk) from `thread_outline`."""
    threads: dict[str, Thread] = {}
    for depth, chunk in thread_outline(cs.chunks):
        tid = str(chunk.metadata.get("thread_id") or chunk.metadata["chunk_id"])
        thread = threads.setdefault(tid, Thread(tid, str(chunk.metadata.get("subject") or "(no subject)")))
        thread.rows.append((depth, chunk))
    return list(threads.values())


def _sort_key(value: str):
    try:
        return datetime.fromisoformat(value).timestamp()
    except (TypeError, ValueError):
        return float("inf")


def date_range(start: str | None, end: str | None) -> str:
    """'2025-01-06 09:12 → 11:47': the end without what it shares with the start (the pane is narrow)."""
    first_text, last_text = start or end, end or start  # the one given stands for both
    if not first_text or not last_text:
        return "no dates"
    try:
        a, b = datetime.fromisoformat(first_text), datetime.fromisoformat(last_text)
    except ValueError:
        return f"{start or '?'} → {end or '?'}"
    first = a.strftime("%Y-%m-%d %H:%M")
    if a == b:
        return first
    same = "%H:%M" if a.date() == b.date() else "%m-%d %H:%M" if a.year == b.year else "%Y-%m-%d %H:%M"
    return f"{first} → {b.strftime(same)}"


def _people(n: int) -> str:
    return f"{n} participant{'s' if n != 1 else ''}"


def _chunk_label(chunk: Chunk, here: bool, thread: Thread) -> Text:
    meta = chunk.metadata
    text = Text("▶ " if here else "  ", style="bold" if here else "")
    text.append(chunk.id, style=on_click(f"select_chunk({chunk.index})", "bold reverse" if here else "bold"))
    text.append(f"  {meta.get('subject') or '(no subject)'}", style="bold" if here else "")
    count = meta.get("email_count")
    text.append(f"  {count} email{'s' if count != 1 else ''}" if count else "", style="dim")
    text.append(f" · {_people(len(meta.get('participants') or ()))}", style="dim")
    text.append(f" · {date_range(meta.get('date_start'), meta.get('date_end'))}", style="dim")
    if meta.get("fork_of"):
        holder = next((c.id for _, c in thread.rows if meta["fork_of"] in (c.metadata.get("message_ids") or ())), None)
        text.append(f"  ⑂ fork of {holder}" if holder else f"  ⑂ fork at {meta['fork_of']}", style="magenta")
    return text


def _thread_label(thread: Thread, open_: bool) -> Text:
    text = Text("▾ " if open_ else "▸ ", style="cyan")
    text.append(thread.subject, style="bold cyan")
    forks = sum(1 for _, c in thread.rows if c.metadata.get("fork_of"))
    n = len(thread.rows)
    text.append(f"  {n} chunk{'s' if n != 1 else ''}", style="dim")
    if forks:
        text.append(f", {forks} in forks", style="magenta")
    text.append(f" · {_people(len(thread.participants))} · {date_range(*thread.date_range)}", style="dim")
    return text


_cache: tuple = (None, [], {})  # (chunkset, its threads, chunk index -> thread), replaced whole by a worker


def thread_index(cs: ChunkSet) -> tuple[list[Thread], dict[int, int]]:
    """`cs`'s threads and where each chunk's thread is among them: a pass over every chunk, made
    once per chunk set in the chunking's worker (`prepare_panels`), not at a selection on the event
    loop. None of them for chunks without thread metadata."""
    global _cache
    shown, threads, where = _cache
    if shown is not cs:
        threads = build_threads(cs) if any("thread_id" in c.metadata for c in cs.chunks) else []
        where = {c.index: i for i, t in enumerate(threads) for _, c in t.rows}
        _cache = (cs, threads, where)
    return threads, where


def thread_panel(chunk: Chunk, cs: ChunkSet):
    """The thread tree with `chunk`'s thread open, or None when the chunks carry no thread metadata."""
    if "chunk_id" not in chunk.metadata or "thread_id" not in chunk.metadata:
        return None
    threads, where = thread_index(cs)
    mine = where.get(chunk.index, 0)
    lo = max(0, min(mine - MAX_THREADS // 2, len(threads) - MAX_THREADS))
    shown = threads[lo : lo + MAX_THREADS]
    root = Tree(
        Text(f"{len(threads)} thread{'s' if len(threads) != 1 else ''} (▶ this chunk, ⑂ forked branch)", style="dim"),
        guide_style="dim",
    )
    if lo:
        root.add(Text(f"… {lo} earlier threads", style="dim"))
    for n, thread in enumerate(shown, start=lo):
        node = root.add(_thread_label(thread, n == mine))
        if n != mine:
            continue
        parents = [node]  # parents[d]: where a chunk at depth d hangs (a fork under the window it forks from)
        for depth, c in thread.rows:
            branch = parents[min(depth, len(parents) - 1)].add(_chunk_label(c, c is chunk, thread))
            del parents[depth + 1 :]
            parents.append(branch)
    rest = len(threads) - lo - len(shown)
    if rest > 0:
        root.add(Text(f"… {rest} later threads", style="dim"))
    return root


register_detail_panel("Thread tree", thread_panel, thread_index)
