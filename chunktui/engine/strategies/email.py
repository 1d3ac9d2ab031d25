"""`email`: threads rebuilt from the reply graph, cut into overlapping sliding windows.

From cgft's EmailChunker. Each thread is split into branches: the main branch
follows the earliest reply at every message; a later reply to an earlier message
starts a fork. A fork's windows hold only its own messages and name the chunk
holding the message it forks from as their parent, so the shared prefix is never
duplicated (compacted). Windows hold at most `max_emails_per_chunk` messages and
`max_chars` characters of rendered text, and repeat the last `overlap_emails`
messages of the window before them.

Offsets: a chunk's context_text is its window (headers and bodies, quotes folded
with `fold_quotes`); its span is the window's messages in the file when they are
contiguous there, else its new (non-overlap) messages when those are, else the
longest contiguous run of its new messages. A new message left outside every span
that way is a declared gap naming the chunk that carries it; metadata
`message_spans` lists the (start, end) of every message in the window.
"""

from __future__ import annotations

import re
from collections import deque
from itertools import accumulate

from . import Order, Param, Proposal, Strategy, register
from ..errors import ChunkingError
from ..mail import build_threads, normalise_subject, parse_messages
from ..model import Span, chunk_id

_SEP = "\n\n"
_QUOTE = re.compile(r"^[ \t]*>")
_ATTRIBUTION = re.compile(r"^On .{4,200} wrote:\s*$")


def fold_quotes(body: str) -> str:
    """Replace each run of quoted lines (and the "On ... wrote:" line before it) by one marker line."""
    out: list[str] = []
    run = 0
    for line in body.split("\n"):
        if _QUOTE.match(line):
            if run == 0 and out and _ATTRIBUTION.match(out[-1]):
                out.pop()
                run = 1
            run += 1
            continue
        if run:
            out.append(f"> [{run} quoted line{'s' if run > 1 else ''} folded]")
            run = 0
        out.append(line)
    if run:
        out.append(f"> [{run} quoted line{'s' if run > 1 else ''} folded]")
    return "\n".join(out)


def render(m, fold: bool) -> str:
    head = [f"From: {m.sender}"]
    if m.recipients:
        head.append(f"To: {', '.join(m.recipients)}")
    if m.date:
        head.append(f"Date: {m.date.isoformat()}")
    head.append(f"Subject: {m.subject}")
    body = fold_quotes(m.body) if fold else m.body
    return "\n".join(head) + "\n\n" + body.strip("\n")


def branches(root):
    """(messages, fork point) per branch: the main line first, then each fork breadth-first."""
    out = []
    pending = deque([(root, None)])
    while pending:
        m, fork = pending.popleft()
        seg = []
        while m is not None:
            seg.append(m)
            pending.extend((k, m) for k in m.children[1:])
            m = m.children[0] if m.children else None
        out.append((seg, fork))
    return out


def windows(sizes: list[int], max_emails: int, max_chars: int, overlap: int):
    """(start, first_new, end) index triples: each window adds at least one new message."""
    out = []
    first_new, n = 0, len(sizes)

    total = list(accumulate(sizes, initial=0))  # a window's size in O(1), however wide it may be

    def fits(a, b):
        return b - a <= max_emails and total[b] - total[a] + len(_SEP) * (b - a - 1) <= max_chars

    while first_new < n:
        start = first_new
        while start > max(0, first_new - overlap) and fits(start - 1, first_new + 1):
            start -= 1
        end = first_new + 1
        while end < n and fits(start, end + 1):
            end += 1
        out.append((start, first_new, end))
        first_new = end
    return out


def _runs(msgs):
    """Maximal runs of messages adjacent in the file."""
    runs = []
    for m in sorted(msgs, key=lambda m: m.index):
        if runs and runs[-1][-1].index == m.index - 1:
            runs[-1].append(m)
        else:
            runs.append([m])
    return runs


def _span_of(window, new):
    whole = _runs(window)
    if len(whole) == 1:
        return whole[0], "window"
    runs = _runs(new)
    if len(runs) == 1:
        return runs[0], "new"
    best = max(runs, key=lambda r: (len(r), r[-1].index))
    return best, "new-run"


def run(doc, params, ctx) -> Proposal:
    messages = parse_messages(doc)
    if not messages:
        return Proposal([], gaps=[(0, len(doc.text), "blank")] if doc.text else [])
    if not any(m.has_headers for m in messages):
        raise ChunkingError(f"{doc.path or doc.name}: no mail headers found: not an mbox or .eml file")
    roots = build_threads(messages)
    max_emails, max_chars, overlap = params["max_emails_per_chunk"], params["max_chars"], params["overlap_emails"]
    fold = params["fold_quotes"]
    drafts = []  # one dict per window, linked before ids are known
    new_in: dict[int, dict] = {}  # message index -> the window where it is new
    for root in roots:
        ctx.check()
        subject = root.subject or "(no subject)"
        for seg, fork in branches(root):
            rendered = [render(m, fold) for m in seg]
            prev = None
            for start, first_new, end in windows([len(r) for r in rendered], max_emails, max_chars, overlap):
                window, new = seg[start:end], seg[first_new:end]
                text = _SEP.join(rendered[start:end])
                run_, kind = _span_of(window, new)
                d = {"window": window, "new": new, "text": text, "span": (run_[0].start, run_[-1].end),
                     "span_kind": kind, "root": root, "subject": subject, "prev": prev, "fork": fork,
                     "children": [], "parent": None, "covered": {m.index for m in run_}}
                if prev is not None:
                    prev["children"].append(d)
                    d["parent"] = prev
                drafts.append(d)
                for m in new:
                    new_in[m.index] = d
                prev = d
    for d in drafts:  # a fork's first window hangs under the window holding its fork point
        if d["fork"] is not None and d["prev"] is None:
            parent = new_in[d["fork"].index]
            d["parent"] = parent
            parent["children"].append(d)
    order = sorted(range(len(drafts)), key=lambda i: drafts[i]["span"])
    for rank, i in enumerate(order):
        drafts[i]["id"] = chunk_id(rank)
    spans, gaps = [], []
    for d in drafts:
        window, dates = d["window"], [m.date for m in d["window"] if m.date]
        participants = list(dict.fromkeys(p for m in window for p in m.participants))
        meta = {
            "thread_id": d["root"].message_id, "chunk_id": d["id"],
            "parent_chunk_id": d["parent"]["id"] if d["parent"] else None,
            "child_chunk_ids": [c["id"] for c in d["children"]],
            "subject": d["subject"], "participants": participants,
            "date_start": min(dates).isoformat() if dates else None,
            "date_end": max(dates).isoformat() if dates else None,
            "message_ids": [m.message_id for m in window],
            "new_message_ids": [m.message_id for m in d["new"]],
            "message_spans": [[m.start, m.end] for m in window],
            "email_count": len(window), "span_kind": d["span_kind"],
            "branch": "fork" if d["fork"] is not None else "main",
        }
        if d["fork"] is not None:
            meta["fork_of"] = d["fork"].message_id
        by_subject = [m.message_id for m in window if m.threaded_by == "subject"]
        if by_subject:
            meta["threaded_by_subject"] = by_subject
        if len(window) == 1 and len(d["text"]) > max_chars:
            meta["oversized"] = True
        first = d["new"][0]
        label = f"{normalise_subject(d['subject']) or d['subject']} · {first.sender.split(' <')[0]}"
        spans.append(Span(d["span"][0], d["span"][1], "message", label, meta, context_text=d["text"]))
        for m in d["new"]:
            if m.index not in d["covered"]:
                gaps.append((m.start, m.end, f"email: in the context_text of {d['id']} (not contiguous in the file)"))
    notes = [f"email: {_n(len(messages), 'message')} in {_n(len(roots), 'thread')}, {_n(len(drafts), 'window')}"]
    forks = sum(1 for d in drafts if d["fork"] is not None and d["prev"] is None)
    if forks:
        notes.append(f"email: {_n(forks, 'forked branch')} share their thread's earlier chunks"
                     if forks > 1 else "email: 1 forked branch shares its thread's earlier chunks")
    return Proposal(spans, gaps=gaps, notes=notes)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 'es' if noun.endswith('ch') else 's'}"


register(Strategy(
    name="email",
    summary="Email threads (mbox, .eml, folder of .eml) in overlapping windows along the reply graph, forks compacted.",
    params=(
        Param("max_emails_per_chunk", "int", 10, "Most messages in one window.", min=1, max=100_000, step=1),
        Param("max_chars", "int", 2048, "Most characters of rendered messages per window; a longer message is its "
              "own window.", min=1, max=100_000_000, step=256),
        Param("overlap_emails", "int", 2, "Messages repeated from the previous window of the same branch.", min=0,
              max=100_000, step=1),
        Param("fold_quotes", "bool", False, "Fold quoted reply text ('> ' lines) in each window's text."),
    ),
    run=run,
    kinds=("email",),
    constraints=(Order("overlap_emails", "max_emails_per_chunk"),),
    size_param="max_chars",
    overlap_param="overlap_emails",
))
