"""Extracted texts cached on disk: another process reopening a file reads the text from there,
a damaged entry is extracted again, an encrypted PDF's text is never written, the folder is bounded.

A new process is stood for by emptying the in-memory cache; the reader is made to fail, so a text
that still comes back came from the disk.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pytest

from chunktui.engine import load_document
from chunktui.engine import readers
from chunktui.engine.readers import disk_cache

DOCS = Path(__file__).parent / "fixtures" / "docs"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(readers, "_cache", OrderedDict())
    return tmp_path / "cache" / "chunktui" / "extracted"


def new_process(monkeypatch, counted: list) -> None:
    """Empty the memory cache and count (and refuse) every read that reaches a reader."""
    monkeypatch.setattr(readers, "_cache", OrderedDict())

    def refused(path, *args):
        counted.append(path)
        raise AssertionError("extracted again")

    monkeypatch.setattr("chunktui.engine.readers.docx.read_docx", refused)
    monkeypatch.setattr("chunktui.engine.readers.pdf.read_pdf", refused)


@pytest.mark.parametrize("name", ["lo-notes.docx", "libtasn1-8pages.pdf"])
def test_reopening_in_another_process_reads_the_text_from_disk(name, cache_home, monkeypatch):
    first = load_document(DOCS / name)
    [entry] = cache_home.iterdir()
    assert entry.stat().st_mode & 0o077 == 0  # the owner's only
    reads: list = []
    new_process(monkeypatch, reads)
    again = load_document(DOCS / name)
    assert reads == []
    assert (again.text, again.extractor, again.text_sha256) == (first.text, first.extractor, first.text_sha256)
    assert again.extraction.regions == first.extraction.regions
    assert again.extraction.page_count == first.extraction.page_count


def test_a_damaged_entry_is_extracted_again(cache_home, monkeypatch):
    first = load_document(DOCS / "lo-notes.docx")
    [entry] = cache_home.iterdir()
    entry.write_bytes(entry.read_bytes().replace(b"Release notes", b"Release motes"))
    monkeypatch.setattr(readers, "_cache", OrderedDict())
    assert load_document(DOCS / "lo-notes.docx").text == first.text  # read again, not the altered text


def test_an_encrypted_pdfs_text_is_never_written(cache_home):
    doc = load_document(DOCS / "libtasn1-encrypted.pdf", reader_options={"password": "s3cret"})
    assert "Table of Contents" in doc.text
    assert not cache_home.exists() or not any(cache_home.iterdir())


def test_the_folder_is_bounded_oldest_first(cache_home, monkeypatch):
    load_document(DOCS / "guide.docx")
    [older] = cache_home.iterdir()
    monkeypatch.setattr(disk_cache, "MAX_BYTES", older.stat().st_size + 10)
    newer = load_document(DOCS / "lo-notes.docx")
    [kept] = cache_home.iterdir()
    assert kept != older and disk_cache.load(kept).text == newer.text


def test_a_fifo_at_an_entry_path_is_not_read(cache_home, monkeypatch):
    """A FIFO where an entry would be blocked the load for ever (the vocabulary cache's review finding,
    which this cache shared); the file is extracted again and its entry written over the FIFO."""
    import os
    import threading

    first = load_document(DOCS / "lo-notes.docx")
    [entry] = cache_home.iterdir()
    entry.unlink()
    os.mkfifo(entry)
    got: list = []
    reader = threading.Thread(target=lambda: got.append(disk_cache.load(entry)), daemon=True)
    reader.start()
    reader.join(2)
    if reader.is_alive():  # let a reader blocked in the FIFO's open go
        os.close(os.open(entry, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(2)
        pytest.fail("the load waited on the FIFO")
    assert got == [None]
    monkeypatch.setattr(readers, "_cache", OrderedDict())
    assert load_document(DOCS / "lo-notes.docx").text == first.text
    assert entry.is_file() and disk_cache.load(entry).text == first.text
