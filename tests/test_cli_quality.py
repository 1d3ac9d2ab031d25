"""`chunktui sweep`, `chunktui compare`, `chunk --facts` and the dry-run quality line."""

import csv
import io
import json

from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import chunk_document, load_document
from chunktui.engine.analysis.quality import FLAG_NAMES, assess
from chunktui.formats.profiles import save_profile

GUIDE = "sample_docs/guide.md"


def run(*args):
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_sweep_json_has_every_cell_with_the_documented_keys():
    code, out, _ = run(
        "sweep", GUIDE, "--strategy", "lines", "--size", "20:60:20", "--overlap", "0,5", "--format", "json"
    )
    assert code == 0
    cells = json.loads(out)["cells"]
    assert [(c["size"], c["overlap"]) for c in cells] == [(s, o) for s in (20, 40, 60) for o in (0, 5)]
    keys = ["strategy", "size", "overlap", "count", "median_tokens", "p95_tokens", "over_budget_pct", "flags", "score"]
    doc = load_document(GUIDE)
    for cell in cells:
        assert list(cell) == keys and set(cell["flags"]) == set(FLAG_NAMES)
        cs = chunk_document(doc, "lines", {"size": cell["size"], "overlap": cell["overlap"]})
        assert cell["count"] == len(cs.chunks)
        assert cell["score"] == assess(cs, 512).score.score


def test_sweep_csv_and_table_and_skipped_cells():
    code, out, err = run("sweep", GUIDE, "-s", "lines", "--size", "4,30", "--overlap", "0,5", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["size"], r["overlap"]) for r in rows] == [("4", "0"), ("30", "0"), ("30", "5")]
    assert "skipped lines size=4 overlap=5" in err
    assert all(r["flag_overlap"] == "0" for r in rows) and rows[0]["flag_tiny"] != "0"
    code, out, _ = run("sweep", GUIDE, "-s", "lines", "--size", "20,40", "--budget", "300")
    assert code == 0
    header, *lines = out.splitlines()
    assert header.split()[:8] == ["strategy", "size", "overlap", "chunks", "median", "p95", "over%", "score"]
    assert sum(line.rstrip().endswith("*") or " * " in line for line in lines) >= 1


def test_sweep_bad_input_is_one_line_and_exit_2():
    for args in (["--size", "9:1"], ["--size", "abc"], ["--size", "10", "--max-char", "5"], ["-s", "nope"]):
        code, out, err = run("sweep", GUIDE, "-s", "lines", *args) if args[0] != "-s" else run("sweep", GUIDE, *args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, args
    code, _, err = run("sweep", "missing.md", "-s", "lines", "--size", "10")
    assert code == 2 and "missing.md" in err


def test_compare_two_profiles(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    save_profile(a, "lines", {"size": 20, "overlap": 0, "max_tokens": 0}, "cl100k_base")
    save_profile(b, "lines", {"size": 40, "overlap": 0, "max_tokens": 0}, "cl100k_base")
    code, out, _ = run("compare", GUIDE, "--a", str(a), "--b", str(b))
    assert code == 0
    doc = load_document(GUIDE)
    n = doc.line_count
    expected_both = len(range(41, n + 1, 40))
    assert (
        f"{expected_both} in both" in out
        and f"{len(range(21, n + 1, 20)) - expected_both} only in A, 0 only in B" in out
    )
    code, out, _ = run("compare", GUIDE, "--a", str(a), "--b", str(b), "--json")
    data = json.loads(out)
    assert {x["side"] for x in data["boundaries"]} == {"a", "both"}
    assert data["a"]["stats"]["count"] > data["b"]["stats"]["count"]
    code, _, err = run("compare", GUIDE, "--a", str(a), "--b", str(tmp_path / "none.yaml"))
    assert code == 2 and "none.yaml" in err


def test_chunk_facts_report_in_dry_run_and_export(tmp_path):
    phrases = tmp_path / "facts.txt"
    phrases.write_text("# facts to keep whole\nShell completion\n\nno such phrase anywhere\n", encoding="utf-8")
    code, out, _ = run(
        "chunk",
        GUIDE,
        "-s",
        "lines",
        "--size",
        "30",
        "--overlap",
        "0",
        "--dry-run",
        "--facts",
        str(phrases),
        "-o",
        str(tmp_path / "plan"),
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[-2].startswith("whole    Shell completion  [chunk-")
    assert lines[-1] == "missing  no such phrase anywhere"
    assert any(line.startswith("  quality    score ") for line in lines)
    code, out, _ = run(
        "chunk",
        GUIDE,
        "-s",
        "lines",
        "--size",
        "30",
        "--overlap",
        "0",
        "-o",
        str(tmp_path / "out"),
        "--facts",
        str(phrases),
    )
    assert code == 0 and (tmp_path / "out" / "manifest.json").exists()
    assert out.splitlines()[-1] == "missing  no such phrase anywhere"
    code, _, err = run("chunk", GUIDE, "--dry-run", "--facts", str(tmp_path / "none.txt"))
    assert code == 2 and "none.txt" in err


def test_dry_run_quality_line_matches_the_engine():
    code, out, _ = run("chunk", GUIDE, "-s", "lines", "--size", "30", "--overlap", "3", "--dry-run")
    cs = chunk_document(load_document(GUIDE), "lines", {"size": 30, "overlap": 3})
    (line,) = [l for l in out.splitlines() if l.startswith("  quality")]
    assert f"score {assess(cs, 512).score.score:g}/100" in line


def test_sweep_sizes_below_the_default_overlap_say_to_give_overlaps():
    code, out, err = run("sweep", GUIDE, "-s", "lines", "--size", "5,10")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "no valid cell" in err and "give overlaps with --overlap" in err
