"""Every use of Textual's private API, in one place (textual is pinned in pyproject.toml).

The app releases a finished worker's work and updates its scrollbars without a relayout; the
tests read the notifications shown and a Select's options; the bench feeds keys to the driver.
None of these has a public form in Textual. PRIVATE lists each name used, by the class that
has it; tests/test_compat.py checks that the installed Textual has every one and names any that
is missing. The engine's counterpart for tiktoken is chunktui/engine/core/compat.py."""

from __future__ import annotations

PRIVATE = {
    "Worker": ("_work",),
    "Widget": ("_scroll_update",),
    "App": ("_notifications", "_driver"),
    "Select": ("_options",),
}


def release_work(worker) -> None:
    """Drop a finished worker's callable and its arguments (a worker never reads them again)."""
    worker._work = None


def update_scrollbars(widget, virtual_size) -> None:
    """The scrollbars of `widget` set for a new virtual size, without asking for a layout."""
    widget._scroll_update(virtual_size)


def notifications(app) -> list:
    """The notifications the app shows (tests)."""
    return list(app._notifications)


def select_options(select) -> list[tuple]:
    """A Select's (label, value) pairs (tests)."""
    return list(select._options)


def send_to_driver(app, message) -> None:
    """Hand a key or other event to the app as its driver does (bench)."""
    app._driver.send_message(message)
