"""Loading files as users have them (BOMs, UTF-16, Latin-1, CRLF, binary) and the offset indexes."""

from __future__ import annotations

import codecs
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunktui.engine import Document, DocumentError, chunk_document, detect_kind, load_document
from chunktui.formats.records import chunk_record

TEXT = "Grüße — naïve café 🎉\nsecond line\n"


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_utf8_without_bom(tmp_path):
    data = TEXT.encode("utf-8")
    doc = load_document(write(tmp_path, "a.txt", data))
    assert (doc.text, doc.encoding, doc.warnings) == (TEXT, "utf-8", [])
    assert doc.sha256 == hashlib.sha256(data).hexdigest()  # the file's bytes, so a changed file is noticed


def test_utf8_with_bom_drops_the_mark(tmp_path):
    doc = load_document(write(tmp_path, "a.txt", codecs.BOM_UTF8 + TEXT.encode("utf-8")))
    assert doc.text == TEXT and doc.encoding == "utf-8-sig" and not doc.warnings


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_with_bom(tmp_path, codec):
    bom = {
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
    }[codec]
    doc = load_document(write(tmp_path, "a.md", bom + TEXT.encode(codec)))
    assert doc.text == TEXT and not doc.warnings
    assert doc.kind == "markdown"


def test_a_second_byte_order_mark_is_text(tmp_path):
    doc = load_document(write(tmp_path, "a.txt", codecs.BOM_UTF8 + "\ufeffx\n".encode("utf-8")))
    assert doc.text == "\ufeffx\n" and doc.encoding == "utf-8-sig"


@pytest.mark.parametrize(
    "codec, bom",
    [
        ("utf-8", b""),
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32-le", codecs.BOM_UTF32_LE),
        ("latin-1", b""),
    ],
)
def test_byte_offsets_index_the_file_as_it_is_on_disk(tmp_path, codec, bom):
    """A BOM shifted every offset by 3, and UTF-16 and Latin-1 files got offsets into a UTF-8
    re-encoding the file does not hold; now the manifest's encoding reads each chunk back."""
    text = "".join(f"## Größe {i}\r\n\ncafé crème, naïve façade — {i} €\n\n" for i in range(60))
    if codec == "latin-1":
        text = text.replace("—", "-").replace("€", "EUR")
    data = bom + text.encode(codec)
    path = write(tmp_path, "notes.md", data)
    doc = load_document(path)
    assert doc.text == text
    for strategy, params in (
        ("markdown", {"max_char": 120, "chunk_overlap": 30, "min_char": 0}),
        ("recursive", {"size": 50, "overlap": 10}),
        ("lines", {"size": 7, "overlap": 2}),
    ):
        cs = chunk_document(doc, strategy, params)
        assert len(cs.chunks) > 5
        for c in cs.chunks:
            assert data[c.start_byte : c.end_byte].decode(doc.encoding) == c.text
        first = cs.chunks[0]
        assert first.start == 0 and first.start_byte == len(bom)
        record = chunk_record(cs.chunks[-1])  # what the manifest says, read back with its encoding
        assert data[record["start_byte"] : record["end_byte"]].decode(doc.encoding) == cs.chunks[-1].text


def test_other_bytes_fall_back_to_latin1_with_a_warning(tmp_path):
    path = write(tmp_path, "legacy.txt", "café au lait\n".encode("latin-1"))
    doc = load_document(path)
    assert doc.text == "café au lait\n" and doc.encoding == "latin-1"
    assert len(doc.warnings) == 1 and "legacy.txt" in doc.warnings[0] and "Latin-1" in doc.warnings[0]


def test_binary_file_is_refused_naming_it(tmp_path):
    path = write(tmp_path, "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(DocumentError) as err:
        load_document(path)
    assert err.value.path == str(path)
    assert "image.txt" in str(err.value) and "binary" in str(err.value)


def test_broken_utf16_after_its_bom_is_refused(tmp_path):
    with pytest.raises(DocumentError, match="utf-16"):
        load_document(write(tmp_path, "a.txt", codecs.BOM_UTF16_LE + b"\x00\xd8a\x00"))


@pytest.mark.parametrize("make", [lambda p: p / "missing.txt", lambda p: p])
def test_missing_file_and_folder_are_document_errors(tmp_path, make):
    path = make(tmp_path)
    with pytest.raises(DocumentError) as err:
        load_document(path)
    assert str(path) in str(err.value)


def test_crlf_is_kept_and_counted(tmp_path):
    data = b"one\r\ntwo\r\nthree"
    doc = load_document(write(tmp_path, "crlf.txt", data))
    assert doc.text == "one\r\ntwo\r\nthree"
    assert doc.line_count == 3
    assert [doc.line_start(n) for n in (1, 2, 3)] == [0, 5, 10]
    assert doc.line_of(doc.text.index("two")) == 2
    assert doc.line_of(4) == 1  # the "\n" of a CRLF belongs to the line it ends
    assert doc.byte_offset(len(doc.text)) == len(data)


def test_line_count_follows_editors():
    assert [Document.from_text(t).line_count for t in ("", "a", "a\n", "a\nb", "\n\n")] == [0, 1, 1, 2, 2]


def test_line_range_of_a_span_ending_with_newline_stays_on_its_line():
    doc = Document.from_text("ab\ncd\nef\n")
    assert doc.line_range(0, 3) == (1, 1)
    assert doc.line_range(3, 9) == (2, 3)


@settings(max_examples=60, deadline=None)
@given(st.text(st.sampled_from(["a", "é", "🎉", "\n", "\r", " ", "日"]), max_size=300))
def test_line_index_round_trips(text):
    doc = Document.from_text(text)
    assert doc.line_count == text.count("\n") + (0 if not text or text.endswith("\n") else 1)
    for line in range(1, doc.line_count + 1):
        start = doc.line_start(line)
        assert doc.line_of(start) == line
        assert start == 0 or text[start - 1] == "\n"
        assert "\n" not in text[start : doc.line_end(line) - 1]
    for offset in range(len(text)):
        line = doc.line_of(offset)
        assert doc.line_start(line) <= offset < doc.line_end(line)
        assert line == text.count("\n", 0, offset) + 1


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a" * 61, "é" * 37 + "\n", "🎉" * 13, "日本" * 29, "x\n"]), min_size=80, max_size=200
    ).map("".join),
    st.data(),
)
def test_byte_offsets_match_utf8_encoding(text, data):
    """Byte offsets use checkpoints every 4096 chars; they must agree with encoding the prefix."""
    doc = Document.from_text(text)
    offsets = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=20))
    for off in offsets + [0, len(text), 4095, 4096, 4097]:
        off = min(off, len(text))
        assert doc.byte_offset(off) == len(text[:off].encode("utf-8"))


@pytest.mark.parametrize(
    "name, kind, language",
    [
        ("x.md", "markdown", None),
        ("x.py", "code", "python"),
        ("x.ts", "code", "typescript"),
        ("x.log", "log", None),
        ("x.jsonl", "jsonl", None),
        ("x.csv", "csv", None),
        ("x.tsv", "tsv", None),
        ("x.vtt", "subtitles", None),
        ("x.srt", "subtitles", None),
        ("x.mbox", "email", None),
        ("x.txt", "prose", None),
    ],
)
def test_kind_by_extension(name, kind, language):
    assert detect_kind(name) == (kind, language)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("WEBVTT\n\n00:00.000 --> 00:01.000\nhi\n", "subtitles"),
        ("From a@b Mon Jan  1 00:00:00 2024\nSubject: hi\n\nbody\n", "email"),
        ('{"a": 1}\n{"a": 2}\n', "jsonl"),
        ("# Title\n\ntext\n", "markdown"),
        ("Just some prose.\n", "prose"),
    ],
)
def test_kind_by_content_without_extension(text, kind):
    assert detect_kind(None, text)[0] == kind
    assert Document.from_text(text).kind == kind


def test_sample_docs_load_as_their_kind():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "sample_docs"
    kinds = {p.name: load_document(p).kind for p in root.iterdir() if p.is_file()}
    assert kinds["guide.md"] == "markdown" and kinds["inventory.py"] == "code"
    assert kinds["talk.vtt"] == kinds["talk.srt"] == "subtitles" and kinds["threads.mbox"] == "email"
    assert kinds["service.log"] == "log" and kinds["orders.csv"] == "csv" and kinds["events.jsonl"] == "jsonl"
