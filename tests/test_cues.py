"""`cues`: subtitle chunks keep their timestamps and their exact place in the file."""

from pathlib import Path

import pytest
import webvtt
from hypothesis import given, settings, strategies as st

from chunktui.engine import ChunkingError, Document, chunk_document, load_document
from chunktui.engine.readers.subtitles import parse_subtitles

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"


def check_offsets(cs):
    text = cs.document.text
    assert all(text[c.start : c.end] == c.text for c in cs.chunks)
    assert [c.start for c in cs.chunks] == sorted(c.start for c in cs.chunks)
    assert all(a.end <= b.start for a, b in zip(cs.chunks, cs.chunks[1:]))


def reference_captions(path: Path):
    return webvtt.read(str(path)) if path.suffix == ".vtt" else webvtt.from_srt(str(path))


@pytest.mark.parametrize("name", ["talk.vtt", "talk.srt"])
def test_samples_keep_every_cue_with_its_timestamps(name):
    path = SAMPLES / name
    cs = chunk_document(load_document(path), "cues")
    check_offsets(cs)
    captions = reference_captions(path).captions
    assert sum(c.metadata["cue_count"] for c in cs.chunks) == len(captions)
    i = 0
    for chunk in cs.chunks:
        group = captions[i : i + chunk.metadata["cue_count"]]
        i += len(group)
        assert chunk.metadata["ts_start"] == group[0].start
        assert chunk.metadata["ts_end"] == group[-1].end
        assert chunk.metadata["start_ms"] == group[0].start_time.in_milliseconds()
        assert chunk.metadata["end_ms"] == group[-1].end_time.in_milliseconds()
        assert chunk.context_text == "\n".join(c.text for c in group)
        assert len(chunk.context_text) <= 1200
        assert chunk.boundary_type == "cue"
        for caption in group:  # the cue's first text line sits inside the chunk's span
            assert caption.lines[0] in chunk.text


def test_vtt_header_and_note_are_declared_gaps_everything_else_covered():
    cs = chunk_document(load_document(SAMPLES / "talk.vtt"), "cues")
    assert [g.reason for g in cs.gaps] == ["header", "note"]
    assert cs.gaps[0].start == 0
    assert cs.document.text[cs.gaps[1].start :].startswith("NOTE")
    assert cs.chunks[0].metadata["header"]["Language"] == "en"


def test_a_cue_longer_than_size_is_a_chunk_of_its_own():
    cs = chunk_document(load_document(SAMPLES / "talk.vtt"), "cues", {"size": 250})
    check_offsets(cs)
    long = [c for c in cs.chunks if len(c.context_text) > 250]
    assert long, "talk.vtt has a cue over 300 characters"
    assert all(c.metadata["cue_count"] == 1 and c.metadata["oversized"] for c in long)
    assert all("oversized" not in c.metadata for c in cs.chunks if len(c.context_text) <= 250)


def test_vtt_with_bom_metadata_notes_and_style():
    cs = chunk_document(load_document(FIXTURES / "bom_notes.vtt"), "cues", {"size": 60})
    check_offsets(cs)
    # the NOTE between cues 1 and 2 lies inside the first chunk's span, so it is no gap
    assert [g.reason for g in cs.gaps] == ["header", "note", "style"]
    assert "the next cue has no identifier" in cs.chunks[0].text
    assert cs.chunks[0].metadata["header"] == {"title": "Launch review", "Kind": "captions", "Language": "en-GB"}
    assert [c.metadata["cue_ids"] for c in cs.chunks] == [["1", "#2"], ["recap"]]
    first = cs.chunks[0]
    assert first.context_text == "Welcome back, everyone.\nThanks, Dana. Shall we start?"
    assert first.metadata["speakers"] == ["Dana", "Sam"]
    assert cs.chunks[1].metadata["start_ms"] == 62250
    split = chunk_document(load_document(FIXTURES / "bom_notes.vtt"), "cues", {"size": 40})
    assert [g.reason for g in split.gaps] == ["header", "note", "style", "note"]


def test_srt_cue_missing_its_text_is_kept_and_empty():
    cs = chunk_document(load_document(FIXTURES / "missing_text.srt"), "cues", {"size": 1200})
    check_offsets(cs)
    assert cs.gaps == []
    (chunk,) = cs.chunks
    assert chunk.metadata["cue_count"] == 3
    assert chunk.context_text == "First line.\n\nThird cue, after an empty one."
    assert chunk.metadata["ts_end"] == "00:00:05.000"


def test_utf16_subtitles_give_the_same_cues_as_utf8(tmp_path):
    src = (SAMPLES / "talk.srt").read_text(encoding="utf-8")
    path = tmp_path / "talk16.srt"
    path.write_bytes(src.encode("utf-16"))
    doc = load_document(path)
    assert doc.encoding == "utf-16-le"  # .encode("utf-16") writes the machine's order after the BOM
    got = chunk_document(doc, "cues")
    want = chunk_document(load_document(SAMPLES / "talk.srt"), "cues")
    check_offsets(got)
    assert [dict(c.metadata) for c in got.chunks] == [dict(c.metadata) for c in want.chunks]
    assert [(c.start, c.end) for c in got.chunks] == [(c.start, c.end) for c in want.chunks]


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        (
            "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nok\n\n00:01:xx.000 --> 00:01:02.000\nbad\n",
            6,
            "malformed timestamp '00:01:xx.000'",
        ),
        ("WEBVTT\n\nintro\njust text, no timing\n", 4, "expected a cue timing line"),
        ("Kind: captions\n\n00:00:01.000 --> 00:00:02.000\nhi\n", 1, "must start with 'WEBVTT'"),
        ("WEBVTT\n\n00:00:05.000 --> 00:00:02.000\nbackwards\n", 3, "ends"),
        ("WEBVTT\nKind: captions\n00:00:01.000 --> 00:00:02.000\nhi\n", 3, "separated from the WEBVTT header"),
    ],
)
def test_malformed_vtt_names_file_and_line(text, line, fragment):
    doc = Document.from_text(text, path="talk.vtt")
    with pytest.raises(ChunkingError) as err:
        chunk_document(doc, "cues")
    assert str(err.value).startswith(f"talk.vtt: line {line}: ")
    assert fragment in str(err.value)


def test_malformed_srt_names_the_line():
    doc = Document.from_text(
        "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 -> 00:00:04,000\n", path="talk.srt"
    )
    with pytest.raises(
        ChunkingError,
        match=r"^talk.srt: line 6: expected the timing line 'start --> end' "
        r"after cue number 2$",
    ):
        chunk_document(doc, "cues")


def test_srt_holding_only_a_cue_number_says_its_timing_line_is_missing():
    doc = Document.from_text("1\n", path="talk.srt")
    with pytest.raises(ChunkingError) as err:
        chunk_document(doc, "cues")
    assert str(err.value) == "talk.srt: line 1: the timing line 'start --> end' after cue number 1 is missing"


def test_srt_block_without_number_or_timing_says_so():
    doc = Document.from_text("Hello there.\n00:00:01,000 --> 00:00:02,000\n", path="talk.srt")
    with pytest.raises(ChunkingError, match=r"^talk.srt: line 1: expected a cue number or a timing line"):
        chunk_document(doc, "cues")


def test_an_error_names_the_path_as_the_user_gave_it():
    doc = Document.from_text("1\n00:00:01,000 -> 00:00:02,000\nok\n", path="media/en/talk.srt")
    with pytest.raises(ChunkingError, match=r"^media/en/talk.srt: line 2: expected the timing line"):
        chunk_document(doc, "cues")


# As youtube-dl writes auto-captions: a cue's timing line follows the previous cue's
# text with no blank line between them (webvtt-py's youtube_dl.vtt has this shape).
YOUTUBE_DL_VTT = """WEBVTT
Kind: captions
Language: en
Style:
::cue(c.colorCCCCCC) { color: rgb(204,204,204);
 }
##


00:01:10.120 --> 00:01:10.500 align:start position:0%
right

00:01:10.500 --> 00:01:21.030 align:start position:0%
right
<c.colorCCCCCC>so</c>
00:01:21.030 --> 00:01:22.100 align:start position:0%
so<00:01:21.300><c> the</c><00:01:21.600><c> plan</c><c.colorCCCCCC><00:01:21.800><c> is</c></c>

00:01:22.100 --> 00:01:22.400 align:start position:0%
so the plan is
"""


def test_vtt_timing_line_right_after_cue_text_starts_a_new_cue():
    doc = Document.from_text(YOUTUBE_DL_VTT, path="auto.en.vtt")
    cues = parse_subtitles(doc).cues
    assert [(c.start, c.line) for c in cues] == [
        ("00:01:10.120", 10),
        ("00:01:10.500", 13),
        ("00:01:21.030", 16),
        ("00:01:22.100", 19),
    ]
    assert [c.text for c in cues] == ["right", "right\nso", "so the plan is", "so the plan is"]
    assert doc.text[cues[2].block_start :].startswith("00:01:21.030 --> ")
    assert cues[1].block_end == cues[2].block_start
    cs = chunk_document(doc, "cues", {"size": 20})
    check_offsets(cs)
    assert sum(c.metadata["cue_count"] for c in cs.chunks) == 4
    assert not any("-->" in c.context_text or c.metadata.get("oversized") for c in cs.chunks)


cue_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="<>&"), min_size=1, max_size=60
).filter(lambda t: t.strip() and "-->" not in t)


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(cue_text, max_size=15), size=st.integers(1, 150), crlf=st.booleans())
def test_generated_vtt_groups_cues_in_order_within_size(texts, size, crlf):
    nl = "\r\n" if crlf else "\n"
    blocks = [f"00:00:{i:02d}.000 --> 00:00:{i:02d}.500{nl}{t.strip()}" for i, t in enumerate(texts)]
    doc = Document.from_text(f"WEBVTT{nl}{nl}" + f"{nl}{nl}".join(blocks) + nl, path="gen.vtt")
    cs = chunk_document(doc, "cues", {"size": size})
    check_offsets(cs)
    assert sum(c.metadata["cue_count"] for c in cs.chunks) == len(texts)
    assert "\n".join(c.context_text for c in cs.chunks) == "\n".join(t.strip() for t in texts)
    for c in cs.chunks:
        assert len(c.context_text) <= size or (c.metadata["cue_count"] == 1 and c.metadata["oversized"])
    assert [g.reason for g in cs.gaps] == ["header"]


def test_thousands_of_back_to_back_cues_in_one_block_are_read():
    """Cues with no blank line between them form one block; its reader recursed once per cue and
    raised RecursionError from about 1,000 cues (found by review)."""
    lines = ["WEBVTT", ""]
    for i in range(5000):
        lines += [f"00:{i // 60 % 60:02d}:{i % 60:02d}.000 --> 00:{i // 60 % 60:02d}:{i % 60:02d}.500", f"cue {i}"]
    doc = Document.from_text("\n".join(lines) + "\n", path="long.vtt")
    assert len(parse_subtitles(doc).cues) == 5000
