"""Parameter names: one name, one meaning in every strategy; the reference tools' names (and
chunktui's earlier ones) are aliases taken everywhere a parameter is given, and files written
before the renames still load (tests/fixtures/old_params was written by that code)."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import chunktui
from chunktui.cli.commands import cli
from chunktui.engine import all_strategies, get_strategy
from chunktui.engine.analysis.sweep import plan_grid
from chunktui.cli.inspect import inspect_file
from chunktui.formats.profiles import load_profile
from chunktui.formats.store import load_chunkset

OLD = Path(__file__).parent / "fixtures" / "old_params"
SAMPLES = Path(__file__).parent.parent / "sample_docs"

# the seeds' names and chunktui's earlier ones -> (strategy, the parameter's name now)
ALIASES = [
    ("markdown", "min_char", "min_chars"),
    ("markdown", "max_char", "max_chars"),
    ("markdown", "chunk_overlap", "overlap_chars"),
    ("code", "max_chunk_size", "size"),
    ("lines", "size", "chunk_lines"),
    ("lines", "overlap", "overlap_lines"),
    ("semantic", "size", "chunk_lines"),
    ("adaptive", "overlap", "overlap_lines"),
    ("cues", "size", "max_chars"),
    ("data-rows", "size", "max_rows"),
]


def run(*args) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_a_name_means_one_unit_in_every_strategy():
    units: dict[str, set] = {}
    for strat in all_strategies():
        for p in strat.params:
            units.setdefault(p.name, set()).add(p.unit)
    assert {name: u for name, u in units.items() if len(u) > 1} == {}
    # `size` and `overlap` count the strategy's `unit`: only strategies with one use them as names
    for strat in all_strategies():
        if strat.param("unit") is None:
            assert not {"size", "overlap"} & {p.name for p in strat.params}, strat.name


@pytest.mark.parametrize("strategy,alias,name", ALIASES)
def test_each_alias_is_its_parameter(strategy, alias, name):
    strat = get_strategy(strategy)
    assert strat.param(alias) is strat.param(name) and alias in strat.param(name).aliases
    value = strat.param(name).default + 1
    assert strat.validate({alias: value}) == strat.validate({name: value})
    assert name in strat.validate({alias: value}) and alias not in strat.validate({})


def test_a_value_given_under_two_names_is_refused_naming_both():
    with pytest.raises(chunktui.ParamError, match="given twice, as max_char and as max_chars"):
        get_strategy("markdown").validate({"max_char": 900, "max_chars": 800})


def test_python_api_takes_names_and_aliases_alike():
    text = (SAMPLES / "guide.md").read_text(encoding="utf-8")
    old = chunktui.chunk(text, "markdown", max_char=600, chunk_overlap=40)
    new = chunktui.chunk(text, "markdown", max_chars=600, overlap_chars=40)
    assert [c.text for c in old.chunks] == [c.text for c in new.chunks] and len(new.chunks) > 5
    assert old.params == new.params and new.params["max_chars"] == 600
    # auto hands them to the strategy it picks (prose for a .md file, code for .py)
    code = chunktui.chunk(SAMPLES / "inventory.py", max_chunk_size=400)
    assert code.strategy == "code" and code.params["size"] == 400


def test_old_chunks_yaml_loads_under_the_new_names():
    cs = load_chunkset(OLD / "md_yaml" / "chunks.yaml").chunkset
    assert cs.params == {"min_chars": 100, "max_chars": 600, "overlap_chars": 40}
    assert chunktui.load(OLD / "md_yaml").params == cs.params


def test_old_manifest_and_chunks_json_load_under_the_new_names(monkeypatch):
    monkeypatch.chdir(OLD)  # the manifest names its source relative to the folder it was written in
    assert chunktui.load(OLD / "cues_json" / "manifest.json").params == {"max_chars": 400}
    assert chunktui.load(OLD / "cues_json" / "chunks.json").params == {"max_chars": 400}
    assert inspect_file(OLD / "cues_json" / "manifest.json").params == {"max_chars": 400}


def test_old_profiles_load_under_the_new_names():
    assert load_profile(OLD / "markdown.yaml").params == {"min_chars": 100, "max_chars": 700, "overlap_chars": 50}
    assert load_profile(OLD / "lines.yaml").params == {"chunk_lines": 30, "overlap_lines": 5, "max_tokens": 512}
    code = load_profile(OLD / "code.yaml").params
    assert code["size"] == 900 and "max_chunk_size" not in code


def test_cli_flags_take_aliases_and_an_old_profile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / "guide.md", "guide.md")
    outputs = {}
    for name, args in {
        "alias": ["--max-char", "700"],
        "name": ["--max-chars", "700"],
        "profile": ["--profile", str(OLD / "markdown.yaml"), "--max-char", "700"],
    }.items():
        code, _, err = run("chunk", "guide.md", "-s", "markdown", *args, "-f", "json", "-o", name)
        assert code == 0, err
        outputs[name] = json.loads(Path(name, "manifest.json").read_text(encoding="utf-8"))
    assert (
        outputs["alias"]["params"]
        == outputs["name"]["params"]
        == {"min_chars": 640, "max_chars": 700, "overlap_chars": 128}
    )
    # the flag overrides the profile's max_chars (700 over its 700 saved as max_char), the rest is the profile's
    assert outputs["profile"]["params"] == {"min_chars": 100, "max_chars": 700, "overlap_chars": 50}
    assert [c["sha256"] for c in outputs["alias"]["chunks"]] == [c["sha256"] for c in outputs["name"]["chunks"]]


def test_cli_refuses_one_parameter_given_twice_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / "notes.md", "notes.md")
    code, _, err = run("chunk", "notes.md", "-s", "markdown", "--max-char", "700", "--max-chars", "600")
    assert code == 2 and err == "chunktui: error: --max-chars: given twice, as max_char and as max_chars\n"
    assert not Path("chunks").exists()


def test_an_error_names_the_flag_as_typed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SAMPLES / "notes.md", "notes.md")
    code, _, err = run("chunk", "notes.md", "-s", "lines", "--size", "10", "--overlap", "10")
    assert code == 2 and err == "chunktui: error: --overlap: must be smaller than size (10), got 10\n"


def test_strategy_help_lists_only_its_flags_with_units_and_aliases():
    code, out, _ = run("chunk", "-s", "markdown", "--help")
    assert code == 0
    own = out.split("Options of strategy markdown:")[1]
    assert "--max-chars CHARS (alias --max-char)" in own and "--overlap-chars CHARS (alias --chunk-overlap)" in own
    flags = listed_flags(out)
    assert {"--rows", "--chunk-lines", "--max-tokens", "--size"}.isdisjoint(flags)
    assert {"--format", "--profile", "--min-chars", "--max-chars", "--overlap-chars"} <= flags  # and the common ones
    code, out, _ = run("chunk", "--strategy=lines", "--help")
    assert "--chunk-lines LINES (alias --size)" in out and "--max-chars" not in listed_flags(out)


def listed_flags(help_text: str) -> set[str]:
    return {line.split()[0] for line in help_text.splitlines() if line.startswith("  -")} | {
        line.split()[1] for line in help_text.splitlines() if line.startswith("  -") and line.split()[0].endswith(",")
    }


def test_general_help_lists_each_parameter_once_by_its_name():
    code, out, _ = run("chunk", "--help")
    assert code == 0
    entries = [line.split()[0] for line in out.splitlines() if line.startswith("  --")]
    assert "--max-chars" in entries and "--max-char" not in entries and "--chunk-overlap" not in entries
    assert "Alias: --max-char." in " ".join(out.split())
    assert len(entries) == len(set(entries))


def test_strategies_command_shows_aliases():
    code, out, _ = run("strategies")
    assert code == 0 and "--size N (alias --max-chunk-size)" in out
    data = {s["name"]: s for s in json.loads(run("strategies", "--json")[1])}
    assert data["markdown"]["params"][1] | {"help": ""} == {
        "name": "max_chars",
        "type": "int",
        "default": 1280,
        "help": "",
        "min": 1,
        "max": 10_000_000,
        "unit": "chars",
        "aliases": ["max_char"],
    }


def test_sweep_takes_an_alias_beside_the_size_it_sweeps():
    cells, skipped = plan_grid(["markdown"], [500, 900], [50], base_params={"min_char": 100})
    assert skipped == [] and [c[3] for c in cells] == [
        {"min_chars": 100, "max_chars": 500, "overlap_chars": 50},
        {"min_chars": 100, "max_chars": 900, "overlap_chars": 50},
    ]
