"""The README is the user's manual: every strategy, parameter, command and screenshot it promises must exist."""

import re
from pathlib import Path

from chunktui.cli import cli
from chunktui.engine import all_strategies

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_strategy_and_parameter_is_documented():
    missing = [f"{s.name} {p.flag}" for s in all_strategies() for p in s.params
               if f"`{s.name}`" not in README or p.flag not in README]
    missing += [s.name for s in all_strategies() if f"`{s.name}`" not in README]
    assert not missing


def test_every_command_is_documented():
    assert [name for name in cli.commands if f"chunktui {name}" not in README] == []


def test_quick_start_is_exactly_make_run_and_make_test():
    block = README.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make run", "make test"]


def test_every_screenshot_exists():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert images and all((ROOT / image).is_file() for image in images)
