"""The open file changes or disappears under the app: it keeps chunking, exporting and saving what it loaded."""

from __future__ import annotations

import json
import shutil

from textual.widgets import Input, Select, Switch

from chunktui.formats.profiles import load_profile
from chunktui.ui.screens.export import ExportScreen
from chunktui.ui.compat import notifications
from support.ui import SAMPLES, opened, run, set_input, settle


def assert_rechunked(app, original, size):
    """The shown chunks are `lines` chunks of `size` over the text the app loaded, not the file now on disk."""
    cs = app.chunkset
    assert cs.params["chunk_lines"] == size and cs.document.text == original
    assert all(original[c.start : c.end] == c.text and c.end_line - c.start_line < size for c in cs.chunks)
    assert app.table.row_count == len(cs.chunks) > 1


async def export_via_dialog(app, pilot, out, fmt):
    await pilot.press("e")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, ExportScreen)
    dialog.query_one("#export-format", Select).value = fmt
    dialog.query_one("#export-dir", Input).value = str(out)
    dialog.query_one("#export-overwrite", Switch).value = True
    await pilot.click("#export-go")
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert app.screen is not dialog, str(dialog.query_one("#export-error").content)


@run
async def test_changed_then_deleted_file_still_rechunks_and_exports(tmp_path):
    src = tmp_path / "guide.md"
    shutil.copy(SAMPLES / "guide.md", src)
    original = src.read_bytes().decode("utf-8")
    async with opened(src) as (app, pilot):
        app.query_one("#strategy", Select).value = "lines"
        await settle(pilot)
        await set_input(pilot, "#param-overlap_lines", "0")

        src.write_text("something else entirely\n", encoding="utf-8")
        await set_input(pilot, "#param-chunk_lines", "12")
        assert_rechunked(app, original, 12)
        await export_via_dialog(app, pilot, tmp_path / "changed", "json")
        stored = json.loads((tmp_path / "changed" / "chunks.json").read_text(encoding="utf-8"))
        assert "".join(c["content"] for c in stored["chunks"]) == original

        src.unlink()
        await set_input(pilot, "#param-chunk_lines", "7")
        assert_rechunked(app, original, 7)
        await export_via_dialog(app, pilot, tmp_path / "gone", "text")
        files = sorted((tmp_path / "gone").glob("chunk-*.txt"))
        assert len(files) == len(app.chunkset.chunks)
        assert "".join(f.read_bytes().decode("utf-8") for f in files) == original

        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#profile-path", Input).value = str(tmp_path / "p.yaml")
        await pilot.click("#profile-save")
        await pilot.pause()
        assert not [n for n in notifications(app) if n.severity == "error"]
    profile = load_profile(tmp_path / "p.yaml")
    assert profile.strategy == "lines" and profile.params["chunk_lines"] == 7
