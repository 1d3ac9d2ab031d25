"""A real browser on `chunktui serve`: headless Chromium, driven by Playwright, presses `e` and
Enter in the page and the export lands on the server's disk and in the browser's downloads.

Playwright is only the remote control: the browser is the system's Chromium (Debian's `chromium`
package, `make test` installs it as root; elsewhere set CHUNKTUI_CHROMIUM to any Chromium or Chrome),
never one that `playwright install` downloads. Every wait has a deadline, and the server is killed
whatever happens.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "sample_docs" / "guide.md"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
STEP = 30_000  # ms for any one step; the whole test took 12-33 s on 2 cores shared at load 7-13
# What the page must show before the next key is pressed (a key sent before the app is ready is lost):
CHUNKED = re.compile(r"→ \d+ chunks?")  # the app's title line once a chunking is shown (ui/app.py)
EXPORT_DIALOG = "overwrite a non-empty folder"  # a label of the export dialog (ui/screens/export.py)


def find_chromium() -> str | None:
    named = os.environ.get("CHUNKTUI_CHROMIUM")
    if named:
        return named
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


CHROMIUM = find_chromium()
# Outside CI a machine without any Chromium skips this test, saying why; in CI (where `make test`
# installs Debian's chromium) a missing browser is a failure, never a silent skip.
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="no Chromium found: install Debian's `chromium` (`make test` does, as root) "
    "or set CHUNKTUI_CHROMIUM to a Chromium or Chrome",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(cwd: Path, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "chunktui", "serve", str(DOC), "--port", str(port)],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def wait_listening(server: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + STEP / 1000
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"chunktui serve exited with {server.returncode}:\n{log.read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"chunktui serve did not listen on {port} within {STEP / 1000:.0f} s")


def stop(server: subprocess.Popen) -> None:
    """The server and the app it started for the page share a process group: end them together."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(server.pid, sig)
            server.wait(grace)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue


class Screen:
    """What the app has sent to the page's terminal: the canvas cannot be read back, the websocket can."""

    def __init__(self, page) -> None:
        self.page = page
        self.received = bytearray()  # decoded whole: a frame may end inside a character
        page.on("websocket", lambda ws: ws.on("framereceived", self._received))

    def _received(self, payload) -> None:
        self.received += payload if isinstance(payload, bytes) else payload.encode()

    def wait_for(self, pattern, what: str) -> None:
        deadline = time.monotonic() + STEP / 1000
        while not re.search(pattern, self.received.decode("utf-8", "replace")):
            if time.monotonic() > deadline:
                pytest.fail(f"the page never showed {what}")
            self.page.wait_for_timeout(50)


@pytest.mark.ui  # the app runs in a `chunktui serve` child, driven by the browser
def test_export_keys_in_the_browser_export_on_the_server_and_downloads_a_zip(tmp_path):
    from playwright.sync_api import sync_playwright

    port, log = free_port(), tmp_path / "serve.log"
    origin = f"http://127.0.0.1:{port}"
    server = start_server(tmp_path, port, log)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(  # while the server starts
                tmp_path / "profile",
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
                accept_downloads=True,
                viewport={"width": 1280, "height": 800},
                timeout=STEP,
            )
            try:
                wait_listening(server, port, log)
                browser.set_default_timeout(STEP)
                # the page asks Google for a web font: offline that stalls the load, so only the server is reached
                browser.route(
                    "**/*", lambda route: route.continue_() if route.request.url.startswith(origin) else route.abort()
                )
                page = browser.new_page()
                screen = Screen(page)
                page.goto(origin, wait_until="domcontentloaded")
                page.wait_for_selector(".xterm-screen canvas", state="attached")
                screen.wait_for(CHUNKED, "the first chunking")
                page.locator(".xterm-helper-textarea").focus()
                page.keyboard.press("e")
                screen.wait_for(EXPORT_DIALOG, "the export dialog")
                with page.expect_download() as download_info:
                    page.keyboard.press("Enter")
                download = download_info.value
                zipped = tmp_path / download.suggested_filename
                download.save_as(zipped)
            finally:
                browser.close()
    finally:
        stop(server)
    out = tmp_path / "chunks" / "guide-md"
    assert (out / "manifest.json").is_file(), log.read_text(errors="replace")
    assert zipped.name == "guide-md.zip"
    with zipfile.ZipFile(zipped) as archive:
        assert archive.read("guide-md/manifest.json") == (out / "manifest.json").read_bytes()
        assert len(archive.namelist()) == sum(1 for p in out.rglob("*") if p.is_file())
