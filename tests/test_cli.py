"""`chunktui` on the command line: outputs, the final line, exit codes and one-line errors for bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from chunktui.engine import all_strategies, chunk_document, get_counter, load_document
from chunktui.formats.profiles import save_profile
from support.cli import assert_one_line_error, run

DOC = "".join(f"line {i} of the doc\n" for i in range(1, 31))  # 30 lines


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("doc.md").write_text(DOC)
    return tmp_path


def test_chunk_writes_files_manifest_and_ends_with_the_result_line(work):
    code, out, _ = run("chunk", "doc.md", "--strategy", "lines", "--size", "10", "--overlap", "2")
    assert code == 0
    assert out.strip().splitlines()[-1] == (
        "Split doc.md (30 lines) into 3 chunks using lines. "
        "Output: chunks/doc-md/. Manifest: chunks/doc-md/manifest.json"
    )
    manifest = json.loads(Path("chunks/doc-md/manifest.json").read_text())
    assert (manifest["strategy"], manifest["chunk_size"], manifest["overlap"]) == ("lines", 10, 2)
    expected = chunk_document(load_document("doc.md"), "lines", {"size": 10, "overlap": 2})
    for c, entry in zip(expected.chunks, manifest["chunks"], strict=True):
        assert Path(entry["file"]).read_text() == c.text


def test_every_format_and_the_encoding_flag(work):
    for fmt, name in (("json", "chunks.json"), ("yaml", "chunks.yaml"), ("jsonl", "chunks.jsonl")):
        code, out, _ = run(
            "chunk",
            "doc.md",
            "-s",
            "lines",
            "--size",
            "10",
            "--overlap",
            "0",
            "-f",
            fmt,
            "-o",
            f"out-{fmt}",
            "--encoding",
            "o200k_base",
        )
        assert code == 0, out
        assert sorted(p.name for p in Path(f"out-{fmt}").iterdir()) == [name, "manifest.json"]
        manifest = json.loads(Path(f"out-{fmt}/manifest.json").read_text())
        assert manifest["tokenizer"] == "o200k_base"
        enc = get_counter("o200k_base")
        assert [c["tokens"] for c in manifest["chunks"]] == [
            enc.count(DOC[c["start_char"] : c["end_char"]]) for c in manifest["chunks"]
        ]


def test_dry_run_prints_the_plan_and_writes_nothing(work):
    code, out, _ = run("chunk", "doc.md", "-s", "lines", "--size", "10", "--overlap", "2", "--dry-run")
    assert code == 0
    assert sorted(p.name for p in work.iterdir()) == ["doc.md"]
    assert re.search(r"strategy\s+lines", out) and re.search(r"chunks\s+3\b", out)
    assert re.search(r"chars\s+min \d+\s+median \d+\s+p95 \d+\s+max \d+", out)
    assert re.search(r"tokens\s+min \d+\s+median \d+\s+p95 \d+\s+max \d+", out)
    assert re.search(r"gaps\s+none", out)
    assert "Nothing written" in out.strip().splitlines()[-1]


def test_default_strategy_is_auto_and_the_plan_says_what_it_picked(work):
    code, out, _ = run("chunk", "doc.md", "--dry-run")
    assert code == 0
    assert re.search(r"strategy\s+\S+ \(picked by auto\)", out)
    assert re.search(r"note\s+auto: picked", out)
    code, _, err = run("chunk", "doc.md", "--size", "10")
    assert_one_line_error(code, err, "--size", "--strategy")


def test_missing_file(work):
    code, _, err = run("chunk", "nope.md")
    assert_one_line_error(code, err, "nope.md", "no such file")


def test_binary_file(work):
    Path("blob.txt").write_bytes(b"abc\x00\x01\x02")
    code, _, err = run("chunk", "blob.txt")
    assert_one_line_error(code, err, "blob.txt", "binary")
    code, _, err = run("blob.txt")  # opening it in the app is refused before the screen starts
    assert_one_line_error(code, err, "blob.txt", "binary")


def test_folder_without_supported_files(work):
    Path("empty/sub").mkdir(parents=True)
    Path("empty/picture.png").write_bytes(b"\x89PNG")
    code, _, err = run("chunk", "empty")
    assert_one_line_error(code, err, "empty", "no supported files")


def test_unknown_strategy(work):
    code, _, err = run("chunk", "doc.md", "--strategy", "nosuch")
    assert_one_line_error(code, err, "nosuch", "unknown strategy")


def test_negative_size(work):
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--size", "-5")
    assert_one_line_error(code, err, "--size", "at least")


def test_overlap_not_smaller_than_size(work):
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--size", "5", "--overlap", "5")
    assert_one_line_error(code, err, "--overlap", "smaller than size")


def test_flag_of_another_strategy_is_an_error_naming_it(work):
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--min-char", "10")
    assert_one_line_error(code, err, "--min-char", "lines")


def test_unknown_option_and_bad_format_are_usage_errors(work):
    code, _, err = run("chunk", "doc.md", "--bogus")
    assert_one_line_error(code, err, "--bogus")
    code, _, err = run("chunk", "doc.md", "--format", "xml")
    assert_one_line_error(code, err, "--format", "xml")


def test_unwritable_output_folder(work):
    Path("plainfile").write_text("not a folder")
    code, _, err = run("chunk", "doc.md", "-o", "plainfile/out")
    assert_one_line_error(code, err, "plainfile/out", "plainfile is a file")
    assert Path("plainfile").read_text() == "not a folder"


def test_non_empty_output_needs_force_and_force_replaces(work):
    assert run("chunk", "doc.md", "-s", "lines", "--size", "10", "--overlap", "0")[0] == 0
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--size", "5", "--overlap", "0")
    assert_one_line_error(code, err, "chunks/doc-md", "not empty", "--force")
    assert len(list(Path("chunks/doc-md").glob("chunk-*.txt"))) == 3  # the earlier export is untouched
    code, out, _ = run("chunk", "doc.md", "-s", "lines", "--size", "5", "--overlap", "0", "--force")
    assert code == 0 and "into 6 chunks" in out
    assert len(list(Path("chunks/doc-md").glob("chunk-*.txt"))) == 6
    assert sorted(p.name for p in Path("chunks").iterdir()) == ["doc-md"]  # no temp folders left


def test_folder_chunks_every_supported_file_and_skips_tooling(work):
    tree = {
        "docs/guide.md": "# Guide\n\ntext\n",
        "docs/api/auth.md": "# Auth\n\nmore\n",
        "docs/src/app.py": "def f():\n    return 1\n",
        "docs/.git/config.txt": "hidden\n",
        "docs/node_modules/pkg/readme.md": "vendored\n",
        "docs/env/pyvenv.cfg": "home = /usr\n",
        "docs/env/lib/site.py": "x = 1\n",
        "docs/__pycache__/junk.txt": "cache\n",
        "docs/picture.png": "\x89PNG",
    }
    for name, content in tree.items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(content)
    code, out, err = run("chunk", "docs", "-s", "lines", "--size", "10", "--overlap", "0", "-o", "out")
    assert code == 0, err
    manifests = sorted(p.parent.relative_to("out").as_posix() for p in Path("out").rglob("manifest.json"))
    assert manifests == ["api/auth-md", "guide-md", "src/app-py"]
    assert out.strip().splitlines()[-1].startswith("Split 3 files (8 lines) into 3 chunks. Output: out/")
    # a second run over a folder that now holds our output does not chunk the output
    code, out, _ = run("chunk", ".", "-s", "lines", "--size", "10", "--overlap", "0", "-o", "again", "--dry-run")
    assert code == 0 and "Dry run: 4 files" in out  # doc.md plus the three docs, not out/


def test_a_bad_file_in_a_folder_does_not_stop_the_others(work):
    Path("mixed").mkdir()
    Path("mixed/good.md").write_text("# ok\n")
    Path("mixed/bad.txt").write_bytes(b"\x00\x00binary")
    code, out, err = run("chunk", "mixed", "-s", "lines", "-o", "out")
    assert code == 2
    assert "mixed/bad.txt: binary" in err
    assert Path("out/good-md/manifest.json").exists() and not Path("out/bad-txt").exists()
    assert "Failed: 1 file" in out


def test_profile_supplies_strategy_and_params_and_flags_override(work):
    save_profile("p.yaml", "lines", {"size": 6, "overlap": 1}, "cl100k_base")
    assert run("chunk", "doc.md", "--profile", "p.yaml", "-o", "a")[0] == 0
    assert json.loads(Path("a/manifest.json").read_text())["chunk_size"] == 6
    assert run("chunk", "doc.md", "--profile", "p.yaml", "--size", "15", "-o", "b")[0] == 0
    manifest = json.loads(Path("b/manifest.json").read_text())
    assert (manifest["chunk_size"], manifest["overlap"]) == (15, 1)
    Path("bad.yaml").write_text("strategy: lines\nparams: {size: 0}\n")
    code, _, err = run("chunk", "doc.md", "--profile", "bad.yaml")
    assert_one_line_error(code, err, "bad.yaml", "--size")


def test_generated_flags_cover_every_strategy_parameter():
    code, out, _ = run("chunk", "--help")
    assert code == 0
    for strat in all_strategies():
        for param in strat.params:
            assert param.flag in out, (strat.name, param.flag)


def test_strategies_lists_every_strategy_and_parameter():
    code, out, _ = run("strategies")
    assert code == 0
    for strat in all_strategies():
        assert re.search(rf"(?m)^{re.escape(strat.name)}\b", out)
        for param in strat.params:
            assert param.flag in out
    data = json.loads(run("strategies", "--json")[1])
    assert {s["name"] for s in data} == {s.name for s in all_strategies()}
    lines = next(s for s in data if s["name"] == "lines")
    assert {
        "name": "chunk_lines",
        "type": "int",
        "default": 200,
        "unit": "lines",
        "aliases": ["size"],
    }.items() <= lines["params"][0].items()


def test_inspect_a_chunks_yaml_and_a_manifest(work):
    Path("twice.md").write_text("same\nsame\n")
    assert run("chunk", "twice.md", "-s", "lines", "--size", "1", "--overlap", "0", "-f", "yaml")[0] == 0
    for target in ("chunks/twice-md/chunks.yaml", "chunks/twice-md/manifest.json", "chunks/twice-md"):
        code, out, _ = run("inspect", target)
        assert code == 0
        assert re.search(r"chunks\s+2\b", out) and "chunk-0001 = chunk-0002" in out
        assert "histogram" in out and "| same" in out
    code, _, err = run("inspect", "twice.md")
    assert_one_line_error(code, err, "twice.md")


def test_default_command_and_demo_open_the_app(work, monkeypatch):
    import chunktui.ui.app as app

    calls = []
    monkeypatch.setattr(app, "run_app", lambda **kw: calls.append(kw))
    save_profile("p.yaml", "lines", {}, "cl100k_base")
    assert run("doc.md", "--profile", "p.yaml")[0] == 0
    assert run("demo")[0] == 0
    assert run()[0] == 0
    reading = {"html": "main", "password": None}  # no --html or --password given
    assert calls == [
        {"path": "doc.md", "profile": "p.yaml", "reader_options": reading},
        {"demo": True},
        {"path": None, "profile": None, "reader_options": reading},
    ]
    code, _, err = run("missing.md")
    assert_one_line_error(code, err, "missing.md")
    assert len(calls) == 3


def test_internal_error_exits_1(work, monkeypatch):
    import chunktui.engine

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(chunktui.engine, "chunk_document", broken)
    code, _, err = run("chunk", "doc.md", "-s", "lines")
    assert code == 1
    assert "chunktui: internal error: RuntimeError: boom" in err


def test_help_does_not_load_textual_or_tiktoken():
    code = (
        "import sys\n"
        "from chunktui.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        "print('LOADED:' + ','.join(m for m in ('textual', 'tiktoken') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Usage: chunktui" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "LOADED:"


def test_flags_given_with_auto_apply_to_the_strategy_it_picks(work):
    Path("essay.txt").write_text("".join(f"Paragraph {i} " + "word " * 60 + "\n\n" for i in range(30)))
    code, out, _ = run("chunk", "essay.txt", "--max-tokens", "100", "--min-tokens", "20", "-f", "json")
    assert code == 0, out
    manifest = json.loads(Path("chunks/essay-txt/manifest.json").read_text())
    assert manifest["strategy"] == "prose"
    assert manifest["params"]["max_tokens"] == 100
    assert max(c["tokens"] for c in manifest["chunks"]) <= 100


def test_a_flag_the_picked_strategy_lacks_names_what_auto_picked(work):
    code, _, err = run("chunk", "doc.md", "--delimiters", ".")
    assert_one_line_error(code, err, "--delimiters", "auto picked prose")


def test_a_folder_of_eml_files_is_one_mailbox(work):
    folder = Path(__file__).parent / "fixtures" / "eml_folder"
    code, out, _ = run("chunk", folder, "-f", "json", "-o", "mail")
    assert code == 0, out
    manifest = json.loads(Path("mail/manifest.json").read_text())
    assert manifest["strategy"] == "email"
    ids = {m for c in manifest["chunks"] for m in c["metadata"]["message_ids"]}
    assert len(ids) == len(list(folder.glob("*.eml")))


def test_a_folder_run_reports_duplicate_chunks(work):
    Path("src").mkdir()
    for name in ("a.txt", "b.txt"):
        Path("src", name).write_text("same words in both files\n")
    code, out, _ = run("chunk", "src", "-s", "lines", "--size", "5", "--overlap", "0")
    assert code == 0, out
    assert "Duplicates (same sha256 as an earlier chunk): 1" in out


def test_strategies_shows_defaults_as_they_are_typed():
    code, out, _ = run("strategies")
    assert code == 0
    assert "[default '\\n.?']" in out  # typing \n.? gives newline, '.', '?'


def test_a_default_that_clashes_with_a_given_flag_is_named_as_the_default(work):
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--size", "10")  # overlap keeps its default 20
    assert_one_line_error(code, err, "--overlap-lines", "its default", "pass --overlap-lines too")
    code, _, err = run("chunk", "doc.md", "-s", "lines", "--size", "10", "--overlap", "10")
    assert_one_line_error(code, err, "--overlap")
    assert "default" not in err


def test_an_empty_strategy_name_is_an_error_not_the_default(work):
    code, _, err = run("chunk", "doc.md", "-s", "", "--dry-run")
    assert_one_line_error(code, err, "--strategy", "unknown strategy ''")


def test_a_dry_run_over_a_folder_counts_the_files_that_would_fail(work):
    Path("mixed").mkdir()
    Path("mixed/good.md").write_text("# ok\n")
    Path("mixed/bad.txt").write_bytes(b"\x00\x00binary")
    code, out, err = run("chunk", "mixed", "-s", "lines", "--dry-run")
    assert code == 2 and "mixed/bad.txt: binary" in err
    assert out.strip().splitlines()[-1] == (
        "Dry run: 1 file (1 line) would give 1 chunk. Would fail: 1 file (see above). Nothing written."
    )
    assert not Path("chunks").exists()


def test_a_dry_run_lists_warnings_in_the_plan_only(work):
    Path("latin.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    code, out, err = run("chunk", "latin.txt", "-s", "lines", "--dry-run")
    assert code == 0
    assert re.search(r"warning\s+latin.txt: not valid UTF-8", out) and "warning" not in err


def test_two_folders_with_the_same_file_names_get_separate_outputs(work):
    for folder, text in (("a", "alpha\n"), ("b", "beta\n")):
        Path(folder).mkdir()
        Path(folder, "x.md").write_text(text)
    code, out, err = run("chunk", "a", "b", "-s", "lines", "-o", "out")
    assert code == 0, err
    assert Path("out/a/x-md/chunk-0001.txt").read_text() == "alpha\n"
    assert Path("out/b/x-md/chunk-0001.txt").read_text() == "beta\n"
    code, _, err = run("chunk", "a/x.md", "b/x.md", "-s", "lines", "--dry-run")
    assert_one_line_error(code, err, "a/x.md", "b/x.md", "pass their folders")


def test_inspect_shows_the_source_without_dot_dot_and_names_a_missing_chunk(work):
    assert (
        run("chunk", "doc.md", "-s", "lines", "--size", "10", "--overlap", "0", "-f", "yaml", "-o", "out/deep")[0] == 0
    )
    code, out, _ = run("inspect", "out/deep/chunks.yaml")
    assert code == 0
    assert re.search(r"source\s+doc\.md\s+\[found, unchanged\]", out), out
    code, _, err = run("inspect", "out/deep/chunks.yaml", "--chunk", "9")
    assert_one_line_error(code, err, "out/deep/chunks.yaml", "no chunk '9'", "1..3")
    Path("doc.md").rename("moved.md")
    code, out, _ = run("inspect", "out/deep/chunks.yaml")
    assert code == 0 and re.search(r"source\s+doc\.md\s+\[not found\]", out), out


def test_inspect_a_brain_export_reads_the_texts_from_the_unchanged_source(work):
    Path("m.py").write_text("def first():\n    return 1\n\n\ndef second():\n    return 2\n")
    assert run("chunk", "m.py", "-s", "code-toplevel", "-f", "brain", "-o", "notes")[0] == 0
    code, out, _ = run("inspect", "notes/manifest.json", "--chunk", "2")
    assert code == 0 and "| def second():" in out and "not found" not in out
    Path("m.py").write_text("changed\n")
    code, out, _ = run("inspect", "notes/manifest.json")
    assert code == 0 and "(text not available)" in out


def test_a_dry_run_of_an_empty_file_shows_no_sizes_rather_than_zeros(work):
    Path("empty.md").write_text("")
    code, out, _ = run("chunk", "empty.md", "-s", "lines", "--dry-run")
    assert code == 0
    assert re.search(r"chunks\s+0\n\s+chars\s+-\n\s+tokens\s+-\n", out), out


def test_inspect_on_the_folder_of_a_folder_run_points_at_its_exports(work):
    Path("docs").mkdir()
    Path("docs/a.md").write_text("# A\n")
    assert run("chunk", "docs", "-s", "lines")[0] == 0
    code, _, err = run("inspect", "chunks")
    assert_one_line_error(code, err, "chunks", "no manifest.json", "chunks/a-md")
    code, out, _ = run("inspect", "chunks/a-md")
    assert code == 0 and re.search(r"chunks\s+1\b", out)


def test_a_mistyped_command_is_suggested_not_opened_as_a_file(work):
    code, _, err = run("chunkk", "doc.md")
    assert_one_line_error(code, err, "'chunkk'", "did you mean 'chunk'")
    code, _, err = run("nothere.md")
    assert_one_line_error(code, err, "nothere.md", "no such file")


def test_pipes_are_refused_or_skipped_never_read(work):
    """Reading a FIFO named like a document would block the run forever."""
    import os

    from chunktui.engine.core.errors import DocumentError
    from chunktui.formats.discover import plan_jobs

    Path("docs").mkdir()
    Path("docs/good.md").write_text("# ok\n")
    os.mkfifo("docs/pipe.md")
    assert [j.source.name for j in plan_jobs(["docs"])] == ["good.md"]
    with pytest.raises(DocumentError, match="not a regular file"):
        plan_jobs(["docs/pipe.md"])
    code, _, err = run("docs/pipe.md")
    assert_one_line_error(code, err, "docs/pipe.md", "not a regular file")


def test_chunks_over_the_budget_are_reported_once_per_run(work):
    Path("docs").mkdir()
    for name in ("a.md", "b.md"):
        Path("docs", name).write_text("word " * 300 + "\n")
    code, _, err = run("chunk", "docs", "-s", "lines", "--budget", "100")
    assert code == 0
    assert err.strip() == "chunktui: warning: 2 chunks in 2 files over the 100-token budget (see --budget)"
    code, _, err = run("chunk", "docs/a.md", "-s", "lines", "--budget", "100", "-o", "one")
    assert err.strip() == "chunktui: warning: a.md: 1 chunk over the 100-token budget (see --budget)"


def test_the_budget_judges_what_is_embedded(work):
    """A code chunk embeds its scope, definitions and imports before its text: the budget warning
    counts the chunks whose embedded text is over it, as the stats do (it counted their own text,
    and missed those the context pushed over)."""
    Path("src").mkdir()
    Path("src/m.py").write_text(
        "import os\n\n\nclass Store:\n"
        + "".join(f"    def m{i}(self):\n        return os.sep * {i}\n\n" for i in range(40))
    )
    budget = 60
    cs = chunk_document(load_document("src/m.py"), "code", {"max_chunk_size": 55, "unit": "tokens"})
    over = cs.stats(budget).over_budget
    assert over > sum(c.tokens > budget for c in cs.chunks)  # the case: the context pushes some over
    code, _, err = run(
        "chunk", "src/m.py", "-s", "code", "--unit", "tokens", "--size", "55", "--budget", str(budget), "-o", "out"
    )
    assert code == 0
    assert (
        err.strip()
        == f"chunktui: warning: m.py: {over} chunk{'s' if over > 1 else ''} over the {budget}-token budget (see --budget)"
    )


def test_the_plan_names_a_one_line_gap_as_a_line(work):
    Path("t.csv").write_text("a,b\n" + "".join(f"{i},x\n" for i in range(5)))
    code, out, _ = run("chunk", "t.csv", "-s", "data", "--rows", "3", "--dry-run")
    assert code == 0
    assert re.search(r"gaps\s+2 \(8 chars\): line 3 \(sampled out, 4 chars\); line 5 \(", out), out


def test_inspect_keeps_thousands_of_duplicates_and_a_minified_line_readable(work):
    Path("rep.txt").write_text("word " * 2000 + "\n")
    assert (
        run("chunk", "rep.txt", "-s", "recursive", "--size", "50", "--overlap", "0", "-f", "json", "-o", "rep")[0] == 0
    )
    code, out, _ = run("inspect", "rep")
    assert code == 0
    dup = next(line for line in out.splitlines() if line.lstrip().startswith("duplicates"))
    assert dup.count("chunk-") == 6 and re.search(r"\(\+\d[\d,]* more\)$", dup), dup
    assert re.search(r"sample\s+chunk-\d+: line 1, ", out)
    Path("long.txt").write_text("x" * 5000 + "\n")
    assert run("chunk", "long.txt", "-s", "lines", "-f", "json", "-o", "long")[0] == 0
    code, out, _ = run("inspect", "long")
    assert max(len(line) for line in out.splitlines()) < 300 and "(+4,800 chars)" in out
    code, out, _ = run("inspect", "long", "--full")
    assert "x" * 5000 in out


def test_the_plan_shows_delimiters_as_typed(work):
    code, out, _ = run("chunk", "doc.md", "-s", "split", "--delimiters", "\\n.", "--dry-run")
    assert code == 0
    assert re.search(r"params\s+delimiters='\\n\.' min_chars=0\n", out), out


def test_a_profile_for_another_strategy_says_its_params_are_not_used(work):
    save_profile("p.yaml", "lines", {"size": 6, "overlap": 1}, "o200k_base")
    code, _, err = run("chunk", "doc.md", "--profile", "p.yaml", "-s", "fixed", "-o", "out")
    assert code == 0
    assert "p.yaml: its params are for lines, not fixed; only its tokenizer is used" in err
    assert json.loads(Path("out/manifest.json").read_text())["tokenizer"] == "o200k_base"


def test_a_dry_run_exits_as_the_real_run_would_when_the_output_is_taken(work):
    assert run("chunk", "doc.md", "-s", "lines")[0] == 0
    code, out, _ = run("chunk", "doc.md", "-s", "lines", "--dry-run")
    assert code == 2
    assert "(would fail: output folder is not empty (use --force to replace it))" in out
    assert out.strip().splitlines()[-1].endswith("Would fail: 1 file (see above). Nothing written.")
    code, out, _ = run("chunk", "doc.md", "-s", "lines", "--dry-run", "--force")
    assert code == 0 and "would fail" not in out


def test_a_flag_shared_by_strategies_with_different_choices_lists_them_all():
    code, out, _ = run("chunk", "--help")
    assert code == 0
    assert re.search(r"--unit (\w+\|)+\w+", out) and all(
        u in re.search(r"--unit (\S+)", out).group(1).split("|") for u in ("bytes", "chars", "tokens", "lines")
    )


def test_a_profiles_budget_is_used_unless_budget_is_given(tmp_path):
    from chunktui.formats.profiles import save_profile

    profile = save_profile(tmp_path / "p.yaml", "recursive", {"size": 400, "overlap": 0}, budget=50)
    runner = CliRunner()
    src = str(Path(__file__).resolve().parent.parent / "sample_docs" / "essay.txt")
    used = runner.invoke(cli, ["chunk", src, "--profile", str(profile), "--dry-run"])
    assert "50-token budget" in used.stderr + used.stdout
    given = runner.invoke(cli, ["chunk", src, "--profile", str(profile), "--dry-run", "--budget", "2000"])
    assert "50-token budget" not in given.stderr + given.stdout and given.exit_code == 0


def test_a_run_naming_one_strategy_parses_as_with_every_strategys_flags(work):
    """`-s NAME` gets NAME's flags alone (its module alone is imported); each is the flag the full
    set has, and a flag of another strategy is the error it always was, not click's 'no such option'."""
    from chunktui.cli.commands import EVERY_STRATEGY, _strategy_flags, chunk

    fixed = [p for p in chunk.params if not p.name.startswith("strategy_param__")]
    every = {p.name: p for p in _strategy_flags(fixed, EVERY_STRATEGY)}
    for strat in all_strategies():
        if strat.name == "auto":
            continue
        for option in _strategy_flags(fixed, strat.name):
            same = every[option.name]
            assert (option.opts, option.secondary_opts, option.is_flag) == (
                same.opts,
                same.secondary_opts,
                same.is_flag,
            ), (strat.name, option.name)
    code, _, err = run("chunk", "doc.md", "-s", "recursive", "--max-char", "300")
    assert_one_line_error(code, err, "--max-char", "not a parameter of strategy 'recursive'")
    for form in (["-s", "lines"], ["-slines"], ["--strategy=lines"]):
        code, out, err = run("chunk", "doc.md", *form, "--size", "3", "--overlap", "1", "-o", "out", "--force")
        assert code == 0 and "using lines" in out, err
    code, _, err = run("chunk", "doc.md", "--max-char", "0")  # auto: parsed again with every flag
    assert_one_line_error(code, err, "--max-char")
    code, _, err = run("chunk", "doc.md", "--no-such-flag")
    assert_one_line_error(code, err, "No such option '--no-such-flag'")
