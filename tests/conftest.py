"""Session-wide test settings, and the fixtures several test modules use."""

import gc
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


def pytest_collection_modifyitems(items):
    """Every test of a `test_ui_*` module drives the Textual app: mark it `ui`, so that
    `make test-fast` (`-m "not ui"`) runs the engine, formats and CLI tests alone."""
    for item in items:
        if item.path.name.startswith("test_ui_"):
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
    shutil.copytree(Path(__file__).parent.parent / "sample_docs", folder,
                    ignore=shutil.ignore_patterns("queries", "*.mbox"))
    shutil.copytree(Path(json.__file__).parent, folder / "json", ignore=shutil.ignore_patterns("__pycache__"))
    return folder
