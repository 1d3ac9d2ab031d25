"""In a browser (`chunktui serve`) an export is also delivered to the browser, as one zip of its folder."""

from __future__ import annotations

import io
import zipfile

from textual.widgets import Input

from chunktui.ui.app import ChunktuiApp
from chunktui.ui.compat import notifications
from support.ui import SAMPLES, opened, run


async def export_to(app, pilot, out) -> None:
    await pilot.press("e")
    await pilot.pause()
    app.screen.query_one("#export-dir", Input).value = str(out)
    await pilot.click("#export-go")
    await app.workers.wait_for_complete()
    await pilot.pause()
    await app.workers.wait_for_complete()  # the zip is made in a worker started by the dialog's result
    await pilot.pause()


@run
async def test_an_export_in_the_browser_is_delivered_as_a_zip_of_its_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(ChunktuiApp, "is_web", property(lambda app: True))
    delivered = []
    monkeypatch.setattr(
        ChunktuiApp, "deliver_binary", lambda app, file, **options: delivered.append((file.read(), options))
    )
    out = tmp_path / "inventory-py"
    async with opened(SAMPLES / "inventory.py") as (app, pilot):
        await export_to(app, pilot, out)
        assert (out / "manifest.json").is_file()
        [(data, options)] = delivered
        assert options["save_filename"] == "inventory-py.zip" and options["mime_type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = sorted(archive.namelist())
            assert names == sorted(
                f"inventory-py/{p.relative_to(out).as_posix()}" for p in out.rglob("*") if p.is_file()
            )
            assert archive.read("inventory-py/manifest.json") == (out / "manifest.json").read_bytes()
        assert any("inventory-py.zip" in n.message for n in notifications(app))


@run
async def test_an_export_in_a_terminal_delivers_nothing(tmp_path, monkeypatch):
    delivered = []
    monkeypatch.setattr(ChunktuiApp, "deliver_binary", lambda app, file, **options: delivered.append(file))
    async with opened(SAMPLES / "inventory.py") as (app, pilot):
        await export_to(app, pilot, tmp_path / "out")
        assert (tmp_path / "out" / "manifest.json").is_file() and delivered == []
