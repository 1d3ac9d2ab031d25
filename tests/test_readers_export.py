"""Exports and stores of PDF, HTML and DOCX documents: the extracted text beside the chunks, the
extractor in the manifest, and review mode re-extracting and comparing hashes."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import docx
import pytest
import yaml

import chunktui
from support.cli import run
from chunktui.engine.core.errors import DocumentError, PasswordError

from chunktui.engine import chunk_document, load_document
from chunktui.engine.readers import _cache
from chunktui.formats.export import export_chunkset
from chunktui.formats.store import load_chunkset, load_saved

DOCS = Path(__file__).parent / "fixtures" / "docs"


def test_export_holds_the_extracted_text_and_names_its_extractor(tmp_path):
    doc = load_document(DOCS / "libtasn1-8pages.pdf")
    cs = chunk_document(doc, "markdown", {})
    export_chunkset(cs, tmp_path / "out", "json")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    text = (tmp_path / "out" / "source.md").read_bytes()
    assert manifest["extraction"]["text_sha256"] == hashlib.sha256(text).hexdigest()
    assert manifest["extraction"]["extractor"].startswith("pypdfium2 ") and manifest["extraction"]["pages"] == 8
    assert manifest["source_sha256"] == hashlib.sha256((DOCS / "libtasn1-8pages.pdf").read_bytes()).hexdigest()
    decoded = text.decode("utf-8")
    for entry in manifest["chunks"]:  # anyone can check the offsets against source.md
        assert (
            text[entry["start_byte"] : entry["end_byte"]].decode("utf-8")
            == decoded[entry["start_char"] : entry["end_char"]]
        )
    reloaded = load_saved(tmp_path / "out" / "manifest.json")
    assert [c.text for c in reloaded.chunks] == [c.text for c in cs.chunks]


def test_html_mode_is_in_the_manifest_and_review_reads_with_it(tmp_path):
    doc = load_document(DOCS / "news-article.html", reader_options={"html": "whole"})
    export_chunkset(chunk_document(doc, "markdown", {}), tmp_path / "out", "yaml")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["extraction"]["mode"] == "whole"
    loaded = load_chunkset(tmp_path / "out" / "chunks.yaml")
    assert loaded.source_matches and "Advertisement" in loaded.chunkset.document.text


def test_review_reextracts_and_a_different_text_does_not_match(tmp_path):
    doc = load_document(DOCS / "guide.docx")
    export_chunkset(chunk_document(doc, "markdown", {}), tmp_path / "out", "yaml")
    store = tmp_path / "out" / "chunks.yaml"
    _cache.clear()  # review mode extracts again, not from this process's cache
    assert load_chunkset(store).source_matches
    data = yaml.safe_load(store.read_text())
    data["source"]["extraction"]["text_sha256"] = "0" * 64  # as another extractor version would give
    store.write_text(yaml.safe_dump(data, sort_keys=False))
    loaded = load_chunkset(store)
    assert loaded.source_found and not loaded.source_matches


def test_reading_a_file_again_comes_from_the_cache():
    first = load_document(DOCS / "libtasn1-8pages.pdf")
    again = load_document(DOCS / "libtasn1-8pages.pdf")
    assert again.extraction is first.extraction
    other = load_document(DOCS / "news-article.html", reader_options={"html": "whole"})
    main = load_document(DOCS / "news-article.html")
    assert other.extraction is not main.extraction  # the mode is part of the key


def test_a_manifest_of_an_encrypted_pdf_needs_its_password_and_loads_with_it(tmp_path):
    locked = DOCS / "libtasn1-encrypted.pdf"
    cs = chunk_document(load_document(locked, reader_options={"password": "s3cret"}), "prose", {})
    export_chunkset(cs, tmp_path / "out", "json")
    manifest = tmp_path / "out" / "manifest.json"
    with pytest.raises(
        PasswordError,
        match=f"^{re.escape(str(manifest))}: its source .*libtasn1-encrypted.pdf is an "
        r"encrypted PDF: give its password \(--password, or password= to",
    ):
        chunktui.load(manifest)
    with pytest.raises(PasswordError, match="wrong password"):
        chunktui.load(manifest, password="wrong")
    assert [c.text for c in chunktui.load(manifest, password="s3cret").chunks] == [c.text for c in cs.chunks]


def test_inspect_opens_an_encrypted_source_with_its_password(tmp_path):
    locked = DOCS / "libtasn1-encrypted.pdf"
    assert run("chunk", locked, "-f", "yaml", "-o", tmp_path / "yaml", "--password", "s3cret")[0] == 0
    code, out, err = run("inspect", tmp_path / "yaml" / "chunks.yaml", "--password", "s3cret")
    assert code == 0 and "[found, unchanged]" in out, err
    assert run("chunk", locked, "-f", "json", "-o", tmp_path / "json", "--password", "s3cret")[0] == 0
    (tmp_path / "json" / "chunks.json").unlink()  # the texts are then cut from the source
    code, out, _ = run("inspect", tmp_path / "json" / "manifest.json", "--password", "s3cret")
    assert code == 0 and "\n    | " in out and "(text not available)" not in out  # the sample's lines
    code, out, _ = run("inspect", tmp_path / "json" / "manifest.json")
    assert code == 0 and "(text not available)" in out


def test_inspect_cuts_a_whole_page_exports_texts_from_the_whole_page(tmp_path):
    """The texts of a manifest without its chunk files come from the source read in the recorded
    mode: read as main content, the whole page's offsets cut the wrong text."""
    assert (
        run(
            "chunk",
            DOCS / "news-article.html",
            "--html",
            "whole",
            "-s",
            "lines",
            "--size",
            "4",
            "--overlap",
            "0",
            "-f",
            "json",
            "-o",
            tmp_path / "out",
        )[0]
        == 0
    )
    saved = json.loads((tmp_path / "out" / "chunks.json").read_text())["chunks"]
    (tmp_path / "out" / "chunks.json").unlink()
    code, out, _ = run("inspect", tmp_path / "out" / "manifest.json", "--chunk", "1", "--full")
    assert code == 0 and saved[0]["content"].splitlines()[0] in out


def test_docx_and_html_extractors_name_their_rules_as_pdf_does():
    """The same library with other rules gives another text: the extractor names both."""
    from chunktui.engine.readers import docx as docx_reader
    from chunktui.engine.readers import html as html_reader

    assert load_document(DOCS / "guide.docx").extractor == (
        f"python-docx {docx.__version__}, chunktui docx rules {docx_reader.RULES}"
    )
    main = load_document(DOCS / "news-article.html").extractor
    whole = load_document(DOCS / "news-article.html", reader_options={"html": "whole"}).extractor
    assert main.startswith("trafilatura ") and main.endswith(f", chunktui html rules {html_reader.RULES}")
    assert whole.startswith("chunktui html-whole (lxml ") and whole.endswith(
        f", chunktui html rules {html_reader.RULES}"
    )


def test_review_of_an_unchanged_file_extracted_differently_says_so(tmp_path):
    """A store saved by another extractor (or other rules) over the same file: not "CHANGED", whose
    sha256 is the same, but extracted differently, naming both extractors."""
    doc = load_document(DOCS / "guide.docx")
    export_chunkset(chunk_document(doc, "markdown", {}), tmp_path / "out", "yaml")
    store, manifest = tmp_path / "out" / "chunks.yaml", tmp_path / "out" / "manifest.json"
    data = yaml.safe_load(store.read_text())
    data["source"]["extraction"].update(extractor="python-docx 1.1.0", text_sha256="0" * 64)
    store.write_text(yaml.safe_dump(data, sort_keys=False))
    change = f"was python-docx 1.1.0, now {doc.extractor}"
    code, out, err = run("inspect", store)
    assert code == 0, err
    assert f"[found, the same file, extracted differently ({change})]" in out and "CHANGED" not in out
    loaded = load_chunkset(store)
    assert loaded.source_found and not loaded.source_matches and loaded.extracted_differently == change
    from chunktui.ui.app import review_note

    note = review_note(store, loaded)
    assert f"is the same file, extracted differently ({change})" in note and "CHANGED" not in note
    saved = json.loads(manifest.read_text())
    saved["extraction"].update(extractor="python-docx 1.1.0", text_sha256="0" * 64)
    manifest.write_text(json.dumps(saved))
    (tmp_path / "out" / "chunks.yaml").unlink()
    with pytest.raises(DocumentError, match=re.escape(f"extracted differently ({change})")):
        load_saved(manifest)
