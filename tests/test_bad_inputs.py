"""Broken and hostile inputs (issue 8): every strategy and every command answers each one with
a result that keeps the offset invariant or with one clear error. Never a traceback, never a
crash of another kind, never a half-written output folder.

The catalogue below states, per input, what a user gets: "result" (the file loads and chunks)
or "error" (a ChunktuiError from the engine; exit 2 and one stderr line naming the file from
the CLI). Strategies made for one kind (Strategy.kinds) may refuse text of another kind with a
ChunkingError; any other exception is a bug. The 20 MB one-line file runs with CHUNKTUI_SLOW=1
(`make fuzz`); the default run uses 96 KB.
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from chunktui.engine import all_strategies, chunk_document, load_document
from chunktui.engine.core.errors import ChunkingError, ChunktuiError, DocumentError
from chunktui.formats.profiles import save_profile
from chunktui.formats.store import load_chunkset, save_chunkset
from support.cli import SENTINEL, assert_clean_error
from support.cli import run as invoke
from support.invariants import check_invariants

STRATEGIES = all_strategies()
# 96 KB is past every size under 512 KB where the reading or counting changes (64 KB: the token
# index's INDEX_MIN_CHARS and SMALL_TEXT_BUDGET; 512 KB: logs' read window and the index's parallel
# encode, which the 20 MB file reaches); CHUNKTUI_SLOW makes it 20 MB
LONG_LINE_BYTES = 20_000_000 if os.environ.get("CHUNKTUI_SLOW") else 96 * 1024


def png() -> bytes:
    """A real 1x1 PNG: signature, IHDR, IDAT and IEND chunks."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def elf() -> bytes:
    """The 64-byte header of an x86-64 ELF executable, then some code-like bytes."""
    return (
        b"\x7fELF\x02\x01\x01\x00"
        + b"\x00" * 8
        + struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, 0x401000, 64, 0, 0, 64, 56, 1, 64, 0, 0)
        + bytes(range(256))
    )


def chunks_yaml_out_of_range(tmp: Path) -> bytes:
    """A chunks.yaml saved from a real source, then edited so its last chunk ends past the source's end."""
    src = tmp / "source.md"
    src.write_text("# Title\n\nfirst paragraph\n\nsecond paragraph\n")
    cs = chunk_document(load_document(src), "lines", {"size": 2, "overlap": 0})
    saved = save_chunkset(cs, tmp / "saved.yaml")
    text = saved.read_text()
    last = text.rindex("end_char:")
    eol = text.index("\n", last)
    broken = text[:last] + "end_char: 999999" + text[eol:]
    saved.unlink()
    return broken.encode()


@dataclass(frozen=True)
class Case:
    name: str
    filename: str
    expected: str  # "result" or "error": what load_document (and so every strategy and `chunk`) gives
    content: object  # bytes, or a function of the work folder returning bytes
    why: str = ""
    refused_by: frozenset = frozenset()  # strategies made for this kind that refuse it with one ChunkingError


def long_line() -> bytes:
    return (b"lorem ipsum dolor " * (LONG_LINE_BYTES // 18 + 1))[:LONG_LINE_BYTES]


def nested_headings() -> bytes:
    """3,000 headings (82 KB): more sections than the recursion limit, text past the token index's 64 KB."""
    return "".join("#" * (i % 6 + 1) + f" Heading {i}\n\ntext {i}\n\n" for i in range(3_000)).encode()


SAMPLE = "Héllo wörld, naïve café.\nSecond line - with a dash.\n"
MAIL = (
    b"From alice@example.com Mon Jan  1 00:00:00 2024\n"
    b"From: =?klingon?Q?Al=FFice?= <alice@example.com\n"
    b"Subject: =?utf-8?B?not-base64!!?=\n"
    b'Content-Type: text/plain; charset="no-such-charset"\n'
    b"Content-Transfer-Encoding: quoted-printable\n"
    b"this header line has no colon\n"
    b"Date: yesterday-ish\n\n"
    b"Body with a bad byte \xff and =ZZ soft break=\n\n"
    b"From bob Tue\n"
    b"Subject:\n\n"
    b"second body\n"
)

CASES = [
    Case("empty", "empty.txt", "result", b"", "nothing to chunk: zero chunks"),
    Case("whitespace", "blank.md", "result", b"  \n\t\n   \n\r\n", "only whitespace"),
    Case("long-line", "long.txt", "result", long_line, "one line, no newline"),
    Case("png", "image.png", "error", png(), "binary: NUL bytes"),
    Case("gzip", "data.txt.gz", "error", gzip.compress(b"hello world\n" * 100, mtime=0), "binary"),
    Case("elf", "program", "error", elf(), "binary"),
    Case("utf16-bom", "u16.txt", "result", SAMPLE.encode("utf-16"), "decoded by its BOM"),
    Case("utf16-nobom", "u16le.txt", "error", SAMPLE.encode("utf-16-le"), "NUL bytes without a BOM: binary"),
    Case("utf32-bom", "u32.txt", "result", SAMPLE.encode("utf-32"), "decoded by its BOM"),
    Case("utf32-nobom", "u32le.txt", "error", SAMPLE.encode("utf-32-le"), "NUL bytes without a BOM: binary"),
    Case("utf16-bom-truncated", "u16cut.txt", "error", SAMPLE.encode("utf-16")[:-1], "odd byte after the BOM"),
    Case("latin1", "latin1.txt", "result", SAMPLE.encode("latin-1"), "read as Latin-1 with a warning"),
    Case("gb2312", "chinese.txt", "result", "中文文本，第二句。\n第三行\n".encode("gb2312"), "read as Latin-1"),
    Case(
        "bad-utf8-mid",
        "mid.md",
        "result",
        b"# ok\n\ngood text\n" + b"\xff\xfe\x80\xc3" + b" more\n",
        "read as Latin-1 with a warning",
    ),
    Case("mixed-newlines", "mixed.txt", "result", b"one\r\ntwo\nthree\rfour\r\n\r\nfive\r\rsix\n"),
    Case("nul-early", "nul.txt", "error", b"some text\x00more text\n", "a NUL in the first block: binary"),
    Case(
        "nul-late",
        "nul-late.txt",
        "result",
        b"text line\n" * 1000 + b"after\x00the probe\n",
        "a NUL after the first 8 KB is kept as a character",
    ),
    Case("nested-headings", "deep.md", "result", nested_headings, "3,000 headings, levels 1-6 nested"),
    Case(
        "deep-nesting",
        "deep-nest.md",
        "result",
        b">" * 10_000 + b" # quoted heading\n" + b"[" * 10_000 + b"(" * 10_000 + b"\n" + b"- " * 5_000 + b"item\n",
        "10,000-deep quotes, brackets and lists on three lines",
    ),
    Case("bad-python", "broken.py", "result", b"def f(:\n    return ]\nclass\n\nx = (1,\nprint('ok')\n"),
    Case("bad-typescript", "broken.ts", "result", b"function (( {\n  let x = ;\n}}}\nexport class {\n"),
    Case(
        "vtt-bad-timestamps",
        "bad.vtt",
        "result",
        b"WEBVTT\n\n00:00:xx.000 --> 00:00:02.000\nhello\n\n00:00:05.000 --> 00:00:03.000\nbackwards\n",
        refused_by=frozenset({"cues", "auto"}),
    ),
    Case(
        "vtt-missing-text",
        "notext.vtt",
        "result",
        b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n\n00:00:03.000 --> 00:00:04.000\n",
    ),
    Case("vtt-no-cues", "empty.vtt", "result", b"WEBVTT\n\n"),
    Case(
        "srt-bad-timestamps",
        "bad.srt",
        "result",
        b"1\n00:00:01,000 --> nonsense\nhello\n\n2\n99:99:99,999 --> 00:00:01,000\nworld\n",
        refused_by=frozenset({"cues", "auto"}),
    ),
    Case("srt-missing-text", "notext.srt", "result", b"1\n00:00:01,000 --> 00:00:02,000\n\n2\n"),
    Case(
        "srt-no-cues",
        "empty.srt",
        "result",
        b"just some words, no cue at all\n",
        refused_by=frozenset({"cues", "auto"}),
    ),
    Case(
        "vtt-cr-newlines",
        "mac.vtt",
        "result",
        b"WEBVTT\r\r00:00:01.000 --> 00:00:02.000\rhi\r",
        "CR-only line ends: cues says so",
        refused_by=frozenset({"cues", "auto"}),
    ),
    Case(
        "srt-cr-newlines",
        "mac.srt",
        "result",
        b"1\r00:00:01,000 --> 00:00:02,000\rhi\r\r",
        "CR-only line ends: cues says so",
        refused_by=frozenset({"cues", "auto"}),
    ),
    Case("mbox-broken", "broken.mbox", "result", MAIL, "broken headers, unknown charsets, a bad byte"),
    Case("csv-ragged", "ragged.csv", "result", b'a,b,c\n1,2\n3,4,5,6\n\n"unterminated,7\n8\n'),
    Case("yaml-not-chunks", "config.yaml", "result", b"name: thing\nlist: [1, 2]\nnested: {a: b}\n"),
    Case(
        "yaml-python-tag",
        "evil.yaml",
        "result",
        f"source: !!python/object/apply:os.system ['touch {SENTINEL}']\nchunks: []\n".encode(),
        "plain text to the chunkers; never executed",
    ),
    Case(
        "chunks-yaml-out-of-range",
        "chunks.yaml",
        "result",
        chunks_yaml_out_of_range,
        "chunks as text; `inspect` refuses it",
    ),
    Case("path-spaces-non-ascii", "my dir/naïve 文档 file.md", "result", b"# T\n\nSome text.\n"),
]
CASE_IDS = [c.name for c in CASES]


def make(case: Case, tmp: Path) -> Path:
    path = tmp / case.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        case.content(tmp)
        if case.name == "chunks-yaml-out-of-range"
        else case.content()
        if callable(case.content)
        else case.content
    )
    return path


# --------------------------------------------------------------------------- engine


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_load_document(case, work):
    path = make(case, work)
    if case.expected == "error":
        with pytest.raises(DocumentError) as err:
            load_document(path)
        assert str(path) in str(err.value)
    else:
        doc = load_document(path)
        assert doc.text or not doc.text.strip()


@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize(
    "case", [c for c in CASES if c.expected == "result"], ids=[c.name for c in CASES if c.expected == "result"]
)
def test_every_strategy(case, strategy, work):
    doc = load_document(make(case, work))
    try:
        cs = chunk_document(doc, strategy.name, {})
    except ChunkingError as exc:
        assert strategy.name in case.refused_by or strategy.kinds and doc.kind not in strategy.kinds, (
            f"{strategy.name} refused {case.name} ({doc.kind}) although made for it: {exc}"
        )
        assert str(exc).strip() and "\n" not in str(exc).strip()
        return
    assert strategy.name not in case.refused_by, f"{strategy.name} was expected to refuse {case.name}"
    check_invariants(cs)


def small_params(strategy) -> dict:
    """Small chunks (and some overlap) so broken input meets many boundaries, not one big chunk."""
    params = {p.name: int(p.min or 0) for p in strategy.params if p.name.startswith("min_") and p.type == "int"}
    if strategy.size_param:
        size = strategy.param(strategy.size_param)
        params[strategy.size_param] = max(int(size.min or 0), 24)
    if strategy.overlap_param:
        params[strategy.overlap_param] = 1 if strategy.overlap_param.endswith(("_lines", "_emails")) else 4
    return strategy.validate(params) and params


SMALL_CASES = [c for c in CASES if c.expected == "result" and c.name != "long-line"]  # 2 MB took 24 s: slow, no news


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s.size_param], ids=lambda s: s.name)
@pytest.mark.parametrize("case", SMALL_CASES, ids=[c.name for c in SMALL_CASES])
def test_every_strategy_small_chunks(case, strategy, work):
    doc = load_document(make(case, work))
    try:
        cs = chunk_document(doc, strategy.name, small_params(strategy))
    except ChunkingError as exc:
        assert strategy.name in case.refused_by or strategy.kinds and doc.kind not in strategy.kinds, (
            f"{strategy.name} refused {case.name} ({doc.kind}) although made for it: {exc}"
        )
        return
    assert strategy.name not in case.refused_by
    check_invariants(cs)


# --------------------------------------------------------------------------- CLI


def chunk_expectation(case: Case) -> str:
    """`chunk` runs `auto`, which picks a strategy made for the file's kind."""
    return "error" if "auto" in case.refused_by else case.expected


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_chunk(case, work):
    path = make(case, work)
    out_dir = work / "out"
    code, out, err = invoke("chunk", path, "-o", out_dir, "-f", "json")
    assert "Traceback" not in out + err
    if chunk_expectation(case) == "error":
        assert_clean_error(code, out, err, path)
        assert not out_dir.exists(), "nothing half-written"
        assert not [p for p in work.iterdir() if p.name.startswith(".out") or p.name.startswith("out")]
    else:
        assert code == 0, err
        assert (out_dir / "manifest.json").is_file() and (out_dir / "chunks.json").is_file()


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_dry_run(case, work):
    path = make(case, work)
    before = sorted(work.rglob("*"))
    code, out, err = invoke("chunk", "--dry-run", path, "-o", work / "out")
    assert sorted(work.rglob("*")) == before, "a dry run writes nothing"
    if chunk_expectation(case) == "error":
        assert_clean_error(code, out, err, path)
    else:
        assert code == 0, err
        assert "Nothing written." in out


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_sweep(case, work):
    path = make(case, work)
    code, out, err = invoke(
        "sweep", path, "-s", "recursive,lines", "--size", "64,256", "--workers", "1", "--format", "csv"
    )
    if case.expected == "error":
        assert_clean_error(code, out, err, path)
    else:
        assert code == 0, err
        assert "Traceback" not in out + err
        assert out.splitlines()[0].startswith(("strategy", "rank")) and len(out.splitlines()) >= 2, out


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_compare(case, work):
    path = make(case, work)
    a = save_profile(work / "a.yaml", "lines", {"size": 5, "overlap": 0})
    b = save_profile(work / "b.yaml", "fixed", {"size": 200, "overlap": 0})
    code, out, err = invoke("compare", path, "--a", a, "--b", b)
    if case.expected == "error":
        assert_clean_error(code, out, err, path)
    else:
        assert code == 0, err
        assert "Traceback" not in out + err and out.strip()


INSPECT_OK = {"chunks.yaml"}


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_inspect(case, work):
    """`inspect` reads only chunks files; anything else, hostile YAML included, is one clear error."""
    path = make(case, work)
    code, out, err = invoke("inspect", path)
    assert_clean_error(code, out, err, path)


@pytest.mark.parametrize(
    "first_start", [None, "-5", "50"], ids=["end-past-source", "negative-start", "start-after-end"]
)
@pytest.mark.parametrize("source", ["kept", "deleted"])
def test_chunks_yaml_out_of_range_is_refused_by_the_loader(first_start, source, work):
    """Offsets outside the source are refused, whether the source is there or rebuilt from the chunks."""
    case = next(c for c in CASES if c.name == "chunks-yaml-out-of-range")
    path = make(case, work)
    if first_start is not None:
        path.write_text(path.read_text().replace("start_char: 0\n", f"start_char: {first_start}\n", 1))
    if source == "deleted":
        (work / "source.md").unlink()
    with pytest.raises(DocumentError) as err:
        load_chunkset(path)
    assert str(path) in str(err.value) and "chunk-000" in str(err.value)
    code, out, err = invoke("inspect", path)
    assert_clean_error(code, out, err, path)


def test_python_tags_are_never_constructed(work):
    case = next(c for c in CASES if c.name == "yaml-python-tag")
    path = make(case, work)
    with pytest.raises(ChunktuiError):
        load_chunkset(path)
    code, out, err = invoke("chunk", "--profile", path, work / "evil.yaml", "-o", work / "out")
    assert_clean_error(code, out, err, path)
    assert not (work / "out").exists()


SIDE_FILES = {  # a profile or phrases file the user passes beside the document
    "python-tag": f"!!python/object/apply:os.system ['touch {SENTINEL}']\n".encode(),
    "invalid-yaml": b": : :\n  - [\n",
    "not-a-profile": b"name: thing\n",
    "params-not-a-mapping": b"strategy: lines\nparams: [1, 2]\n",
    "param-out-of-range": b"strategy: lines\nparams: {size: -3}\n",
    "binary": png(),
}


@pytest.mark.parametrize("kind", list(SIDE_FILES))
@pytest.mark.parametrize("role", ["chunk --profile", "compare --a", "chunk --facts"])
def test_hostile_profiles_and_phrase_files(role, kind, work):
    """A bad --profile, compare profile or --facts file is one clear error naming it; nothing runs or is written."""
    doc = work / "doc.md"
    doc.write_text("# T\n\nSome text.\n")
    side = work / f"side {kind}.yaml"
    side.write_bytes(SIDE_FILES[kind])
    good = save_profile(work / "good.yaml", "lines", {"size": 5, "overlap": 0})
    if role == "compare --a":
        args = ("compare", doc, "--a", side, "--b", good)
    elif role == "chunk --profile":
        args = ("chunk", doc, "--profile", side, "-o", work / "out")
    else:
        args = ("chunk", doc, "--facts", side, "-o", work / "out")
    code, out, err = invoke(*args)
    if role == "chunk --facts" and kind != "binary":
        assert code == 0, err  # any text is a list of phrases, one a line
        return
    assert_clean_error(code, out, err, side)
    assert not (work / "out").exists()


def test_default_output_folder_for_a_path_with_spaces_and_non_ascii(work):
    path = make(next(c for c in CASES if c.name == "path-spaces-non-ascii"), work)
    code, out, err = invoke("chunk", path)
    assert code == 0, err
    assert (work / "chunks" / "naïve 文档 file-md" / "manifest.json").is_file()
    assert "chunks/naïve 文档 file-md/" in out


def test_strategies_command_lists_every_strategy():
    code, out, err = invoke("strategies")
    assert code == 0 and not err
    names = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert [n.split(" ")[0] for n in names] == [s.name for s in STRATEGIES]


@pytest.mark.parametrize("name", ["latin1", "gb2312", "bad-utf8-mid"])
def test_undecodable_utf8_is_read_as_latin1_with_a_warning(name, work):
    """Every byte is kept (one char per byte, so byte offsets are the file's) and the user is told."""
    case = next(c for c in CASES if c.name == name)
    path = make(case, work)
    doc = load_document(path)
    assert doc.encoding == "latin-1" and doc.text.encode("latin-1") == path.read_bytes()
    assert len(doc.warnings) == 1 and str(path) in doc.warnings[0]
    code, out, err = invoke("chunk", path, "-s", "lines", "-o", work / "out")
    assert code == 0 and "chunktui: warning:" in err and "not valid UTF-8" in err


DEFAULT_READING = {"html": "main", "password": None}  # what `chunktui FILE` passes the app without --html/--password


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cli_open_refuses_binary_before_the_app_starts(case, work, monkeypatch):
    """`chunktui FILE` refuses a binary file with one line; text (even undecodable) reaches the app,
    which reports decode errors itself."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    path = make(case, work)
    code, out, err = invoke(path)
    binary = case.expected == "error" and b"\x00" in path.read_bytes()[:8192] and not case.name.endswith("truncated")
    if binary:
        assert_clean_error(code, out, err, path)
        assert not started
    else:
        assert code == 0 and started == [{"path": str(path), "profile": None, "reader_options": DEFAULT_READING}], err


@pytest.mark.parametrize("name", ["vtt-cr-newlines", "srt-cr-newlines"])
def test_subtitles_with_cr_only_line_ends_are_named_as_such(name, work):
    """Not 'must start with WEBVTT' (it does): the message names the real problem."""
    path = make(next(c for c in CASES if c.name == name), work)
    code, out, err = invoke("chunk", path, "-o", work / "out")
    assert_clean_error(code, out, err, path)
    assert "line 1: lines end in a lone CR" in err


def test_boms_are_what_decide_utf16_and_utf32(work):
    for case in CASES:
        if case.name in ("utf16-bom", "utf32-bom"):
            assert load_document(make(case, work)).text == SAMPLE
