"""The README is a newcomer's page and docs/ the manual: every strategy, parameter, command and
screenshot they promise must exist, and every one of them must be documented."""

import re
from pathlib import Path

from chunktui.cli.commands import cli
from chunktui.engine import all_strategies

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
STRATEGIES = DOCS["strategies.md"]
MANUAL = README + "".join(DOCS.values())


def test_every_strategy_and_parameter_is_documented():
    missing = [
        f"{s.name} {p.flag}"
        for s in all_strategies()
        for p in s.params
        if f"`{s.name}`" not in STRATEGIES or p.flag not in STRATEGIES
    ]
    missing += [s.name for s in all_strategies() if f"`{s.name}`" not in STRATEGIES]
    assert not missing


def test_every_command_is_documented():
    assert [name for name in cli.commands if f"chunktui {name}" not in DOCS["cli.md"] + README] == []


def test_quick_start_is_exactly_make_run_and_make_test():
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make run", "make test"]


def test_the_readme_stays_a_short_page_that_links_every_doc():
    assert len(README.encode()) < 8_000
    assert all(f"docs/{name}" in README for name in DOCS)


def test_every_screenshot_and_link_exists():
    for page, text in [(ROOT / "README.md", README), *((ROOT / "docs" / n, t) for n, t in DOCS.items())]:
        targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
        missing = [t for t in targets if not re.match(r"https?:", t) and not (page.parent / t).exists()]
        assert not missing, (page.name, missing)
    assert re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)


def test_the_readme_python_examples_run_as_written(monkeypatch, capsys):
    """The Python snippets a newcomer copies, run from the checkout: the first prints the guide's
    chunks, the pipeline one checks LangChain's offsets itself and parses LlamaIndex nodes."""
    first, *others = [block.split("```", 1)[0] for block in README.split("```python")[1:]]
    monkeypatch.chdir(ROOT)
    exec(compile(first, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 3 and all(int(line.split()[1]) > int(line.split()[0]) for line in lines)
    assert others, "the pipeline example"
    for block in others:
        names: dict = {}
        exec(compile(block, "README.md", "exec"), names)
        text = names["pages"][0].text
        assert names["docs"] and names["nodes"]
        assert all(text[n.start_char_idx : n.end_char_idx] == n.text for n in names["nodes"])
