"""Session-wide test settings, and the fixtures several test modules use."""

import functools
import gc
import inspect
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension

from support.cli import SENTINEL

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


# How a synchronous test starts the Textual app: Textual's test driver, or tests/support/ui.py's
APP_DRIVERS = ("run_test(", "opened(")


@functools.cache
def _module_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def drives_the_app(item) -> bool:
    """An async test (tests/support/ui.py's `run` gives each its event loop, and each opens the
    app), or one whose body calls an APP_DRIVER; the module's text is read first, so the source of
    a test is looked at only in the few modules that name one. A test that starts the app some
    other way (the browser test) is marked `ui` by hand."""
    test = getattr(item, "function", None)
    if test is None:
        return False
    if inspect.iscoroutinefunction(inspect.unwrap(test)):
        return True
    if not any(driver in _module_text(item.path) for driver in APP_DRIVERS):
        return False
    return any(driver in inspect.getsource(test) for driver in APP_DRIVERS)


def pytest_collection_modifyitems(items):
    """Mark `ui` every test that drives the Textual app, wherever it lives, and no other (a
    `test_ui_*` module's tests of a widget's text or colours run without the app), so that
    `make test-fast` (`-m "not ui"`) runs everything that does not need it."""
    for item in items:
        if drives_the_app(item):
            item.add_marker(pytest.mark.ui)


SNAPSHOT_DIR = Path(__file__).resolve().parent.parent / "snapshots"


class RootSnapshots(SVGImageExtension):
    """pytest-textual-snapshot's SVG format, stored flat in snapshots/ instead of tests/__snapshots__/."""

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(SNAPSHOT_DIR)


@pytest.fixture
def svg_snapshot(snapshot, monkeypatch):
    """The snapshot, taken from the checkout's root: a code chunk's embedded text names its file as
    given, so samples are opened by a path relative to the root, the same in every clone."""
    monkeypatch.chdir(SNAPSHOT_DIR.parent)
    return snapshot.use_extension(RootSnapshots)


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A fresh working folder, the current one while the test runs, checked afterwards for the
    file a YAML tag would create if YAML were loaded unsafely (modules may override it)."""
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    assert not (tmp_path / SENTINEL).exists(), "a YAML tag ran a command"


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A folder of the sample documents and the standard library's json package: prose, markdown,
    code, logs (the folder runs' input, local and on a Dask cluster)."""
    import json

    folder = tmp_path / "corpus"
    shutil.copytree(
        Path(__file__).parent.parent / "sample_docs", folder, ignore=shutil.ignore_patterns("queries", "*.mbox")
    )
    shutil.copytree(Path(json.__file__).parent, folder / "json", ignore=shutil.ignore_patterns("__pycache__"))
    return folder
