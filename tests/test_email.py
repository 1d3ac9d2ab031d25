"""`email`: threads from the reply graph, sliding windows, forks compacted, offsets exact."""

import email
import email.policy
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from chunktui.engine import Document, DocumentError, ParamError, chunk_document, load_document
from chunktui.engine.readers.mail import (
    build_threads,
    is_email_folder,
    load_email_folder,
    parse_messages,
    thread_outline,
)

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"
FOLDER = FIXTURES / "eml_folder"
CPYTHON = FIXTURES / "cpython_email"  # messages of CPython's Lib/test/test_email/data
BASE64_BLOCK = re.compile(r"(?:^[A-Za-z0-9+/=]{60,}\r?\n){3,}", re.M)


def check(cs, max_emails=10, max_chars=2048):
    """Invariants every email chunking keeps, whatever the input."""
    text = cs.document.text
    by_id = {c.id: c for c in cs.chunks}
    new = [m for c in cs.chunks for m in c.metadata["new_message_ids"]]
    assert len(new) == len(set(new))  # every message is new in exactly one window
    for c in cs.chunks:
        meta = c.metadata
        assert text[c.start : c.end] == c.text and meta["chunk_id"] == c.id
        assert meta["email_count"] == len(meta["message_ids"]) <= max_emails
        over = max(len(c.text), len(c.context_text)) > max_chars  # the file's text or the rendered one
        assert bool(meta.get("oversized")) == over and (not over or meta["email_count"] == 1), (c.id, len(c.text))
        assert meta["message_ids"][-len(meta["new_message_ids"]) :] == meta["new_message_ids"]
        if meta["parent_chunk_id"]:
            assert c.id in by_id[meta["parent_chunk_id"]].metadata["child_chunk_ids"]
        for child in meta["child_chunk_ids"]:
            assert by_id[child].metadata["parent_chunk_id"] == c.id
        for (s, e), mid in zip(meta["message_spans"], meta["message_ids"]):
            assert mid.lower() in text[s:e].lower() or mid.startswith("<chunktui-")
    attachments = {(a["start"], a["end"]) for c in cs.chunks for a in c.metadata.get("attachments", ())}
    for g in cs.gaps:
        if g.reason == "attachment":
            assert (g.start, g.end) in attachments
            continue
        if g.reason.startswith("email: rest of "):
            continue
        owner = re.match(r"email: in the context_text of (chunk-\d{4}) ", g.reason).group(1)
        ids = by_id[owner].metadata["new_message_ids"]
        assert any(i in text[g.start : g.end].lower() for i in ids)
    return new


def test_mbox_threads_fork_and_subject_fallback():
    cs = chunk_document(load_document(SAMPLES / "threads.mbox"), "email")
    new = check(cs)
    assert len(new) == 11
    threads = {c.metadata["thread_id"] for c in cs.chunks}
    assert threads == {"<q3-plan-001@mail.example.com>", "<printer-3f-001@mail.example.com>"}
    # the printer reply without In-Reply-To/References joins its thread by subject
    printer = [c for c in cs.chunks if c.metadata["thread_id"].startswith("<printer")]
    assert "<printer-3f-003@mail.example.com>" in [m for c in printer for m in c.metadata["message_ids"]]
    assert any(c.metadata.get("threaded_by_subject") == ["<printer-3f-003@mail.example.com>"] for c in printer)


def test_fork_shares_the_prefix_by_reference_not_by_copy():
    cs = chunk_document(load_document(SAMPLES / "threads.mbox"), "email")
    by_id = {c.id: c for c in cs.chunks}
    forks = [c for c in cs.chunks if c.metadata["branch"] == "fork"]
    assert forks
    fork_msgs = {f"<q3-plan-00{i}@mail.example.com>" for i in (4, 7, 8)}
    assert {m for c in forks for m in c.metadata["message_ids"]} == fork_msgs
    first = [c for c in forks if by_id[c.metadata["parent_chunk_id"]].metadata["branch"] == "main"]
    (first,) = first
    assert first.metadata["fork_of"] == "<q3-plan-001@mail.example.com>"
    parent = by_id[first.metadata["parent_chunk_id"]]
    assert "<q3-plan-001@mail.example.com>" in parent.metadata["new_message_ids"]
    root_copies = [c for c in cs.chunks if "<q3-plan-001@mail.example.com>" in c.metadata["message_ids"]]
    assert root_copies == [parent]  # the shared first message is in one chunk only


def test_windows_overlap_by_overlap_emails():
    cs = chunk_document(
        load_document(SAMPLES / "threads.mbox"),
        "email",
        {"max_emails_per_chunk": 3, "max_chars": 100_000, "overlap_emails": 1},
    )
    check(cs, max_emails=3, max_chars=100_000)
    by_id = {c.id: c for c in cs.chunks}
    pairs = [
        (by_id[c.metadata["parent_chunk_id"]], c)
        for c in cs.chunks
        if c.metadata["parent_chunk_id"]
        and c.metadata["branch"] == by_id[c.metadata["parent_chunk_id"]].metadata["branch"]
    ]
    assert pairs
    for prev, nxt in pairs:
        assert nxt.metadata["message_ids"][0] == prev.metadata["message_ids"][-1]
        assert nxt.metadata["message_ids"][1] not in prev.metadata["message_ids"]


@pytest.mark.parametrize("max_chars", [800, 2048, 100_000])
def test_thread_outline_lists_each_window_once_under_its_parent(max_chars):
    cs = chunk_document(load_document(SAMPLES / "threads.mbox"), "email", {"max_chars": max_chars})
    outline = thread_outline(cs.chunks)
    assert sorted(c.id for _, c in outline) == [c.id for c in cs.chunks]
    depth = {c.id: d for d, c in outline}
    position = {c.id: i for i, (_, c) in enumerate(outline)}
    for c in cs.chunks:
        parent = c.metadata["parent_chunk_id"]
        if parent is None:
            assert depth[c.id] == 0
            continue
        assert position[parent] < position[c.id]
        forks_here = c.metadata["branch"] == "fork" and cs.chunks[int(parent[6:]) - 1].metadata["branch"] == "main"
        assert depth[c.id] == depth[parent] + (1 if forks_here else 0)
    assert max(depth.values()) == 1


def test_window_metadata_dates_subject_participants():
    cs = chunk_document(load_document(SAMPLES / "threads.mbox"), "email")
    first = cs.chunks[0]
    assert first.metadata["subject"] == "Q3 launch plan"
    assert first.metadata["date_start"] == "2025-01-06T09:12:00+01:00"
    assert "Alice Moreau <alice.moreau@example.com>" in first.metadata["participants"]
    assert first.boundary_type == "message"
    assert all(c.metadata["date_start"] <= c.metadata["date_end"] for c in cs.chunks)


def test_fold_quotes_folds_quoted_lines_but_not_escaped_from_lines():
    doc = load_document(SAMPLES / "threads.mbox")
    plain = chunk_document(doc, "email")
    folded = chunk_document(doc, "email", {"fold_quotes": True})
    check(folded)
    plain_text = "\n".join(c.context_text for c in plain.chunks)
    folded_text = "\n".join(c.context_text for c in folded.chunks)
    assert "> Can engineering commit to the April beta given the SSO work?" in plain_text
    quoted = [ln for ln in folded_text.split("\n") if ln.startswith(">")]
    assert quoted and all(re.fullmatch(r"> \[\d+ quoted lines? folded\]", ln) for ln in quoted)
    for text in (plain_text, folded_text):  # mbox ">From " escaping is undone, not mistaken for a quote
        assert "\nFrom now on please report jams" in text


def test_folder_of_eml_files():
    assert is_email_folder(FOLDER) and not is_email_folder(SAMPLES)
    doc = load_email_folder(FOLDER)
    for f in sorted(FOLDER.glob("*.eml")):
        assert f.read_bytes().decode("utf-8") in doc.text
        assert f"From chunktui-eml-folder {f.name}\n" in doc.text
    cs = chunk_document(doc, "email", {"fold_quotes": True})
    check(cs)
    (chunk,) = cs.chunks
    assert chunk.text == doc.text and cs.gaps == []
    assert chunk.metadata["subject"] == "Café rota"
    assert chunk.metadata["message_ids"] == [
        "<kickoff-1@example.org>",
        "<kickoff-2@example.org>",
        "<kickoff-3@example.org>",
    ]
    assert chunk.metadata["threaded_by_subject"] == ["<kickoff-3@example.org>"]  # 02 threads by References
    assert "Who takes the café rota" in chunk.context_text
    assert "I can take the first two weeks." in chunk.context_text
    assert "wrote:" not in chunk.context_text  # the attribution line folds with its quote


def test_folder_errors_name_the_folder(tmp_path):
    with pytest.raises(DocumentError, match="no .eml files"):
        load_email_folder(tmp_path)


def test_single_eml_is_one_chunk():
    cs = chunk_document(load_document(FOLDER / "02-reply.eml"), "email")
    check(cs)
    (chunk,) = cs.chunks
    assert chunk.start == 0 and chunk.end == len(cs.document.text)
    assert "<p>" not in chunk.context_text  # the text/plain alternative is used


def test_overlap_must_be_below_window_size():
    with pytest.raises(ParamError, match="overlap-emails"):
        chunk_document(Document.from_text(""), "email", {"max_emails_per_chunk": 2, "overlap_emails": 2})


@st.composite
def mboxes(draw):
    n = draw(st.integers(1, 12))
    lines = []
    for i in range(n):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1))) if i else None
        body = "\n".join(
            draw(st.lists(st.sampled_from(["hello", "> quoted", "From the top", "x" * 70, ""]), max_size=8))
        )
        head = [
            f"From sender{i}@example.com Mon Jan  6 09:00:00 2025",
            f"Message-ID: <m{i}@x>",
            f"Date: Mon, 06 Jan 2025 09:{i:02d}:00 +0000",
            f"From: P{i % 3} <p{i % 3}@x>",
            f"Subject: {'Re: ' if parent is not None else ''}topic {0 if parent is not None else i}",
        ]
        if parent is not None and draw(st.booleans()):
            head.append(f"In-Reply-To: <m{parent}@x>")
        lines.append("\n".join(head) + "\n\n" + body.replace("\nFrom ", "\n>From ") + "\n")
    order = draw(st.permutations(range(n)))
    return "\n".join(lines[i] for i in order)


@settings(max_examples=30, deadline=None)
@given(mboxes(), st.integers(2, 5), st.integers(60, 600), st.integers(0, 1), st.booleans())
def test_generated_mboxes_keep_every_invariant(text, max_emails, max_chars, overlap, fold):
    doc = Document.from_text(text, path="gen.mbox")
    cs = chunk_document(
        doc,
        "email",
        {"max_emails_per_chunk": max_emails, "max_chars": max_chars, "overlap_emails": overlap, "fold_quotes": fold},
    )
    new = check(cs, max_emails, max_chars)
    assert len(new) == text.count("\nMessage-ID: ")
    assert all(g.reason.startswith("email: in the context_text of ") for g in cs.gaps)


@pytest.mark.parametrize("name", ["msg_18.txt", "msg_37.txt", "msg_38.txt", "msg_39.txt", "msg_40.txt"])
def test_a_message_with_only_mime_headers_is_read_with_a_warning(name):
    """CPython's messages with a header block of MIME fields alone (Content-Type, MIME-Version) are
    mail: they were refused with "no mail headers found"."""
    doc = load_document(CPYTHON / name)
    cs = chunk_document(doc, "email")
    check(cs)
    assert cs.chunks and cs.chunks[0].start == 0
    assert cs.warnings == [
        f"{doc.path}: 1 message has no From, To, Subject or Date header (line 1): read as mail all the same"
    ]


def test_the_warning_names_the_eml_file_of_a_folder(tmp_path):
    (tmp_path / "a.eml").write_bytes((FOLDER / "01-kickoff.eml").read_bytes())
    (tmp_path / "b.eml").write_bytes((CPYTHON / "msg_37.txt").read_bytes())
    cs = chunk_document(load_email_folder(tmp_path), "email")
    check(cs)
    assert cs.warnings == [
        f"{tmp_path}/b.eml: 1 message has no From, To, Subject or Date header: read as mail all the same"
    ]


def gif_size() -> int:
    """The attached GIF's size in bytes, decoded by the email package itself."""
    msg = email.message_from_bytes((CPYTHON / "msg_07.txt").read_bytes(), policy=email.policy.default)
    (part,) = [p for p in msg.walk() if p.get_content_type() == "image/gif"]
    return len(part.get_payload(decode=True))


def test_an_attachment_is_a_gap_listed_in_the_metadata():
    """CPython's msg_07: a GIF's base64 (4,899 characters with its part's headers) was chunk text."""
    cs = chunk_document(load_document(CPYTHON / "msg_07.txt"), "email")
    check(cs)
    text = cs.document.text
    (chunk,) = cs.chunks
    assert chunk.text.rstrip().endswith("This is the dingus fish.")
    (listed,) = chunk.metadata["attachments"]
    assert {k: listed[k] for k in ("filename", "content_type", "size")} == {
        "filename": "dingusfish.gif",
        "content_type": "image/gif",
        "size": gif_size(),
    }
    (gap,) = [g for g in cs.gaps if g.reason == "attachment"]
    assert (gap.start, gap.end) == (listed["start"], listed["end"])
    assert text[gap.start : gap.end].lstrip("\n").startswith("--BOUNDARY\nContent-Type: image/gif")
    assert BASE64_BLOCK.search(text[gap.start : gap.end])
    assert "Attachments: dingusfish.gif (image/gif, " in chunk.context_text


def test_a_message_after_an_attachment_is_chunked_on_its_own_side_of_the_gap():
    """An mbox: a message with an image, then a reply: the reply's text is no attachment's."""
    attached = (CPYTHON / "msg_07.txt").read_text()
    reply = (
        "From: Dingus Lovers <cravindogs@cravindogs.com>\nTo: Barry <barry@digicool.com>\n"
        "Subject: Re: Here is your dingus fish\nDate: Fri, 20 Apr 2001 20:01:00 -0400\n"
        "Message-ID: <fish-2@cravindogs.com>\nIn-Reply-To: <fish-1@digicool.com>\n\nLovely fish, thanks.\n"
    )
    text = (
        "From barry@digicool.com Fri Apr 20 19:35:02 2001\nMessage-ID: <fish-1@digicool.com>\n"
        + attached
        + "\nFrom cravindogs@cravindogs.com Fri Apr 20 20:01:00 2001\n"
        + reply
    )
    for max_emails in (1, 10):
        cs = chunk_document(
            Document.from_text(text, path="fish.mbox"),
            "email",
            {"max_emails_per_chunk": max_emails, "overlap_emails": 0},
        )
        check(cs, max_emails=max_emails)
        assert [g.reason for g in cs.gaps].count("attachment") == 1
        assert any("Lovely fish, thanks." in c.text for c in cs.chunks)
        assert not any("R0lGODdh" in c.text for c in cs.chunks)  # the GIF's first base64 characters


@pytest.mark.parametrize("path", [CPYTHON / "msg_25.txt", FIXTURES / "exim_bounce.eml"])
def test_transport_headers_quoted_by_a_bounce_stay_out_of_the_context_text(path):
    """A bounce quotes the returned message's headers in its text: Received, DKIM-Signature and ARC
    fields went into the text meant for embedding (msg_25: 19 Received lines)."""
    cs = chunk_document(load_document(path), "email", {"max_chars": 100_000})
    check(cs, max_chars=100_000)
    context = "\n".join(c.context_text for c in cs.chunks)
    transport = re.compile(
        r"^(?:Received: from|Return-Path: <|DKIM-Signature: v=|ARC-[\w-]+: i=|X-Received: by)", re.M | re.I
    )
    assert transport.search(cs.document.text) and not transport.search(context)
    assert not re.search(r"^\s+by\s", context, re.M)  # nor their folded lines
    if path.name == "exim_bounce.eml":  # the returned message's own fields and body stay, prose too
        assert "Subject: Invoice 2025-017" in context and "Received: the signed contract, thanks." in context
        assert "\n\nReceived: 3 of the 4 boxes.\n" in context  # a paragraph of one line is no header block
        assert "The following address(es) failed:" in context


def test_replies_to_a_missing_message_are_siblings_under_one_placeholder():
    """Ten "Re: Test" replies from ten mail clients, the message they answer not in the mbox (eight name
    it in In-Reply-To, two do not): they were a ten-deep chain by subject."""
    doc = load_document(FIXTURES / "re_test_replies.mbox")
    (root,) = build_threads(parse_messages(doc))
    assert root.placeholder and root.message_id == "<test-1@example.net>"
    assert len(root.children) == 10 and all(not m.children for m in root.children)
    cs = chunk_document(doc, "email")
    new = check(cs)
    assert len(new) == 10 and len(cs.chunks) == 10
    assert {c.metadata["thread_id"] for c in cs.chunks} == {"<test-1@example.net>"}
    assert all(c.metadata["email_count"] == 1 and c.metadata["root_missing"] for c in cs.chunks)
    assert all(c.metadata["parent_chunk_id"] is None and not c.metadata["child_chunk_ids"] for c in cs.chunks)
    assert [c.metadata.get("fork_of") for c in cs.chunks].count("<test-1@example.net>") == 9
    assert [depth for depth, _ in thread_outline(cs.chunks)] == [0] * 10


def test_a_lone_reply_to_a_message_not_in_the_file_keeps_its_window():
    cs = chunk_document(load_document(FOLDER / "02-reply.eml"), "email")
    (chunk,) = cs.chunks
    assert chunk.metadata["root_missing"] and chunk.metadata["branch"] == "main"
    assert chunk.metadata["parent_chunk_id"] is None and "fork_of" not in chunk.metadata


@pytest.mark.parametrize("max_chars", [800, 2048])
def test_every_chunk_over_max_chars_is_flagged(max_chars):
    """threads.mbox at 2048: chunks of 2,111 and 2,158 characters (two messages each, sized by their
    rendered text alone) carried no oversized flag, so no ⚠. Windows now fit both measures; only a
    single message can be over, and it is flagged."""
    cs = chunk_document(load_document(SAMPLES / "threads.mbox"), "email", {"max_chars": max_chars})
    check(cs, max_chars=max_chars)
    for c in cs.chunks:
        assert bool(c.metadata.get("oversized")) == (c.chars > max_chars or len(c.context_text) > max_chars)
        assert c.chars <= max_chars or c.metadata["email_count"] == 1


@pytest.mark.parametrize("path", sorted(CPYTHON.glob("*.txt")), ids=lambda p: p.name)
def test_cpython_messages_keep_every_invariant(path):
    for max_chars in (300, 2048):
        cs = chunk_document(load_document(path), "email", {"max_chars": max_chars})
        check(cs, max_chars=max_chars)
        assert not any(BASE64_BLOCK.search(c.text) for c in cs.chunks)  # attachments are gaps, not chunk text


@pytest.mark.parametrize("text", ["# A guide\n\nSome prose, no mail.\n", "Note: a colon line\n\nbody\n"])
def test_a_file_without_a_header_block_is_one_message_body_with_a_warning(text):
    """Text with no mail header at all is the body of one message; a "Note:" line stays in the
    embedded text instead of being taken for a header."""
    cs = chunk_document(Document.from_text(text, path="docs/guide.md"), "email")
    check(cs)
    (chunk,) = cs.chunks
    assert (chunk.start, chunk.end) == (0, len(text)) and chunk.embed_text == text.strip("\n")
    assert cs.warnings == ["docs/guide.md: no mail header block: read as the body of one message"]


def test_a_plain_text_digest_part_is_read():
    """CPython's msg_19, a Mailman digest's body without a header block, was refused with
    "no mail headers found"; every one of its lines is embedded text."""
    doc = load_document(CPYTHON / "msg_19.txt")
    cs = chunk_document(doc, "email")
    check(cs)
    assert [(c.start, c.end) for c in cs.chunks] == [(0, len(doc.text))] and not cs.gaps
    assert cs.chunks[0].embed_text == doc.text.strip("\n")
    assert cs.warnings == [f"{doc.path}: no mail header block: read as the body of one message"]


def test_notes_count_in_the_singular_and_the_plural():
    one = chunk_document(load_document(FOLDER / "02-reply.eml"), "email")
    assert one.notes[0] == "email: 1 message in 1 thread, 1 window"
    many = chunk_document(load_document(SAMPLES / "threads.mbox"), "email")
    assert re.fullmatch(r"email: \d+ messages in \d+ threads, \d+ windows", many.notes[0])
