"""`chunktui FOLDER`: a folder of mail opens as one mailbox, any other folder as a corpus whose
files open with the configuration on screen, with totals over all of them."""

from __future__ import annotations

import shutil

from textual.widgets import OptionList

from chunktui.ui.app import ChunktuiApp
from support.ui import FAST, SAMPLES, SIZE, run, settle


@run
async def test_a_folder_opens_as_a_corpus_and_keeps_the_configuration_across_files(tmp_path):
    for name in ("guide.md", "notes.md", "essay.txt"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    app = ChunktuiApp(tmp_path, strategy="recursive", params={"size": 300, "overlap": 30}, debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        corpus = app.corpus
        assert corpus.display and [p.name for p in corpus.files] == ["essay.txt", "guide.md", "notes.md"]
        assert app.doc.name == "essay.txt" and app.chunkset.strategy == "recursive"
        files = app.query_one("#corpus-files", OptionList)
        files.focus()
        files.highlighted = 2
        await pilot.press("enter")
        await settle(pilot)
        assert app.doc.name == "notes.md"
        assert app.chunkset.strategy == "recursive" and app.chunkset.params["size"] == 300
        await app.workers.wait_for_complete()
        await pilot.pause()
        totals = str(app.query_one("#corpus-totals").content)
        assert totals.startswith("3/3 files") and "…" not in totals


@run
async def test_a_folder_of_eml_files_opens_as_one_mailbox(tmp_path):
    for i in (1, 2):
        (tmp_path / f"m{i}.eml").write_text(
            f"From: a@example.com\nTo: b@example.com\nSubject: note {i}\n"
            f"Date: Mon, 1 Jan 2024 10:0{i}:00 +0000\nMessage-ID: <m{i}@x>\n\n"
            f"Body {i}.\n",
            encoding="utf-8",
        )
    app = ChunktuiApp(tmp_path, debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.doc.kind == "email" and not app.corpus.display
        assert app.chunkset is not None and app.chunkset.chunks


@run
async def test_a_fifo_named_like_a_chunk_store_is_refused_not_waited_on(tmp_path):
    import asyncio
    import os

    fifo = tmp_path / "saved.yaml"
    os.mkfifo(fifo)
    app = ChunktuiApp(debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        opened = await asyncio.wait_for(app.open_path(fifo), timeout=10)
        assert opened is False and app.doc is None
