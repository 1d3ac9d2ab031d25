"""`chunktui serve`: the same app in a browser, through textual-serve.

textual-serve runs a shell command per browser tab, so the app is started as `python -m
chunktui open FILE` in a child process with the interpreter and working directory of this one
(exports land where they would in a terminal). Registered by commands.py (`cli.add_command`).
"""

from __future__ import annotations

import errno
import shlex
import sys
from pathlib import Path

import click

from chunktui.cli import commands  # the module, not its names: mypy then types serve_command across the import cycle
from chunktui.engine.core.errors import ChunktuiError, DocumentError


@click.command("serve")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0 lets other machines in: the app can read and write files here).",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option(
    "--public-url",
    metavar="URL",
    help="The address browsers reach the server by, when it is not http://HOST:PORT (behind a proxy, "
    "or with --host 0.0.0.0, where it defaults to this machine's name).",
)
@commands.HTML_MODE
@commands.PASSWORD
def serve_command(path, host, port, public_url, html_mode, password):
    """Serve the app to a browser at http://HOST:PORT (one app per tab; exports are offered as downloads).

    --html and --password reach each tab's app as they reach `chunktui open`."""
    if path is not None:
        check_path(path, password)
    check_listen(host, port)
    if public_url is not None and not public_url.startswith(("http://", "https://")):
        raise ChunktuiError(f"--public-url: expected http://... or https://..., got {public_url!r}")
    try:
        from textual_serve.server import Server
    except ImportError:
        raise ChunktuiError("serve: textual-serve is not installed (pip install textual-serve)") from None
    command = [sys.executable, "-m", "chunktui", "open", *reader_flags(html_mode, password)]
    command += [str(path.resolve())] if path else []
    title = f"chunktui {path.name}" if path else "chunktui"
    Server(
        shlex.join(command),
        host=host,
        port=port,
        title=title,
        public_url=(public_url or browser_url(host, port)).rstrip("/"),
    ).serve()


def browser_url(host: str, port: int) -> str:
    """The page tells the browser where its websocket is by this URL: a wildcard address would send a
    browser on another machine to itself, and an IPv6 address needs brackets (textual-serve's own
    default, http://HOST:PORT, gets both wrong)."""
    if host in ("0.0.0.0", "::", ""):
        import socket

        host = socket.gethostname()
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def reader_flags(html_mode: str, password: str | None) -> list[str]:
    """The reader options each tab's `chunktui open` is given: those that are not the default."""
    return (["--html", html_mode] if html_mode != "main" else []) + (["--password", password] if password else [])


def check_path(path: Path, password: str | None) -> None:
    """The checks `open` makes, here, so that a bad FILE (or a missing or wrong password) fails at the
    prompt and not in every browser tab."""
    if not path.exists():
        raise DocumentError(path, "no such file")
    if not path.is_file() and not path.is_dir():
        raise DocumentError(path, "not a regular file (a pipe, socket or device)")
    if path.is_file():
        from chunktui.engine.readers.documents import check_text_file

        check_text_file(path)
        from chunktui.formats.store import check_source_password

        check_source_password(path, password)


def check_listen(host: str, port: int) -> None:
    """Bind once before serving: aiohttp would report an unknown host or a taken port as a traceback."""
    import socket  # here, not at the top: every command's start would pay 10 ms for it

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ChunktuiError(f"--host: cannot resolve {host!r} ({getattr(exc, 'strerror', None) or exc})") from None
    probe = socket.socket(family, kind, proto)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp does: TIME_WAIT is no obstacle
        probe.bind(address)
    except OSError as exc:
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ChunktuiError(f"--host: {host} is not an address of this machine") from None
        if exc.errno == errno.EADDRINUSE:
            raise ChunktuiError(f"--port: {port} is already in use on {host}") from None
        raise ChunktuiError(f"--port: cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    finally:
        probe.close()
