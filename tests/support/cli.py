"""Running the command line in-process and checking its one-line errors (`chunktui: error: ...`,
exit 2, no traceback)."""

from __future__ import annotations

from click.testing import CliRunner

from chunktui.cli.commands import cli

SENTINEL = "pwned-sentinel"  # a file the !!python/object payload would create if YAML were loaded unsafely


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def assert_one_line_error(code, err, *needles):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def assert_clean_error(code, out, err, path):
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chunktui: error: "), err
    assert str(path) in lines[0] or path.name in lines[0], lines[0]
    assert "Traceback" not in out + err
