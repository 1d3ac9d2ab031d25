"""`chunktui serve`: bad hosts, ports and files fail at the prompt with one line, before anything listens."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from chunktui.cli.commands import cli
from support.cli import assert_one_line_error


def run(*args):
    result = CliRunner().invoke(cli, ["serve", *map(str, args)])
    return result.exit_code, result.stderr


@pytest.fixture
def never_serves(monkeypatch):
    """A check that lets bad input through would start a real server: make that a failure instead."""
    import textual_serve.server

    monkeypatch.setattr(textual_serve.server.Server, "serve", lambda self: pytest.fail("the server started"))


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--port", "0"], "--port"),
        (["--port", "65536"], "--port"),
        (["--port", "http"], "--port"),
        (["--host", "no-such-host.invalid"], "--host: cannot resolve 'no-such-host.invalid'"),
        (["--host", "192.0.2.1"], "--host: 192.0.2.1 is not an address of this machine"),  # TEST-NET-1
    ],
)
def test_bad_host_or_port_is_one_line(never_serves, args, needle):
    assert_one_line_error(*run(*args), needle)


def test_a_port_in_use_is_named(never_serves):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_one_line_error(*run("--port", port), f"--port: {port} is already in use on 127.0.0.1")


def test_a_missing_or_binary_file_fails_before_serving(never_serves, tmp_path):
    blob = tmp_path / "blob.bin"
    blob.write_bytes(b"\x7fELF\x00\x00\x01")
    assert_one_line_error(*run(tmp_path / "gone.md"), "gone.md: no such file")
    assert_one_line_error(*run(blob), "blob.bin: binary file")


def test_the_served_command_opens_the_file_with_this_interpreter(monkeypatch, tmp_path):
    import shlex
    import sys

    import textual_serve.server

    doc = tmp_path / "my notes.md"
    doc.write_text("# Notes\n\ntext\n")
    started = []
    monkeypatch.setattr(textual_serve.server.Server, "serve", lambda self: started.append(self))
    monkeypatch.chdir(tmp_path)
    code, err = run("my notes.md", "--port", _free_port())
    assert code == 0, err
    assert shlex.split(started[0].command) == [sys.executable, "-m", "chunktui", "open", str(doc.resolve())]


LOCKED = Path(__file__).parent / "fixtures" / "docs" / "libtasn1-encrypted.pdf"  # password s3cret


def test_a_missing_or_wrong_password_fails_before_serving(never_serves, tmp_path):
    assert_one_line_error(*run(LOCKED), str(LOCKED), "encrypted PDF: give its password with --password")
    assert_one_line_error(*run(LOCKED, "--password", "not-it"), "wrong password for this encrypted PDF")
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(LOCKED.read_bytes()[:20_000])
    assert_one_line_error(*run(cut, "--password", "s3cret"), str(cut), "not a readable PDF")
    assert_one_line_error(*run(LOCKED, "--html", "all"), "--html")


def test_html_and_password_reach_each_tabs_app(monkeypatch):
    """As `chunktui open` takes them: the served command carries them, and open parses it so."""
    import shlex

    import textual_serve.server

    started = []
    monkeypatch.setattr(textual_serve.server.Server, "serve", lambda self: started.append(self))
    code, err = run(LOCKED, "--port", _free_port(), "--password", "s3cret", "--html", "whole")
    assert code == 0, err
    served = shlex.split(started[0].command)
    assert served[3:] == ["open", "--html", "whole", "--password", "s3cret", str(LOCKED.resolve())]
    opened = []
    monkeypatch.setattr("chunktui.cli.commands.run_app", lambda **kw: opened.append(kw) or 0)
    result = CliRunner().invoke(cli, served[3:])
    assert result.exit_code == 0, result.stderr
    assert opened[0]["reader_options"] == {"html": "whole", "password": "s3cret"}


@pytest.mark.parametrize(
    "args, url",
    [
        ([], "http://127.0.0.1:{port}"),
        (["--host", "0.0.0.0"], "http://{name}:{port}"),  # not 0.0.0.0: another machine's browser would dial itself
        (["--public-url", "https://chunks.example.org/"], "https://chunks.example.org"),
    ],
)
def test_the_page_points_browsers_at_a_reachable_address(monkeypatch, args, url):
    import textual_serve.server

    started = []
    monkeypatch.setattr(textual_serve.server.Server, "serve", lambda self: started.append(self))
    port = _free_port()
    code, err = run("--port", port, *args)
    assert code == 0, err
    assert started[0].public_url == url.format(port=port, name=socket.gethostname())


def test_an_ipv6_address_is_bracketed_in_the_pages_urls():
    from chunktui.cli.serve import browser_url

    assert browser_url("::1", 8000) == "http://[::1]:8000"  # textual-serve's default, http://::1:8000, is no URL


def test_a_public_url_must_be_http(never_serves):
    assert_one_line_error(*run("--public-url", "chunks.example.org"), "--public-url: expected http://")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_python_dash_m_chunktui_is_the_command():
    """What each browser tab runs; `python -m chunktui.cli` failed there on cli.py's circular import."""
    import subprocess
    import sys

    from chunktui import __version__

    done = subprocess.run([sys.executable, "-m", "chunktui", "--version"], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, f"chunktui, version {__version__}"), done.stderr
