"""Every strategy's defaults fit the default token budget on real documents (issue 15).

A first open of a normal file must not be all red: with its defaults, no strategy makes a chunk
whose embedded text is over `DEFAULT_BUDGET` tokens unless that chunk is one unit the strategy
cannot split (flagged oversized). The strategies sized in lines (lines, adaptive, semantic) cap
their chunks at `max_tokens` (the budget) by default; `code-toplevel` takes whole definitions and
is the one named here, and the last test checks that it still is the only one that goes over.

Beside the samples: services.conf is Debian's /etc/services (netbase), iso_15924.xml Debian's
/usr/share/xml/iso-codes/iso_15924.xml, node_fs_filehandle.md an excerpt of Node's fs.md: under
`auto` (semantic, 200 lines) the first two were 2 of 2 and 7 of 7 chunks over budget.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from chunktui.engine import chunk_document, load_document
from chunktui.engine.strategies import all_strategies
from chunktui.engine.core.tokens import DEFAULT_BUDGET

SAMPLES = Path(__file__).parent.parent / "sample_docs"
FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE_FILES = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md") + [
    FIXTURES / "services.conf",
    FIXTURES / "iso_15924.xml",
    FIXTURES / "node_fs_filehandle.md",
]
NOT_TOKEN_SIZED = {"code-toplevel"}


def over_budget(strategy, path: Path, params: dict | None = None) -> list[tuple[int, int]]:
    """(chunk index, tokens) of the chunks over the default budget that are not flagged oversized."""
    doc = load_document(path)
    if strategy.kinds and doc.kind not in strategy.kinds:
        return []
    cs = chunk_document(doc, strategy.name, params)
    return [
        (i, c.embed_tokens)
        for i, c in enumerate(cs.chunks)
        if c.embed_tokens > DEFAULT_BUDGET and not c.metadata.get("oversized")
    ]


@pytest.mark.parametrize("name", sorted(s.name for s in all_strategies() if s.name not in NOT_TOKEN_SIZED))
def test_defaults_fit_the_default_budget_on_every_sample(name):
    strategy = next(s for s in all_strategies() if s.name == name)
    over = {p.name: found for p in SAMPLE_FILES if (found := over_budget(strategy, p))}
    assert over == {}


UNIT_CHOICES = sorted(
    (s.name, unit)
    for s in all_strategies()
    if s.name not in NOT_TOKEN_SIZED
    for p in s.params
    if p.name == "unit"
    for unit in p.choices
)


@pytest.mark.parametrize("name, unit", UNIT_CHOICES)
def test_defaults_fit_the_default_budget_in_every_unit(name, unit):
    """`--unit tokens` (or lines) alone: the default size is read in that unit, so it must fit too.
    1000 characters read as 1000 tokens were 81 of 87 chunks over budget on a Debian copyright file."""
    strategy = next(s for s in all_strategies() if s.name == name)
    over = {p.name: found for p in SAMPLE_FILES if (found := over_budget(strategy, p, {"unit": unit}))}
    assert over == {}


def test_a_first_open_of_every_sample_is_within_the_budget():
    """`auto` is what the app and the command line run on a file first."""
    for path in SAMPLE_FILES:
        cs = chunk_document(load_document(path), "auto")
        assert max(c.embed_tokens for c in cs.chunks) <= DEFAULT_BUDGET, path.name


def test_only_code_toplevel_goes_over():
    went_over = {s.name for s in all_strategies() if any(over_budget(s, p) for p in SAMPLE_FILES)}
    assert went_over == NOT_TOKEN_SIZED


@pytest.mark.parametrize("name", ["textwrap.py", "shutil.py", "pprint.py", "base64.py", "stat.py"])
def test_code_defaults_fit_the_budget_with_the_context_they_are_embedded_with(name):
    """The budget judges what is embedded: a code chunk with its scope, signatures and imports.
    At 1500 bytes these standard-library modules gave chunks of 533-615 embedded tokens."""
    path = Path(textwrap.__file__).parent / name
    cs = chunk_document(load_document(path), "code")
    assert [
        (c.index, c.embed_tokens)
        for c in cs.chunks
        if c.embed_tokens > DEFAULT_BUDGET and not c.metadata.get("oversized")
    ] == []


def test_data_rows_defaults_fit_the_budget_with_the_header_they_are_embedded_with():
    """Every data-rows chunk after the first embeds the header too, and dense numeric rows are about
    two characters a token: at 1000 characters a sensor log's chunks embedded 687 tokens (519-566 on
    numpy's test tables)."""
    import random

    from chunktui.engine import Document

    rng = random.Random(3)
    rows = ["sensor_id,timestamp,temperature_c,humidity_pct,pressure_hpa,checksum"]
    for i in range(400):
        rows.append(
            f"{rng.randrange(16**6):06x},2025-03-{1 + i // 96:02d}T{i % 24:02d}:{rng.randrange(60):02d}:"
            f"{rng.randrange(60):02d}Z,{rng.uniform(-10, 35):.3f},{rng.uniform(5, 95):.2f},"
            f"{rng.uniform(980, 1040):.1f},0x{rng.randrange(16**8):08x}"
        )
    cs = chunk_document(Document.from_text("\n".join(rows) + "\n", path="readings.csv"), "data-rows")
    assert len(cs.chunks) > 20
    assert [(c.index, c.embed_tokens) for c in cs.chunks if c.embed_tokens > DEFAULT_BUDGET] == []


def test_unit_tokens_alone_sizes_chunks_in_tokens_from_the_command_line(tmp_path):
    """`-s recursive --unit tokens` read the character defaults (1000, overlap 200) as tokens: 81
    of 87 chunks over budget on a Debian copyright file. A size given is kept as given."""
    from support.cli import run

    source = FIXTURES / "services.conf"
    code, out, err = run("chunk", source, "-s", "recursive", "--unit", "tokens", "-o", tmp_path / "a")
    assert code == 0, err
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert (manifest["chunk_size"], manifest["overlap"]) == (200, 40)
    assert "over the" not in err and max(c["tokens"] for c in manifest["chunks"]) <= 200
    code, _, err = run("chunk", source, "-s", "recursive", "--unit", "tokens", "--size", "1000", "-o", tmp_path / "b")
    assert code == 0, err
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert (manifest["chunk_size"], manifest["overlap"]) == (1000, 200)  # a size given: the documented overlap


def test_an_overlap_that_does_not_fit_the_units_default_size_says_to_pass_a_size(tmp_path):
    """`--unit tokens --overlap 300` ran at size 1000 before the per-unit defaults; at 200 it cannot
    run, and the error says that 200 is the default of that unit and what to pass."""
    from support.cli import run

    from chunktui.engine import DocumentError
    from chunktui.formats.profiles import load_profile

    source = FIXTURES / "services.conf"
    code, out, err = run(
        "chunk", source, "-s", "recursive", "--unit", "tokens", "--overlap", "300", "-o", tmp_path / "a"
    )
    assert (code, out) == (2, "") and not (tmp_path / "a").exists()
    assert err == (
        "chunktui: error: --overlap: must be smaller than size (200, the default with --unit tokens; pass --size),"
        " got 300\n"
    )
    code, _, err = run("chunk", source, "-s", "recursive", "--overlap", "1500", "-o", tmp_path / "a")
    assert (code, err) == (
        2,
        "chunktui: error: --overlap: must be smaller than size (1000, the default; pass --size), got 1500\n",
    )
    profile = tmp_path / "tokens.yaml"
    profile.write_text("strategy: recursive\nparams:\n  unit: tokens\n  overlap: 300\n")
    with pytest.raises(DocumentError, match=r"size \(200, the default with --unit tokens; pass --size\), got 300$"):
        load_profile(profile)


def test_a_size_given_keeps_the_documented_overlap_everywhere(tmp_path):
    """`--unit tokens --size 1000` meant overlap 200 before the per-unit defaults, as documented;
    they only apply when the size is not given (it was 40)."""
    import chunktui
    from support.cli import run

    recursive = next(s for s in chunktui.strategies() if s.name == "recursive")
    assert recursive.defaults({"unit": "tokens", "size": 1000})["overlap"] == 200
    assert recursive.validate({"unit": "tokens", "size": 1000})["overlap"] == 200
    assert chunktui.Chunker("recursive", unit="tokens", size=1000).params["overlap"] == 200
    profile = tmp_path / "tokens.yaml"
    profile.write_text("strategy: recursive\nparams:\n  unit: tokens\n  size: 600\n")
    code, _, err = run("chunk", FIXTURES / "services.conf", "--profile", profile, "-o", tmp_path / "a")
    assert code == 0, err
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["overlap"] == 200
    profile.write_text("strategy: recursive\nparams:\n  unit: tokens\n")  # a size given as a flag over it
    for flags, made in (([], (200, 40)), (["--size", "1000"], (1000, 200))):
        code, _, err = run(
            "chunk", FIXTURES / "services.conf", "--profile", profile, *flags, "-o", tmp_path / "b", "--force"
        )
        assert code == 0, err
        manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
        assert (manifest["params"]["unit"], manifest["chunk_size"], manifest["overlap"]) == ("tokens", *made)
    code, out, err = run(
        "sweep", SAMPLES / "guide.md", "-s", "recursive", "--unit", "tokens", "--size", "300,500", "--format", "json"
    )
    assert code == 0, err
    assert [(c["size"], c["overlap"]) for c in json.loads(out)["cells"]] == [(300, 200), (500, 200)]
    assert run("chunk", FIXTURES / "services.conf", "-s", "recursive", "--unit", "tokens", "--size", "100")[2] == (
        "chunktui: error: --overlap: must be smaller than size (100), got 200 (its default; pass --overlap too)\n"
    )


def test_unit_tokens_alone_sizes_chunks_in_tokens_from_the_python_api():
    import chunktui

    source = FIXTURES / "services.conf"
    cs = chunktui.chunk(source, "recursive", unit="tokens")
    assert (cs.params["size"], cs.params["overlap"]) == (200, 40)
    assert max(c.tokens for c in cs.chunks) <= 200
    assert chunktui.chunk(source, "recursive", unit="tokens", size=1000, overlap=100).params["size"] == 1000
    with pytest.raises(chunktui.ParamError) as caught:
        chunktui.Chunker("recursive", unit="tokens", overlap=300)
    assert (
        str(caught.value)
        == "overlap: must be smaller than size (200, the default with unit='tokens'; pass size=), got 300"
    )
    code = chunktui.chunk(SAMPLES / "inventory.py", "code", unit="tokens")
    assert code.params["size"] == 240 and max(c.embed_tokens for c in code.chunks) <= DEFAULT_BUDGET
    recursive = next(s for s in chunktui.strategies() if s.name == "recursive")
    assert {k: recursive.defaults({"unit": "tokens"})[k] for k in ("size", "overlap")} == {"size": 200, "overlap": 40}
