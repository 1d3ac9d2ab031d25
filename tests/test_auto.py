"""`auto` runs the format-native strategy for each file type and says which and why."""

from pathlib import Path

import pytest

from chunktui.engine import Document, chunk_document, get_strategy, load_document
from chunktui.engine.readers.mail import load_email_folder
from chunktui.engine.strategies.auto import pick_strategy

SAMPLES = Path(__file__).parent.parent / "sample_docs"


@pytest.mark.parametrize(
    "name, strategy",
    [
        ("guide.md", "prose"),
        ("essay.txt", "prose"),
        ("service.log", "log"),
        ("events.jsonl", "log"),
        ("orders.csv", "data"),
        ("orders.tsv", "data"),
        ("inventory.py", "code"),
        ("auth_middleware.ts", "code"),
        ("talk.vtt", "cues"),
        ("talk.srt", "cues"),
        ("threads.mbox", "email"),
    ],
)
def test_auto_delegates_with_the_target_defaults(name, strategy):
    doc = load_document(SAMPLES / name)
    got = chunk_document(doc, "auto")
    want = chunk_document(doc, strategy)
    assert got.strategy == strategy
    assert got.params == get_strategy(strategy).defaults()
    assert [(c.start, c.end, dict(c.metadata)) for c in got.chunks] == [
        (c.start, c.end, dict(c.metadata)) for c in want.chunks
    ]
    assert got.gaps == want.gaps
    assert got.notes[0].startswith(f"auto: picked {strategy} because ")
    assert got.notes[1:] == want.notes


def test_auto_names_the_extension_in_its_reason():
    cs = chunk_document(load_document(SAMPLES / "guide.md"), "auto")
    assert cs.notes[0] == "auto: picked prose because .md"


def test_auto_picks_email_for_a_folder_of_eml():
    doc = load_email_folder(Path(__file__).parent / "fixtures" / "eml_folder")
    cs = chunk_document(doc, "auto")
    assert cs.strategy == "email" and cs.notes[0] == "auto: picked email because a folder of .eml files"


@pytest.mark.parametrize(
    "doc, strategy, reason",
    [
        (
            Document.from_text("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhi\n", path="captions"),
            "cues",
            "its content looks like subtitles",
        ),
        (Document.from_text("key: value\n", path="settings.yaml"), "semantic", "no format-specific strategy for .yaml"),
        (
            Document.from_text("just words\n", path="data.xyz"),
            "prose",
            "its content looks like prose (unknown extension .xyz)",
        ),
        (Document.from_text("# Title\n\nwords\n", path="notes.xyz"), "prose", "its content looks like markdown"),
        (
            Document.from_text("17,4.5,0x1f;;--\n" * 20, path="dump.xyz"),
            "semantic",
            "no format-specific strategy for .xyz",
        ),
        (
            Document.from_text("17,4.5,0x1f;;--\n" * 20, path="DUMP"),
            "semantic",
            "no format-specific strategy for this text",
        ),
        (Document.from_text("just words\n", path="README"), "prose", "its content looks like prose"),
    ],
)
def test_auto_without_a_known_extension(doc, strategy, reason):
    name, why = pick_strategy(doc)
    assert name == strategy and why.startswith(reason)
    assert chunk_document(doc, "auto").strategy == strategy


def test_code_without_a_grammar_falls_back_to_semantic_with_a_note():
    doc = Document(
        text="IDENTIFICATION DIVISION.\nPROGRAM-ID. HELLO.\n", path="hello.cob", kind="code", language="cobol"
    )
    cs = chunk_document(doc, "auto")
    assert cs.strategy == "semantic"
    assert cs.params == get_strategy("semantic").defaults()
    assert cs.notes[0].startswith("auto: picked semantic because the code strategy cannot parse this file")
    assert cs.chunks[0].start == 0 and cs.chunks[-1].end == len(doc.text) and cs.gaps == []


def test_auto_has_no_size_keys_of_its_own():
    auto = get_strategy("auto")
    assert auto.params == () and auto.size_param is None and auto.overlap_param is None
