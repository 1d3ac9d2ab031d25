"""--html and --password reach the reader on every command that reads a document (sweep, compare,
eval, open, review), and a missing or wrong password is one error line on each.

Fixtures (tests/fixtures/docs/): eight pages of Debian's libtasn1 manual (pdfTeX) encrypted with
the password s3cret, and a saved news page (a cookie banner, navigation, an ad and a footer around
the article).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import assert_one_line_error, run
from chunktui.engine import load_document
from chunktui.cli.inspect import inspect_file, summary_lines
from chunktui.formats.profiles import save_profile
from chunktui.formats.store import load_chunkset

DOCS = Path(__file__).parent / "fixtures" / "docs"
LOCKED = DOCS / "libtasn1-encrypted.pdf"
NEWS = DOCS / "news-article.html"


@pytest.fixture
def profiles(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    save_profile(a, "recursive", {"size": 300, "overlap": 0}, "cl100k_base")
    save_profile(b, "recursive", {"size": 600, "overlap": 0}, "cl100k_base")
    return a, b


def commands(path, profiles):
    a, b = profiles
    return {
        "sweep": ["sweep", path, "--workers", "1"],
        "compare": ["compare", path, "--a", a, "--b", b],
        "eval": ["eval", path, "--auto-queries", "5", "-s", "recursive"],
        "open": ["open", path],
    }


@pytest.mark.parametrize("command", ["sweep", "compare", "eval", "open"])
def test_missing_or_wrong_password_is_one_error_line(command, profiles):
    args = commands(LOCKED, profiles)[command]
    code, out, err = run(*args)
    assert_one_line_error(code, err, str(LOCKED), "encrypted PDF: give its password with --password")
    assert out == ""
    code, out, err = run(*args, "--password", "not-it")
    assert_one_line_error(code, err, str(LOCKED), "wrong password for this encrypted PDF")
    assert out == ""


@pytest.mark.parametrize("command", ["sweep", "compare", "eval"])
def test_the_right_password_reads_the_pdf(command, profiles):
    code, out, err = run(*commands(LOCKED, profiles)[command], "--password", "s3cret")
    assert code == 0, err
    assert out.strip()


def test_html_mode_reaches_sweep_compare_and_eval(profiles):
    """The whole page holds the banner, navigation and footer the main content leaves out: more
    text, so more chunks at the same size, and its words are found by eval's questions."""
    main_text = load_document(NEWS).text
    whole_text = load_document(NEWS, reader_options={"html": "whole"}).text
    assert len(whole_text) > len(main_text)

    def chunk_counts(command, *extra):
        code, out, err = run(
            command,
            NEWS,
            "-s",
            "fixed",
            "--size",
            "40",
            "--json" if command == "eval" else "--format",
            *(("--auto-queries", "5") if command == "eval" else ("json",)),
            *extra,
        )
        assert code == 0, err
        found = json.loads(out)
        return found["chunks"] if command == "eval" else found["cells"][0]["count"]

    for command in ("sweep", "eval"):
        assert chunk_counts(command, "--html", "whole") > chunk_counts(command) > 0, command

    code, out, err = run("compare", NEWS, "--a", profiles[0], "--b", profiles[1], "--json", "--html", "whole")
    assert code == 0, err
    cuts = [b["offset"] for b in json.loads(out)["boundaries"]]
    assert max(cuts) > len(main_text)  # cuts past the end of the main content: the whole page was read


@pytest.fixture
def saved_locked(tmp_path):
    """A chunks.yaml of the encrypted PDF, saved with its password."""
    code, _, err = run("chunk", LOCKED, "-s", "recursive", "-f", "yaml", "-o", tmp_path / "out", "--password", "s3cret")
    assert code == 0, err
    return tmp_path / "out" / "chunks.yaml"


def test_review_of_an_encrypted_source_reads_it_with_the_password(saved_locked):
    assert load_chunkset(saved_locked, "s3cret").source_matches
    locked = load_chunkset(saved_locked)
    # without the password the source is not checked; it is not called changed
    assert locked.source_found and not locked.source_matches
    assert locked.source_locked == "encrypted PDF: give its password with --password"
    status = next(line for line in summary_lines(inspect_file(saved_locked), None, False) if "source" in line)
    assert "not checked (encrypted PDF" in status and "CHANGED" not in status


def test_review_with_a_wrong_password_is_one_error_line(saved_locked):
    code, out, err = run("open", saved_locked, "--password", "not-it")
    assert_one_line_error(code, err, str(LOCKED), "wrong password for this encrypted PDF")
