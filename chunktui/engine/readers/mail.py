"""Email: messages of an mbox, an .eml or a folder of .eml files, with their offsets, and their threads.

Threads are rebuilt from Message-ID, In-Reply-To and References; a reply that
names no parent joins the latest earlier message with the same normalised subject
("Re: Printer" -> "printer"). Replies whose parent is not in the input (they name a
missing message, or share a reply subject with no original) are siblings under one
placeholder root for it, rather than a chain of one another. Each message keeps
the character range of its raw text in the document, "From " separator line
included, and the ranges of its attachments (binary or attached parts) in it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from .documents import Document, decode_bytes
from ..core.errors import DocumentError

if TYPE_CHECKING:
    from ..core.model import Chunk

FOLDER_SEPARATOR = "From chunktui-eml-folder "  # + relative path: one line before each file
_HEADER_LINE = re.compile(r"^[\x21-\x39\x3b-\x7e]+:")
_MSGID = re.compile(r"<[^<>\s]+>")
_BLANK_LINE = re.compile(r"\n\r?\n")
_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fw|fwd|aw|sv|vs|antw)\s*(?:\[\d+\])?\s*:\s*|\[[^\]]{1,40}\]\s*)+", re.I)


@dataclass(frozen=True)
class Attachment:
    """A part that is not text to read (an image, a PDF, an attached file), where it is in the document."""

    start: int  # its boundary line (with the line break before it), headers and encoded body
    end: int
    filename: str | None
    content_type: str
    size: int  # bytes once decoded

    def describe(self) -> dict:
        return {
            "filename": self.filename,
            "content_type": self.content_type,
            "size": self.size,
            "start": self.start,
            "end": self.end,
        }


@dataclass
class Message:
    index: int  # position in the file
    start: int
    end: int
    message_id: str
    in_reply_to: str | None
    references: list[str]
    subject: str
    sender: str
    recipients: list[str]
    date: datetime | None
    body: str
    source_file: str | None = None
    parent: Message | None = None
    children: list[Message] = field(default_factory=list)
    threaded_by: str = "root"  # in-reply-to | references | subject | missing-parent | root
    has_headers: bool = True  # any mail header at all: none in any message means the file is not mail
    missing: tuple[str, ...] = ()  # of From, To, Subject, Date: the ones this message lacks
    attachments: list[Attachment] = field(default_factory=list)  # in file order
    placeholder: bool = False  # the missing first message of a thread, in no file range

    @property
    def core_end(self) -> int:
        """Where the message's readable text ends in the file: at its first attachment, else its end."""
        return self.attachments[0].start if self.attachments else self.end

    @property
    def participants(self) -> list[str]:
        return [self.sender, *self.recipients] if self.sender else list(self.recipients)


def normalise_subject(subject: str) -> str:
    return " ".join(_REPLY_PREFIX.sub("", subject or "").lower().split())


def is_reply_subject(subject: str) -> bool:
    return bool(_REPLY_PREFIX.match(subject or ""))


def _from_lines(text: str):
    """Offsets of the lines (as doc.line_starts has them: after each "\\n") that begin with "From "."""
    if text.startswith("From "):
        yield 0
    pos = text.find("\nFrom ")
    while pos != -1:
        yield pos + 1
        pos = text.find("\nFrom ", pos + 1)


def _message_starts(doc: Document) -> list[tuple[int, str | None]]:
    """Offsets where messages begin, and the .eml file name for a folder document."""
    text = doc.text
    starts: list[tuple[int, str | None]] = []
    lines = doc.line_starts
    n = len(lines)
    for s in _from_lines(text):  # only "From " lines can open a message (the separator is one too)
        i = bisect_left(lines, s)
        e = lines[i + 1] if i + 1 < n else len(text)
        line = text[s:e]
        if line.startswith(FOLDER_SEPARATOR):
            starts.append((s, line[len(FOLDER_SEPARATOR) :].rstrip("\r\n")))
        elif i == 0 or not text[lines[i - 1] : s].strip():  # after a blank line (or first)
            nxt = text[e : lines[i + 2] if i + 2 < n else len(text)]
            if _HEADER_LINE.match(nxt):  # a body line "From here on..." is not followed by a header
                starts.append((s, None))
    if starts and not text[: starts[0][0]].strip():
        starts[0] = (0, starts[0][1])  # blank lines before the first message belong to it
    elif not starts or starts[0][0] != 0:
        starts.insert(0, (0, None))  # a single .eml, or text before the first separator
    return starts


def _addresses(msg, *names) -> list[str]:
    from email.utils import getaddresses  # the email package is imported only when mail is read

    values = [str(v) for n in names for v in (msg.get_all(n) or [])]
    out = []
    for name, addr in getaddresses(values):
        label = f"{name} <{addr}>" if name else addr
        if addr and label not in out:
            out.append(label)
    return out


def _body_part(msg):
    return msg.get_body(preferencelist=("plain", "html")) if msg.is_multipart() else msg


def _body(msg, mbox: bool) -> str:
    part = _body_part(msg)
    try:
        body = part.get_content() if part is not None else ""
    except (LookupError, ValueError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        body = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)
    body = body.replace("\r\n", "\n")
    if mbox:  # mboxo/mboxrd escaping: ">From " in a body is "From "
        body = re.sub(r"(?m)^>(>*From )", r"\1", body)
    return body


def _date(msg) -> datetime | None:
    from email.utils import parsedate_to_datetime

    try:
        value = msg.get("Date")
        return parsedate_to_datetime(str(value)) if value else None
    except (TypeError, ValueError, IndexError):
        return None


# a header block holding one of these (RFC 5322, its trace fields, or MIME's) is mail, however few it
# has: a MIME-only message (Content-Type, MIME-Version) or a part saved on its own is read, with a warning
_MAIL_HEADERS = (
    "From",
    "To",
    "Cc",
    "Bcc",
    "Sender",
    "Reply-To",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "Received",
    "Return-Path",
    "MIME-Version",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Content-Disposition",
)
_EXPECTED = ("From", "To", "Subject", "Date")  # what a reader of the thread needs; RFC 5322 requires From, Date


def _body_start(text: str, start: int, end: int) -> int:
    """Where the body of the entity text[start:end] begins: after the blank line closing its headers."""
    if text.startswith("\n", start) or text.startswith("\r\n", start):
        return text.index("\n", start) + 1  # no headers at all
    m = _BLANK_LINE.search(text, start, end)
    return m.end() if m else end


def _attachments(msg, text: str, start: int, end: int) -> list[Attachment]:
    """The attachments of the parsed message `msg`, whose raw text is text[start:end], in file order.

    An attachment is a part other than the body that is attached (Content-Disposition)
    or not text at all (image, application, audio, video). Parts are found between the
    boundary lines of each multipart; where they do not match what the parser read,
    that multipart's attachments are not located (its text stays in the chunk).
    """
    out: list[Attachment] = []
    _walk_parts(msg, _body_part(msg), text, start, end, out)
    return out


def _walk_parts(part, body, text: str, start: int, end: int, out: list[Attachment]) -> None:
    """Add the attachments below the multipart `part` (raw text text[start:end]) to `out`; `body` is
    the part read as the message's text, never an attachment."""
    boundary = part.get_boundary() if part.is_multipart() else None
    if not boundary or part.get_content_maintype() != "multipart":
        return
    delimiter = re.compile(r"^--" + re.escape(boundary) + r"(--)?[ \t]*\r?$", re.M)
    pieces, body_start, opening = [], None, 0  # (opening delimiter's line break, body start, end) per part
    for m in delimiter.finditer(text, _body_start(text, start, end), end):
        # the line break before a delimiter belongs to it (RFC 2046)
        line_break = m.start() - 1 - (text[m.start() - 2 : m.start() - 1] == "\r") if m.start() > start else m.start()
        if body_start is not None:
            pieces.append((opening, body_start, max(body_start, line_break)))
        if m.group(1):
            break
        body_start, opening = min(m.end() + 1, end), line_break
    subparts = part.get_payload()
    if not isinstance(subparts, list) or len(pieces) != len(subparts):
        return
    for (opening, a, b), sub in zip(pieces, subparts):
        if sub.get_content_maintype() == "multipart":
            _walk_parts(sub, body, text, a, b, out)
        elif sub is not body and (sub.is_attachment() or sub.get_content_maintype() not in ("text", "message")):
            try:
                size = len(sub.get_payload(decode=True) or b"")
            except (AssertionError, LookupError, ValueError):
                size = 0
            out.append(Attachment(opening, b, sub.get_filename(), sub.get_content_type(), size))


def parse_messages(doc: Document) -> list[Message]:
    """Every message of the document, in file order, with its raw character range."""
    from email import message_from_bytes, policy

    text = doc.text
    starts = _message_starts(doc)
    out: list[Message] = []
    for k, (start, source) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        raw = text[start:end]
        first_nl = raw.find("\n") + 1
        is_mbox = raw.startswith("From ")
        header_from = first_nl if is_mbox else 0
        if not raw[header_from:].strip():
            continue
        # parsed as bytes: for a str the email package mis-decodes 8-bit bodies
        bom = len(raw) - header_from - len(raw[header_from:].lstrip("\ufeff"))
        data = raw[header_from + bom :].encode("utf-8", "surrogateescape")
        msg = message_from_bytes(data, policy=policy.default)
        ids = _MSGID.findall(str(msg.get("Message-ID", "")))
        reply = _MSGID.findall(str(msg.get("In-Reply-To", "")))
        refs = _MSGID.findall(str(msg.get("References", "")))
        out.append(
            Message(
                index=len(out),
                start=start,
                end=end,
                message_id=ids[0].lower() if ids else f"<chunktui-{len(out) + 1}@{doc.name}>",
                in_reply_to=reply[0].lower() if reply else None,
                references=[r.lower() for r in refs],
                subject=str(msg.get("Subject", "")).strip(),
                sender=(_addresses(msg, "From") or [""])[0],
                recipients=_addresses(msg, "To", "Cc"),
                date=_date(msg),
                body=_body(msg, is_mbox and source is None),
                source_file=source,
                has_headers=any(h in msg for h in _MAIL_HEADERS),
                missing=tuple(h for h in _EXPECTED if h not in msg),
                attachments=_attachments(msg, text, start + header_from + bom, end),
            )
        )
    return out


def _sort_key(m: Message):
    return (m.date.timestamp() if m.date else float("inf"), m.index)


def build_threads(messages: list[Message]) -> list[Message]:
    """Link parents and children; return the thread roots ordered by date. Children are ordered by date.

    A reply whose parent is not in `messages` hangs under a placeholder root for its
    thread (the first message its References name, else its In-Reply-To; for a reply
    naming none, its subject), so replies to one missing message are siblings.
    """
    by_id: dict[str, Any] = {}
    for m in messages:
        by_id.setdefault(m.message_id, m)
    ordered = sorted(messages, key=_sort_key)
    missing_by_subject: dict[str, str] = {}  # a reply subject -> the missing message its replies name first
    for m in ordered:
        key = _missing_key(m, by_id)
        if key:
            missing_by_subject.setdefault(normalise_subject(m.subject), key)
    latest_by_subject: dict[str, Message] = {}
    placeholders: dict[str, Message] = {}
    for m in ordered:
        parent, how = _named_parent(m, by_id)
        subject = normalise_subject(m.subject)
        missing = _missing_key(m, by_id) if parent is None else None
        if missing:
            parent, how = _placeholder(placeholders, missing, m), "missing-parent"
        elif parent is None and is_reply_subject(m.subject):
            candidate = latest_by_subject.get(subject)
            root = _root_of(candidate) if candidate is not None else None
            if root is not None and not root.placeholder:
                parent, how = candidate, "subject"
            elif root is not None:  # the subject's first message is missing: a sibling of the replies to it
                parent, how = root, "subject"
            else:  # the first reply to a missing message
                key = missing_by_subject.get(subject, f"subject:{subject}")
                parent, how = _placeholder(placeholders, key, m), "missing-parent"
        if parent is not None and not _is_ancestor(m, parent):
            m.parent, m.threaded_by = parent, how
            parent.children.append(m)
        latest_by_subject[subject] = m
    roots = [m for m in messages if m.parent is None] + list(placeholders.values())
    for m in roots + messages:
        m.children.sort(key=_sort_key)
    return sorted(roots, key=_sort_key)


def _named_parent(m: Message, by_id: dict) -> tuple[Message | None, str]:
    """The parent `m` names and the input holds: its In-Reply-To, else the last of its References."""
    if m.in_reply_to in by_id and by_id[m.in_reply_to] is not m:
        return by_id[m.in_reply_to], "in-reply-to"
    for ref in reversed(m.references):
        if ref in by_id and by_id[ref] is not m:
            return by_id[ref], "references"
    return None, "root"


def _missing_key(m: Message, by_id: dict) -> str | None:
    """For a reply whose named parents are all missing, the message its thread hangs from: the first
    its References name (the thread's start), else its In-Reply-To; None for any other message."""
    if _named_parent(m, by_id)[0] is not None:
        return None
    key = m.references[0] if m.references else m.in_reply_to
    return key if key and key != m.message_id else None


def _placeholder(placeholders: dict[str, Message], key: str, first: Message) -> Message:
    """The placeholder root for `key`, made for its first reply `first` (whose date and place it takes)."""
    if key not in placeholders:
        message_id = key if key.startswith("<") else f"<chunktui-missing-{len(placeholders) + 1}>"
        placeholders[key] = Message(
            index=first.index,
            start=first.start,
            end=first.start,
            message_id=message_id,
            in_reply_to=None,
            references=[],
            subject=first.subject,
            sender="",
            recipients=[],
            date=first.date,
            body="",
            source_file=first.source_file,
            placeholder=True,
        )
    return placeholders[key]


def _root_of(m: Message) -> Message:
    seen = set()
    while m.parent is not None and id(m) not in seen:
        seen.add(id(m))
        m = m.parent
    return m


def _is_ancestor(m: Message, other: Message | None) -> bool:
    """True when `m` is `other` or one of its ancestors (linking would make a cycle)."""
    seen = set()
    while other is not None and id(other) not in seen:
        if other is m:
            return True
        seen.add(id(other))
        other = other.parent
    return False


def load_email_folder(path) -> Document:
    """One Document of every .eml file below `path` (sorted), each after a separator line naming it.

    The separator, `From chunktui-eml-folder <relative path>`, is an mbox-style line,
    so offsets, lines and gaps work as for an mbox, and each message knows its file.
    """
    root = Path(path)
    if not root.is_dir():
        raise DocumentError(root, "is not a folder")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() == ".eml")
    if not files:
        raise DocumentError(root, "no .eml files in this folder")
    parts, warnings = [], []
    for f in files:
        try:
            data = f.read_bytes()
        except OSError as exc:
            raise DocumentError(f, f"cannot read ({exc.strerror or exc})") from None
        text, _, warns = decode_bytes(data, str(f))
        warnings += warns
        text = text if text.endswith("\n") else text + "\n"
        parts.append(f"{FOLDER_SEPARATOR}{f.relative_to(root).as_posix()}\n{text}")
    return Document(text="".join(parts), path=str(root), kind="email", encoding="utf-8", warnings=warnings)


def is_email_folder(path) -> bool:
    """A folder whose files include .eml and nothing else a chunker would read (hidden files aside)."""
    root = Path(path)
    if not root.is_dir():
        return False
    files = [p for p in root.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts)]
    return bool(files) and all(p.suffix.lower() == ".eml" for p in files)


def thread_outline(chunks: Sequence[Chunk]) -> list[tuple[int, Chunk]]:
    """Email chunks in thread-tree order with their depth, for drawing the tree (app, inspect).

    Roots are chunks without a parent_chunk_id, in chunk order; children follow
    their parent, a fork's windows one level deeper than the window they fork from.
    """
    by_id = {c.metadata.get("chunk_id"): c for c in chunks if c.metadata.get("chunk_id")}
    out: list[tuple[int, Chunk]] = []
    seen: set[str] = set()

    def walk(chunk, depth: int) -> None:
        stack = [(chunk, depth)]
        while stack:
            c, d = stack.pop()
            cid = c.metadata["chunk_id"]
            if cid in seen:
                continue
            seen.add(cid)
            out.append((d, c))
            kids = [by_id[k] for k in c.metadata.get("child_chunk_ids", ()) if k in by_id]
            same = [
                k
                for k in kids
                if k.metadata.get("branch") == c.metadata.get("branch")
                and k.metadata.get("fork_of") == c.metadata.get("fork_of")
            ]
            forks = [k for k in kids if k not in same]
            # the branch continues at the same depth; forks go one level deeper, listed first
            stack.extend((k, d) for k in reversed(same))
            stack.extend((k, d + 1) for k in reversed(forks))

    for c in chunks:
        if c.metadata.get("chunk_id") and not c.metadata.get("parent_chunk_id"):
            walk(c, 0)
    return out


def missing_header_warnings(doc: Document, messages: list[Message]) -> list[str]:
    """What messages without a From or Date header (RFC 5322 requires both) lack, one warning per file
    and set of missing headers, naming the lines where those messages start."""
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for m in messages:
        if "From" in m.missing or "Date" in m.missing:
            where = f"{doc.path}/{m.source_file}" if m.source_file else (doc.path or doc.name)
            groups.setdefault((where, m.missing), []).append(doc.line_of(m.start))
    out = []
    for (where, missing), lines in groups.items():
        names = f"{', '.join(missing[:-1])} or {missing[-1]}" if len(missing) > 1 else missing[0]
        shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
        count = "1 message has" if len(lines) == 1 else f"{len(lines)} messages have"
        at = "" if where != (doc.path or doc.name) else f" (line{'s' if len(lines) > 1 else ''} {shown})"
        out.append(f"{where}: {count} no {names} header{at}: read as mail all the same")
    return out
