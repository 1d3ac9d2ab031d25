"""Hostile inputs of issue 19: nesting past the recursion limit, special files behind every option,
unbounded YAML and sweep grids, wrongly typed chunks.yaml files, out-of-order subtitle cues and
parameters validated alike everywhere. Each case is one error line and exit 2, or a result that
keeps the offset invariant; never a traceback, a hang or memory without bound.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from chunktui.engine import all_strategies, chunk_document, get_strategy, load_document
from chunktui.engine.core.errors import DocumentError, ParamError
from chunktui.formats.profiles import load_profile, save_profile
from chunktui.formats.store import load_chunkset, save_chunkset
from support.cli import assert_clean_error
from support.cli import run as invoke
from support.invariants import check_invariants


class Hung(BaseException):
    """Not an OSError (as TimeoutError is), so no `except OSError` in the code under test takes it."""


@pytest.fixture
def no_hang():
    """A FIFO read blocks forever: fail the test after 30 s instead of hanging the run."""

    def timed_out(signum, frame):
        raise Hung("blocked reading a special file")

    old = signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- deep nesting


def nested_jsonl(depth: int) -> str:
    """Events of a JSONL log, one of them carrying a payload nested `depth` objects deep."""
    return (
        '{"ts": "2024-05-01T10:00:00Z", "level": "INFO", "msg": "start"}\n'
        '{"ts": "2024-05-01T10:00:01Z", "broken": ' + "[" * depth + "}\n"
        '{"ts": "2024-05-01T10:00:02Z", "payload": ' + '{"a": ' * depth + "1" + "}" * depth + "}\n"
        '{"trace": ' + "[" * depth + "]" * depth + ', "user": "x", "ts": "2024-05-01T10:00:03Z"}\n'
    )


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_jsonl_nested_past_the_recursion_limit_is_chunked(depth, work):
    path = work / "events.jsonl"
    path.write_text(nested_jsonl(depth))
    cs = chunk_document(load_document(path), "log", {})
    check_invariants(cs)
    meta = cs.chunks[0].metadata
    assert meta["json_keys"] == ["ts", "level", "msg", "payload", "trace", "user"]
    assert meta["json_invalid_lines"] == 1  # the unclosed one, as json.loads would say
    assert meta["ts_start"] == "2024-05-01T10:00:00Z" and meta["ts_end"] == "2024-05-01T10:00:03Z"
    code, out, err = invoke("chunk", path, "-o", work / "out")
    assert code == 0 and "Traceback" not in out + err, err


# --------------------------------------------------------------------------- special files


def special_file(work: Path, kind: str, keep: list) -> Path:
    """A FIFO, /dev/zero, a listening Unix socket or a folder, each with a name the tool would read."""
    if kind == "fifo":
        os.mkfifo(work / "notes.yaml")
        return work / "notes.yaml"
    if kind == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind("notes.json")  # relative: the work folder's path may pass the 108-byte limit of bind()
        keep.append(sock)
        return work / "notes.json"
    return Path("/dev/zero") if kind == "dev-zero" else work


def roles(doc: Path, good: Path, out: Path) -> dict:
    """Every command and option that reads a path, with that path as `{}`."""
    return {
        "chunk FILE": ("chunk", "{}", "-o", out),
        "chunk --profile": ("chunk", doc, "--profile", "{}", "-o", out),
        "chunk --facts": ("chunk", doc, "--facts", "{}", "-o", out),
        "chunk --dry-run --facts": ("chunk", "--dry-run", doc, "--facts", "{}"),
        "sweep FILE": ("sweep", "{}", "-s", "lines", "--size", "5,10", "--workers", "1"),
        "compare FILE": ("compare", "{}", "--a", good, "--b", good),
        "compare --a": ("compare", doc, "--a", "{}", "--b", good),
        "compare --b": ("compare", doc, "--a", good, "--b", "{}"),
        "inspect": ("inspect", "{}"),
        "open --profile": ("open", doc, "--profile", "{}"),
    }


ROLES = list(roles(Path(), Path(), Path()))


@pytest.mark.parametrize("special", ["fifo", "dev-zero", "socket", "folder"])
@pytest.mark.parametrize("role", ROLES)
def test_every_path_read_is_a_regular_file(role, special, work, no_hang, monkeypatch):
    """A pipe blocked forever and /dev/zero read until the OOM killer came, behind every option but
    `chunk FILE`; each is now one line naming it, before anything runs or is written."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    doc = work / "doc.md"
    doc.write_text("# Title\n\nSome text about backups.\n")
    good = save_profile(work / "good.yaml", "lines", {"size": 5, "overlap": 0})
    keep: list = []
    path = special_file(work, special, keep)
    args = [path if a == "{}" else a for a in roles(doc, good, work / "out")[role]]
    code, out, err = invoke(*args)
    for sock in keep:
        sock.close()
    if special == "folder" and role in ("chunk FILE", "inspect"):
        return  # a folder is a valid input of these two (a folder scan, an export folder)
    assert_clean_error(code, out, err, path)
    named = ("not a regular file (a pipe, socket or device)", "is a folder", "expected a chunks.yaml")  # last: by name
    assert any(problem in err for problem in named), err
    assert not started and not (work / "out").exists()


@pytest.mark.parametrize("role", ["chunk --profile", "chunk --facts", "compare --a", "open --profile"])
def test_side_files_over_the_small_file_limit_are_refused_unread(role, work, monkeypatch):
    """A profile or phrases file is at most 1 MB: a 1.5 MB one (a document passed by mistake) is one line."""
    started = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: started.append(kw) or 0)
    doc = work / "doc.md"
    doc.write_text("# Title\n\nSome text.\n")
    good = save_profile(work / "good.yaml", "lines", {"size": 5, "overlap": 0})
    big = work / "big.yaml"
    big.write_text("strategy: lines\nparams: {size: 5, overlap: 0}\n" + "# padding line of a comment\n" * 54_000)
    assert big.stat().st_size > 1_000_000  # the stated limit
    args = [big if a == "{}" else a for a in roles(doc, good, work / "out")[role]]
    code, out, err = invoke(*args)
    assert_clean_error(code, out, err, big)
    assert "1,000,000-byte limit" in err and not started


# --------------------------------------------------------------------------- YAML anchors and aliases


def laughs(levels: int, name: str = "l") -> str:
    """ "Billion laughs" in flow style: `levels` nested levels of nine aliases, one YAML value."""
    items = [f"&{name}0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        items.append(f"&{name}{i} [" + ", ".join([f"*{name}{i - 1}"] * 9) + "]")
    return "[" + ", ".join(items) + "]"


def field_lines(text: str) -> list[int]:
    """Indexes of the lines holding one `key: value` field (the fields of every mapping, nested too)."""
    return [
        i
        for i, line in enumerate(text.splitlines())
        if ": " in line and not line.lstrip().startswith(("#", "|")) and not line.endswith(": |")
    ]


def with_value(text: str, i: int, value: str) -> str:
    lines = text.splitlines()
    key = lines[i][: lines[i].index(": ") + 2]
    lines[i] = key + value
    return "\n".join(lines) + "\n"


@pytest.fixture
def saved(work) -> Path:
    src = work / "guide.md"
    src.write_text("# Guide\n\nFirst part.\n\n## More\n\nSecond part.\n")
    cs = chunk_document(load_document(src), "markdown", {"max_char": 30, "chunk_overlap": 5})
    assert cs.gaps == [] and len(cs.chunks) >= 2
    return save_chunkset(cs, work / "chunks.yaml")


@pytest.mark.parametrize("form", ["anchor", "laughs"])
def test_chunks_yaml_refuses_anchors_and_aliases_in_every_field(form, saved):
    """Each field of a real chunks.yaml in turn holds an anchor (harmless but unneeded) or a
    four-level billion-laughs value; every one is refused before a value is built, naming its line."""
    text = saved.read_text()
    assert load_chunkset(saved).chunkset.chunks  # the file as saved loads
    fields = field_lines(text)
    assert len(fields) > 40
    for i in fields:
        value = text.splitlines()[i].split(": ", 1)[1]
        saved.write_text(with_value(text, i, f"&x {value}" if form == "anchor" else laughs(4)))
        with pytest.raises(DocumentError, match=f"(anchor|alias) .* at line {i + 1}: anchors and aliases"):
            load_chunkset(saved)
    code, out, err = invoke("inspect", saved)
    assert_clean_error(code, out, err, saved)


PROFILE_FIELDS = ["strategy", "tokenizer", "params", "size", "overlap", "note"]


@pytest.mark.parametrize("field", PROFILE_FIELDS)
def test_profiles_refuse_aliases_in_every_field(field, work):
    """Nine levels of nine aliases took 1.8 GB in 40 s once an error message or the app showed the
    value; a profile has no use for aliases, so any is refused before a value is used. (Four levels
    here: refused alike, and harmless should the refusal ever go.)"""
    lines = {
        "strategy": "strategy: lines",
        "tokenizer": "tokenizer: cl100k_base",
        "params": "params:",
        "size": "  size: 5",
        "overlap": "  overlap: 0",
    }
    if field == "note":
        lines["note"] = "note: x"  # an unknown key: it used to be reported, value and all
    key = lines[field].split(":")[0]
    lines[field] = f"{key}: {laughs(4)}"
    if field == "params":
        del lines["size"], lines["overlap"]
    path = work / "profile.yaml"
    path.write_text("\n".join(lines.values()) + "\n")
    with pytest.raises(DocumentError, match="anchor &l0 at line [0-9]+: anchors and aliases are not allowed"):
        load_profile(path)
    doc = work / "doc.md"
    doc.write_text("# T\n\ntext\n")
    code, out, err = invoke("chunk", doc, "--profile", path, "-o", work / "out")
    assert_clean_error(code, out, err, path)
    assert not (work / "out").exists()


def test_an_alias_without_its_anchor_is_invalid_yaml(work):
    """The anchor check runs only on files holding "&" (no anchor without one): a lone alias is
    still refused, by the parser."""
    path = work / "profile.yaml"
    path.write_text("strategy: lines\nparams: *p\n")
    with pytest.raises(DocumentError, match="not valid YAML at line 2: found undefined alias"):
        load_profile(path)


# --------------------------------------------------------------------------- numbers and constraints

NOT_NUMBERS = ["١٢", "1_000", " 12", "12 ", "0x10", "1e3", "12.5", "++1"]


def profile_with_size(work: Path, raw: str) -> Path:
    path = work / "profile.yaml"
    path.write_text(f"strategy: lines\nparams:\n  size: {raw}\n  overlap: 0\n")
    return path


@pytest.mark.parametrize("raw", NOT_NUMBERS)
def test_whole_numbers_are_ascii_digits_everywhere(raw, work):
    """One rule for a flag, a profile, the app's fields and the commands' own numbers: ASCII digits
    with an optional sign. int() took " 12", "1_000" and "١٢" (and YAML took 1_000 and 0x10)."""
    doc = work / "doc.md"
    doc.write_text("# T\n\n" + "line\n" * 30)
    with pytest.raises(ParamError, match="--size: expected a whole number"):  # the app's controls and the API
        get_strategy("lines").validate({"size": raw, "overlap": 0})
    for args, flag in (
        (("chunk", doc, "-s", "lines", "--size", raw, "-o", work / "out"), "--size"),
        (("chunk", doc, "--budget", raw, "-o", work / "out"), "--budget"),
        (("sweep", doc, "-s", "lines", "--size", raw, "--workers", "1"), "--size"),
        (("sweep", doc, "-s", "lines", "--workers", raw), "--workers"),
        (("sweep", doc, "-s", "lines", "--min-tokens", raw), "--min-tokens"),
    ):
        code, out, err = invoke(*args)
        assert code == 2 and len(err.strip().splitlines()) == 1 and flag in err, (args, err)
        assert "Traceback" not in out + err and not (work / "out").exists()
    quoted = profile_with_size(work, f'"{raw}"')
    with pytest.raises(DocumentError, match="--size: expected a whole number"):
        load_profile(quoted)
    if raw == raw.strip():  # as YAML reads it unquoted (where spaces around a value are syntax)
        with pytest.raises(DocumentError, match="--size: expected a whole number"):
            load_profile(profile_with_size(work, raw))


def test_signs_and_leading_zeros_are_numbers(work):
    """The other side of the rule: `+12` and `012` are 12 (YAML 1.1 read 012 as octal 10)."""
    for raw in ("+12", "012", "12"):
        assert get_strategy("lines").validate({"size": raw, "overlap": 0})["chunk_lines"] == 12
        assert load_profile(profile_with_size(work, raw)).params["chunk_lines"] == 12
    with pytest.raises(DocumentError, match="--size: must be at least 1, got -3"):
        load_profile(profile_with_size(work, "-3"))


@pytest.mark.parametrize("strategy", ["markdown", "prose"])
def test_a_minimum_above_its_maximum_is_accepted_alike(strategy, work):
    """markdown took --min-char above --max-char and prose refused --min-tokens above --max-tokens;
    both now pack whatever fits under the maximum, from flags and from a profile alike."""
    doc = work / "guide.md"
    doc.write_text("".join(f"## Part {i}\n\n" + "word " * 30 + "\n\n" for i in range(12)))
    flags = {
        "markdown": ("--min-char", "900", "--max-char", "300"),
        "prose": ("--min-tokens", "900", "--max-tokens", "60"),
    }[strategy]
    code, out, err = invoke("chunk", doc, "-s", strategy, *flags, "-o", work / "out")
    assert code == 0 and not err.strip(), err
    params = dict(zip([f[2:].replace("-", "_") for f in flags[::2]], map(int, flags[1::2])))
    profile = save_profile(work / "p.yaml", strategy, params)
    cs = chunk_document(load_document(doc), strategy, load_profile(profile).params)
    check_invariants(cs)
    unit, limit = get_strategy(strategy).max_size(cs.params)
    assert all((c.chars if unit == "chars" else c.tokens) <= limit for c in cs.chunks) and len(cs.chunks) > 2


@pytest.mark.parametrize("raw", ["١٢MB", "1_000"])
def test_max_file_size_takes_ascii_digits(raw, work):
    doc = work / "doc.md"
    doc.write_text("# T\n\ntext\n")
    code, out, err = invoke("chunk", doc, "--max-file-size", raw, "-o", work / "out")
    assert_clean_error(code, out, err, Path("--max-file-size"))


CONSTRAINED = [(s.name, o) for s in all_strategies() for o in s.constraints]


@pytest.mark.parametrize(("strategy", "order"), CONSTRAINED, ids=[f"{s}:{o.low}<{o.high}" for s, o in CONSTRAINED])
def test_an_overlap_not_below_its_size_is_refused_by_every_entry_point(strategy, order, work):
    strat = get_strategy(strategy)
    size = int(strat.param(order.high).min or 1) + 9
    params = {**strat.defaults(), order.high: size, order.low: size}
    with pytest.raises(ParamError, match=f"must be smaller than {order.high} \\({size}\\), got {size}") as err:
        strat.validate(params)
    assert err.value.name == order.low
    doc = work / "doc.md"
    doc.write_text("# T\n\ntext\n")
    flags = [x for k in (order.low, order.high) for x in ("--" + k.replace("_", "-"), str(size))]
    code, out, err = invoke("chunk", doc, "-s", strategy, *flags, "-o", work / "out")
    assert_clean_error(code, out, err, Path("--" + order.low.replace("_", "-")))
    with pytest.raises(DocumentError, match=f"must be smaller than {order.high}"):
        load_profile(profile_of(work, strategy, {order.low: size, order.high: size}))


def profile_of(work: Path, strategy: str, params: dict) -> Path:
    path = work / "p.yaml"
    path.write_text(f"strategy: {strategy}\nparams:\n" + "".join(f"  {k}: {v}\n" for k, v in params.items()))
    return path


# --------------------------------------------------------------------------- sweep grids


def test_a_huge_sweep_range_is_counted_not_built(work):
    """`--size 1:100000000:1` built 100 million values (3.9 GB) before refusing them; the range is
    now counted first. Two million values here: 80 MB built, under 1 MB counted."""
    import tracemalloc

    from chunktui.engine.analysis.sweep import parse_range

    tracemalloc.start()
    try:
        with pytest.raises(ParamError, match="makes 2,?000,?000 values; at most 1,?000"):
            parse_range("1:2000000:1")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak
    doc = work / "doc.md"
    doc.write_text("# T\n\ntext\n")
    code, out, err = invoke("sweep", doc, "-s", "lines", "--size", "1:100000000:1")
    assert_clean_error(code, out, err, Path("--size"))
    assert "100,000,000 values" in err


def test_a_sweep_grid_over_the_cell_limit_is_refused_before_it_runs(work):
    """1,000 sizes x 1,000 overlaps is a million runs of the whole document: refused, saying so,
    before any cell is planned or run (is_cancelled is never asked)."""
    from chunktui.engine.analysis.sweep import sweep

    doc = work / "doc.md"
    doc.write_text("# T\n\ntext\n")
    asked = []
    with pytest.raises(ParamError, match="the grid has 10,000 configurations .*; at most 2,000"):
        sweep(
            load_document(doc),
            ["lines"],
            list(range(1, 101)),
            list(range(100)),
            is_cancelled=lambda: asked.append(1) or True,
        )
    assert not asked
    assert sweep(load_document(doc), ["lines", "fixed"], [50, 100], [0, 10]).cells  # a small grid still runs
    code, out, err = invoke("sweep", doc, "-s", "lines", "--size", "1:1000:1", "--overlap", "0:999:1")
    assert_clean_error(code, out, err, Path("--size"))
    assert "1,000,000 configurations" in err


# --------------------------------------------------------------------------- subtitles out of order

SHUFFLED_SRT = """1
00:00:05,000 --> 00:00:06,500
Welcome back to the show.

2
00:00:01,000 --> 00:00:02,000
(an intro cue pasted at the end of an edit)

3
00:00:07,000 --> 00:00:09,000
Today: backups that restore.

4
00:00:03,000 --> 00:00:04,000
Earlier again.
"""


@pytest.mark.parametrize("size", [1200, 60])
def test_out_of_order_cues_keep_file_order_and_a_true_time_range(size, work):
    """Cues at 00:00:05 then 00:00:01 made a chunk that ended before it started (ts_start 00:00:05,
    ts_end 00:00:02). Chunks keep file order; each spans its cues' earliest start to latest end, and
    one warning names the first cue out of order."""
    path = work / "episode.srt"
    path.write_text(SHUFFLED_SRT)
    cs = chunk_document(load_document(path), "cues", {"size": size})
    check_invariants(cs)
    assert [cid for c in cs.chunks for cid in c.metadata["cue_ids"]] == ["1", "2", "3", "4"]
    for c in cs.chunks:
        assert c.metadata["ts_start"] <= c.metadata["ts_end"] and c.metadata["start_ms"] <= c.metadata["end_ms"]
        assert c.boundary_label == f"{c.metadata['ts_start']} --> {c.metadata['ts_end']}"
    if size == 1200:
        (one,) = cs.chunks
        assert (one.metadata["ts_start"], one.metadata["ts_end"]) == ("00:00:01.000", "00:00:09.000")
    assert [w for w in cs.warnings if "out of order" in w] == [
        "cues out of order: cue 2 (line 6) starts at 00:00:01.000, before the cue above it (00:00:05.000); "
        "chunks keep file order, each timed from its earliest start to its latest end"
    ]
    code, out, err = invoke("chunk", path, "-o", work / "out")
    assert code == 0 and err.count("chunktui: warning: cues out of order: cue 2 (line 6)") == 1, err


def test_cues_in_order_give_no_warning(work):
    path = work / "ordered.srt"
    path.write_text("1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:02,000 --> 00:00:03,000\nB\n")
    assert not chunk_document(load_document(path), "cues", {}).warnings


# --------------------------------------------------------------------------- chunks.yaml field types


def set_at(data: dict, where: str, value) -> None:
    """Set the field at `where` (`chunks[1].tokens`, `source.path`, `params`) in loaded YAML data."""
    *parents, last = where.replace("[", ".").replace("]", "").split(".")
    node = data
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    node[int(last) if last.isdigit() else last] = value


HOSTILE_FIELDS = [  # (field, value, what the one error line says after the field's name)
    ("params", "x", "expected a mapping, got 'x'"),
    ("source.path", 12345, "expected text, got 12345"),
    ("source.lines", "many", "expected a whole number, got 'many'"),
    ("source.chars", -1, "must be at least 0, got -1"),
    ("strategy", ["markdown"], "expected text, got a list"),
    ("tokenizer", 5, "expected text, got 5"),
    ("warnings", "oops", "expected a list of text, got 'oops'"),
    ("notes", [1, 2], "expected a list of text, got a list"),
    ("gaps", "none", "expected a list, got 'none'"),
    ("chunks[0]", 5, "expected a mapping, got 5"),
    ("chunks[0].start_char", "x", "expected a whole number, got 'x'"),
    ("chunks[0].start_char", 1.5, "expected a whole number, got 1.5"),
    ("chunks[0].end_char", True, "expected a whole number, got True"),
    ("chunks[0].text", 42, "expected text, got 42"),
    ("chunks[0].sha256", None, "missing"),
    ("chunks[0].start_line", -3, "must be at least 1, got -3"),
    ("chunks[0].start_line", 0, "must be at least 1, got 0"),
    ("chunks[1].end_line", 10**9, "1000000000 is past the source's last line (7)"),
    ("chunks[1].tokens", -1, "must be at least 0, got -1"),
    ("chunks[1].start_byte", -1, "must be at least 0, got -1"),
    ("chunks[1].start_byte", 10**9, "1000000000 is past end_byte ("),
    ("chunks[1].overlap_start_chars", -2, "must be at least 0, got -2"),
    ("chunks[1].metadata", [1, 2], "expected a mapping, got a list"),
    ("chunks[1].context_text", {"a": 1}, "expected text, got a mapping"),
    ("chunks[1].boundary_label", 7, "expected text, got 7"),
]


@pytest.mark.parametrize("source", ["kept", "deleted"])
@pytest.mark.parametrize(
    ("field", "value", "problem"), HOSTILE_FIELDS, ids=[f"{f}={v!r}"[:40] for f, v, _ in HOSTILE_FIELDS]
)
def test_chunks_yaml_fields_are_checked_for_type_and_range(field, value, problem, source, saved):
    """`params: x` raised ValueError and `source: {path: 12345}` TypeError (tracebacks); negative or
    huge numbers were taken silently. Each is one error naming the file and the field."""
    import yaml

    data = yaml.safe_load(saved.read_text())
    set_at(data, field, value)
    saved.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    if source == "deleted":
        (saved.parent / "guide.md").unlink()
    with pytest.raises(DocumentError) as err:
        load_chunkset(saved)
    name = field.replace("chunks[0].", "chunks[0] (chunk-0001).").replace("chunks[1].", "chunks[1] (chunk-0002).")
    assert str(err.value).startswith(f"{saved}: {name}: {problem}")
    code, out, err = invoke("inspect", saved)
    assert_clean_error(code, out, err, saved)


@pytest.mark.parametrize("source", ["kept", "deleted"])
def test_chunks_yaml_duplicate_ids_and_gaps_past_the_source_are_refused(source, saved):
    import yaml

    data = yaml.safe_load(saved.read_text())
    if source == "deleted":
        (saved.parent / "guide.md").unlink()
    chars = data["source"]["chars"]
    twin = {**data, "chunks": [data["chunks"][0], {**data["chunks"][1], "id": data["chunks"][0]["id"]}]}
    saved.write_text(yaml.safe_dump(twin, sort_keys=False))
    with pytest.raises(DocumentError, match=r"chunks\[1\] \(chunk-0001\): id 'chunk-0001' is used by an earlier chunk"):
        load_chunkset(saved)
    past = {
        **data,
        "gaps": [
            {
                "start_char": chars - 1,
                "end_char": chars + 500,
                "start_line": 1,
                "end_line": 1,
                "reason": "uncovered",
                "newlines": 0,
            }
        ],
    }
    saved.write_text(yaml.safe_dump(past, sort_keys=False))
    with pytest.raises(DocumentError, match=rf"gaps\[0\]: offsets {chars - 1}:{chars + 500} fall outside the source"):
        load_chunkset(saved)


def test_chunks_yaml_source_length_past_its_chunks_and_gaps_is_refused(saved):
    """With the source gone, `source: {chars: 10^12}` made a terabyte of blank filler (MemoryError,
    a traceback); chunks and gaps cover the whole source, so a length past them is refused."""
    import yaml

    data = yaml.safe_load(saved.read_text())
    (saved.parent / "guide.md").unlink()
    data["source"]["chars"] = 10**12
    saved.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(DocumentError, match=r"source.chars: 1,000,000,000,000 is past the last chunk or gap"):
        load_chunkset(saved)
