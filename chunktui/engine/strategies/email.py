"""`email`: threads rebuilt from the reply graph, cut into overlapping sliding windows.

From cgft's EmailChunker. Each thread is split into branches: the main branch
follows the earliest reply at every message; a later reply to an earlier message
starts a fork. A fork's windows hold only its own messages and name the chunk
holding the message it forks from as their parent, so the shared prefix is never
duplicated (compacted). Windows hold at most `max_emails_per_chunk` messages and
`max_chars` characters, both of rendered text and of the file's text they span, and
repeat the last `overlap_emails` messages of the window before them; a single message
over `max_chars` is a window of its own, flagged `oversized`. Replies to a message the
input does not hold are siblings under a placeholder for it: the thread (`thread_id`,
`root_missing`) has one branch per reply, the first its main branch, each other a fork of
the missing message (`fork_of`) with no parent chunk, as no chunk holds that message.

Offsets: a chunk's context_text is its window (headers and bodies, quotes folded
with `fold_quotes`); its span is the window's messages in the file when they are
contiguous there, else its new (non-overlap) messages when those are, else the
longest contiguous run of its new messages. A new message left outside every span
that way is a declared gap naming the chunk that carries it; metadata
`message_spans` lists the (start, end) of every message in the window. Attachments
are not chunk text: a span ends where its last message's first attachment begins,
each attachment is a gap with the reason "attachment" and is listed in the metadata
(`attachments`: filename, content type, decoded size, range). Transport headers
(Received, DKIM-Signature, ARC-*, ...) that a body quotes, as bounces do, are left out
of the context_text.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import replace
from itertools import accumulate

from . import Order, Param, Proposal, Strategy, register
from ..readers.mail import build_threads, missing_header_warnings, normalise_subject, parse_messages
from ..core.model import Span, chunk_id, one_line

_SEP = "\n\n"
_QUOTE = re.compile(r"^[ \t]*>")
_ATTRIBUTION = re.compile(r"^On .{4,200} wrote:\s*$")
# trace, authentication and relay fields: how the message travelled, nothing a reader asks about
_TRANSPORT = re.compile(
    r"(?:received|x-received|return-path|delivered-to|received-spf|authentication-results"
    r"|x-original-authentication-results|arc-[\w-]+|dkim-signature|x-google-dkim-signature"
    r"|domainkey-signature|x-gm-message-state|x-google-smtp-source|x-ms-exchange-[\w-]+"
    r"|x-forefront-[\w-]+|x-microsoft-antispam[\w-]*|x-spam-[\w-]+|x-virus-[\w-]+"
    r"|x-originating-ip):",
    re.I,
)
_FIELD = re.compile(r"[\x21-\x39\x3b-\x7e]+:")


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


def drop_transport_headers(body: str) -> str:
    """The body without the transport fields of the header blocks it quotes (a bounce's returned
    headers, a forwarded message's). Only a paragraph of two or more header fields and nothing
    else is one; prose that happens to start with "Received:" is left alone."""
    paragraphs = body.split("\n\n")
    out = []
    for para in paragraphs:
        lines = para.split("\n")
        fields = sum(1 for ln in lines if _FIELD.match(ln))
        if fields < 2 or not all(_FIELD.match(ln) or ln[:1] in (" ", "\t") for ln in lines):
            out.append(para)
            continue
        kept, dropping = [], False
        for ln in lines:
            if ln[:1] not in (" ", "\t"):  # a field starts; its folded lines go with it
                dropping = bool(_TRANSPORT.match(ln))
            if not dropping:
                kept.append(ln)
        if kept:
            out.append("\n".join(kept))
    return "\n\n".join(out)


def render(m, fold: bool) -> str:
    if not (m.sender or m.recipients or m.date or m.subject or m.attachments):
        return _body_text(m, fold)  # nothing to name: no empty "From:" and "Subject:" lines to embed
    head = [f"From: {m.sender}"]
    if m.recipients:
        head.append(f"To: {', '.join(m.recipients)}")
    if m.date:
        head.append(f"Date: {m.date.isoformat()}")
    head.append(f"Subject: {m.subject}")
    if m.attachments:
        head.append(
            "Attachments: "
            + ", ".join(f"{a.filename or '(no name)'} ({a.content_type}, {a.size:,} bytes)" for a in m.attachments)
        )
    return "\n".join(head) + "\n\n" + _body_text(m, fold)


def _body_text(m, fold: bool) -> str:
    body = drop_transport_headers(m.body)
    body = fold_quotes(body) if fold else body
    return body.strip("\n")


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
    """Maximal runs of messages adjacent in the file; an attachment ends a run (it is no chunk's text)."""
    runs: list[list] = []
    for m in sorted(msgs, key=lambda m: m.index):
        if runs and runs[-1][-1].index == m.index - 1 and not runs[-1][-1].attachments:
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
    if any(m.has_headers for m in messages):
        warnings = missing_header_warnings(doc, messages)
    else:  # a body with no header block, such as a plain-text digest part (CPython's msg_19): its text is still mail
        messages = [
            replace(m, body=doc.text[m.start : m.end]) for m in messages
        ]  # a "Note:" line is body, not a header
        warnings = [f"{doc.path or doc.name}: no mail header block: read as the body of one message"]
    roots = build_threads(messages)
    max_emails, max_chars, overlap = params["max_emails_per_chunk"], params["max_chars"], params["overlap_emails"]
    fold = params["fold_quotes"]
    drafts = []  # one dict per window, linked before ids are known
    new_in: dict[int, dict] = {}  # id() of a message -> the window where it is new
    for root in roots:
        ctx.check()
        subject = root.subject or "(no subject)"
        for seg, fork in branches(root):
            seg = [m for m in seg if not m.placeholder]  # a missing first message: its replies are the thread
            rendered = [render(m, fold) for m in seg]
            sizes = [max(len(r), m.core_end - m.start) for r, m in zip(rendered, seg)]
            prev = None
            for start, first_new, end in windows(sizes, max_emails, max_chars, overlap):
                window, new = seg[start:end], seg[first_new:end]
                text = _SEP.join(rendered[start:end])
                run_, kind = _span_of(window, new)
                d = {
                    "window": window,
                    "new": new,
                    "text": text,
                    "span": (run_[0].start, run_[-1].core_end),
                    "span_kind": kind,
                    "root": root,
                    "subject": subject,
                    "prev": prev,
                    "fork": fork,
                    "children": [],
                    "parent": None,
                    "covered": {m.index for m in run_},
                }
                if prev is not None:
                    prev["children"].append(d)
                    d["parent"] = prev
                drafts.append(d)
                for m in new:
                    new_in[id(m)] = d
                prev = d
    for d in drafts:  # a fork's first window hangs under the window holding its fork point, if any holds it
        if d["fork"] is not None and d["prev"] is None and not d["fork"].placeholder:
            parent = new_in[id(d["fork"])]
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
            "thread_id": d["root"].message_id,
            "chunk_id": d["id"],
            "parent_chunk_id": d["parent"]["id"] if d["parent"] else None,
            "child_chunk_ids": [c["id"] for c in d["children"]],
            "subject": d["subject"],
            "participants": participants,
            "date_start": min(dates).isoformat() if dates else None,
            "date_end": max(dates).isoformat() if dates else None,
            "message_ids": [m.message_id for m in window],
            "new_message_ids": [m.message_id for m in d["new"]],
            "message_spans": [[m.start, m.end] for m in window],
            "email_count": len(window),
            "span_kind": d["span_kind"],
            "branch": "fork" if d["fork"] is not None else "main",
        }
        if d["fork"] is not None:
            meta["fork_of"] = d["fork"].message_id
        by_subject = [m.message_id for m in window if m.threaded_by == "subject"]
        if by_subject:
            meta["threaded_by_subject"] = by_subject
        if d["root"].placeholder:
            meta["root_missing"] = True
        attachments = [{"message_id": m.message_id, **a.describe()} for m in window for a in m.attachments]
        if attachments:
            meta["attachments"] = attachments
        if max(len(d["text"]), d["span"][1] - d["span"][0]) > max_chars:  # only a window of one message can be
            meta["oversized"] = True
        first = d["new"][0]
        label = one_line(f"{normalise_subject(d['subject']) or d['subject']} · {first.sender.split(' <')[0]}")
        spans.append(Span(d["span"][0], d["span"][1], "message", label, meta, context_text=d["text"]))
        for m in d["new"]:
            if m.index not in d["covered"]:
                gaps += _message_gaps(m, f"email: in the context_text of {d['id']} (not contiguous in the file)")
            elif m.attachments:
                gaps += _message_gaps(m)
    notes = [f"email: {_n(len(messages), 'message')} in {_n(len(roots), 'thread')}, {_n(len(drafts), 'window')}"]
    forks = sum(1 for d in drafts if d["fork"] is not None and d["prev"] is None and d["parent"] is not None)
    if forks:
        notes.append(
            f"email: {_n(forks, 'forked branch')} share their thread's earlier chunks"
            if forks > 1
            else "email: 1 forked branch shares its thread's earlier chunks"
        )
    missing = sum(1 for r in roots if r.placeholder)
    if missing:
        notes.append(
            f"email: {_n(missing, 'thread')} whose first message is not in the input: "
            "its replies are siblings under a placeholder"
        )
    return Proposal(spans, gaps=gaps, notes=notes, warnings=warnings)


def _message_gaps(m, uncovered: str | None = None) -> list[tuple[int, int, str]]:
    """The gaps of message `m`: each attachment with the reason "attachment", the MIME text after
    the first one as the rest of the message, and its text before it, when no chunk spans the
    message, with the reason `uncovered`."""
    rest = f"email: rest of {m.message_id} after its attachment"
    out = [(m.start, m.core_end, uncovered)] if uncovered and m.core_end > m.start else []
    pos = m.core_end
    for a in m.attachments:
        if a.start > pos:
            out.append((pos, a.start, rest))
        if a.end > a.start:
            out.append((a.start, a.end, "attachment"))
        pos = max(pos, a.end)
    if m.end > pos:
        out.append((pos, m.end, rest))
    return out


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 'es' if noun.endswith('ch') else 's'}"


register(
    Strategy(
        name="email",
        summary="Email threads (mbox, .eml, folder of .eml) in overlapping windows along the reply graph, forks compacted.",
        params=(
            Param("max_emails_per_chunk", "int", 10, "Most messages in one window.", min=1, max=100_000, step=1),
            Param(
                "max_chars",
                "int",
                1600,
                "Most characters per window, rendered and in the file; a longer message is "
                "its own window, flagged oversized.",
                min=1,
                max=100_000_000,
                step=256,
            ),
            Param(
                "overlap_emails",
                "int",
                2,
                "Messages repeated from the previous window of the same branch.",
                min=0,
                max=100_000,
                step=1,
            ),
            Param("fold_quotes", "bool", False, "Fold quoted reply text ('> ' lines) in each window's text."),
        ),
        run=run,
        kinds=("email",),
        constraints=(Order("overlap_emails", "max_emails_per_chunk"),),
        size_param="max_chars",
        overlap_param="overlap_emails",
    )
)
