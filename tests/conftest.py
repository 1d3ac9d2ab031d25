"""Session-wide test settings."""

import gc
import os
import shutil
import tempfile

import pytest

# chunktui caches parsed vocabularies in the user cache folder; tests keep theirs apart
_CACHE_HOME = tempfile.mkdtemp(prefix="chunktui-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME


def pytest_unconfigure(config):
    """pytest ends every xdist worker with five full garbage collections (to surface unraisable
    exceptions). Over the Textual objects the UI tests leave behind they took 3-4 s each on a busy
    machine, and execnet sends a worker still busy 5-10 s after it was told to stop a SIGINT (it
    has landed in a gc callback, after the results were in). Frozen objects are not scanned, so
    the final collections only look at what is created from here on."""
    gc.freeze()
    shutil.rmtree(_CACHE_HOME, ignore_errors=True)


def pytest_collection_modifyitems(items):
    """Every test of a `test_ui_*` module drives the Textual app: mark it `ui`, so that
    `make test-fast` (`-m "not ui"`) runs the engine, formats and CLI tests alone."""
    for item in items:
        if item.path.name.startswith("test_ui_"):
            item.add_marker(pytest.mark.ui)
