"""Exports from the app in a browser (`chunktui serve`): the export folder is offered as one zip download.

The files are written on the server's disk, where the browser's user cannot reach them, so after
an export succeeds the folder goes to the browser through Textual's deliver-file API. One zip is one
download prompt, where the folder's files one by one would be dozens.
"""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App

    from chunktui.formats.export import ExportResult


def zip_name(result: ExportResult) -> str:
    return f"{result.out_dir.name}.zip"


def zip_export(result: ExportResult) -> bytes:
    """Every file the export wrote, under a folder of the export folder's name (as it unzips)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in result.files:
            archive.write(path, f"{result.out_dir.name}/{path.relative_to(result.out_dir).as_posix()}")
    return buffer.getvalue()


def offer_download(app: App, result: ExportResult) -> None:
    """In a browser, zip the export in a thread (a big export would stall the screen) and deliver it."""
    if not app.is_web:
        return
    app.run_worker(lambda: _zip_and_deliver(app, result), thread=True, group="deliver-export", exit_on_error=False)


def _zip_and_deliver(app: App, result: ExportResult) -> None:
    try:
        data = zip_export(result)
    except Exception as exc:  # a thread worker's error is silent unless reported here
        why = exc.strerror or str(exc) if isinstance(exc, OSError) else f"internal error: {exc!r}"
        app.call_from_thread(
            app.notify, f"{result.out_dir}: cannot zip it for download ({why})", severity="error", timeout=10
        )
        return
    app.call_from_thread(
        app.deliver_binary, io.BytesIO(data), save_filename=zip_name(result), mime_type="application/zip"
    )
    app.call_from_thread(
        app.notify, f"{zip_name(result)} ({len(data):,} bytes) offered for download", title="Download", timeout=10
    )
