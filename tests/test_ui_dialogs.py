"""Pilot tests of review mode, export and profile dialogs, help, file picker and demo."""

from __future__ import annotations

from textual.widgets import Button, Footer, Input, Select, Switch

from chunktui.engine import all_strategies, chunk_document, load_document
from chunktui.formats.export import writer_names
from chunktui.formats.profiles import load_profile
from chunktui.formats.store import save_chunkset
from chunktui.ui.app import ChunktuiApp
from chunktui.ui.commands import TITLES, ChunktuiCommands
from chunktui.ui.screens.export import ExportScreen
from chunktui.ui.screens.help import HelpScreen
from chunktui.ui.screens.picker import FilePickerScreen
from chunktui.ui.compat import notifications, select_options
from support.ui import FAST, SAMPLES, SIZE, assert_screen_matches_engine, opened, run, settle


@run
async def test_chunks_yaml_opens_in_review_mode_and_can_switch_to_tuning(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text((SAMPLES / "notes.md").read_text(encoding="utf-8"), encoding="utf-8")
    saved = chunk_document(load_document(source), "lines", {"size": 8, "overlap": 2})
    store = save_chunkset(saved, tmp_path / "chunks.yaml")
    async with opened(store) as (app, pilot):
        assert app.mode == "review"
        assert [(c.start, c.end, c.text) for c in app.chunkset.chunks] == [
            (c.start, c.end, c.text) for c in saved.chunks
        ]
        assert app.table.row_count == len(saved.chunks)
        assert "unchanged" in str(app.query_one("#banner").content)
        assert app.controls.disabled and "tune" in footer_actions(app)  # ctrl+t offered in review mode only
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.mode == "tune" and not app.controls.disabled and "tune" not in footer_actions(app)
        assert app.chunkset.strategy == "lines"
        assert [(c.start, c.end) for c in app.chunkset.chunks] == [(c.start, c.end) for c in saved.chunks]


def footer_actions(app) -> set[str]:
    """The actions the footer offers now (it is rebuilt when the app's bindings are refreshed)."""
    return {key.action for key in app.query_one(Footer).query("FooterKey")}


@run
async def test_chunks_yaml_of_a_changed_source_says_so(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text("# One\n\nfirst text\n", encoding="utf-8")
    store = save_chunkset(
        chunk_document(load_document(source), "lines", {"size": 1, "overlap": 0}), tmp_path / "chunks.yaml"
    )
    source.write_text("# One\n\nchanged text\n", encoding="utf-8")
    async with opened(store) as (app, pilot):
        assert app.mode == "review"
        assert "CHANGED" in str(app.query_one("#banner").content)
        assert app.chunkset.chunks[2].text == "first text\n"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.mode == "review"


@run
async def test_export_dialog_writes_files_and_names_the_manifest(tmp_path):
    out = tmp_path / "out"
    async with opened(SAMPLES / "inventory.py") as (app, pilot):
        count = len(app.chunkset.chunks)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        assert [o for o in writer_names()] == [str(v) for _, v in select_options(dialog.query_one("#export-format"))]
        dialog.query_one("#export-format", Select).value = "json"
        dialog.query_one("#export-dir", Input).value = str(out)
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        assert (out / "manifest.json").is_file() and (out / "chunks.json").is_file()
        assert any(str(out / "manifest.json") in n.message for n in notifications(app))

        # a second export into the now non-empty folder is refused in the dialog, then allowed with overwrite
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#export-dir", Input).value = str(out)
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is dialog
        assert str(dialog.query_one("#export-error").content)
        dialog.query_one("#export-overwrite", Switch).value = True
        dialog.query_one("#export-format", Select).value = "text"  # it offered the last one, json
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is not dialog
        assert len(list(out.glob("chunk-*.txt"))) == count


@run
async def test_export_worker_finishes_and_the_dialog_remembers_the_last_format_and_folder(tmp_path, monkeypatch):
    """Closing the dialog cancels its workers; the export's worker must have finished by then
    (before, it closed the dialog from inside itself and was cancelled mid-call, intermittently
    failing the export under load)."""
    from textual.worker import Worker

    cancelled = []
    real_cancel = Worker.cancel
    monkeypatch.setattr(Worker, "cancel", lambda self: (cancelled.append(self.group), real_cancel(self)))
    async with opened(SAMPLES / "inventory.py") as (app, pilot):
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-dir", Input).value = str(tmp_path / "out")
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        assert (tmp_path / "out" / "manifest.json").is_file()
        assert "export" not in cancelled

        await pilot.press("e")  # the dialog offers the format and folder of the last export again
        await pilot.pause()
        assert app.screen.query_one("#export-dir", Input).value == str(tmp_path / "out")
        app.screen.query_one("#export-format", Select).value = "jsonl"
        app.screen.query_one("#export-overwrite", Switch).value = True
        await pilot.click("#export-go")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.query_one("#export-format", Select).value == "jsonl"


@run
async def test_e_then_enter_exports_to_the_offered_folder_and_typing_edits_it(tmp_path, monkeypatch):
    """The dialog opens on the folder field: enter exports with the offered format and folder (on
    the format list, enter opened the list instead), and what a user types goes into the folder."""
    monkeypatch.chdir(tmp_path)  # the offered folder is chunks/<file> under the working directory
    async with opened(SAMPLES / "guide.md") as (app, pilot):
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#export-dir", Input)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        assert (tmp_path / "chunks" / "guide-md" / "manifest.json").is_file()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+u", *"again", "enter")  # clear the field, type a folder, export
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert (tmp_path / "again" / "manifest.json").is_file()


@run
async def test_save_profile_writes_what_the_controls_show(tmp_path):
    target = tmp_path / "p.yaml"
    async with opened(SAMPLES / "essay.txt", strategy="recursive", params={"size": 400, "overlap": 40}) as (app, pilot):
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#profile-path", Input).value = str(target)
        await pilot.click("#profile-save")
        await pilot.pause()
    profile = load_profile(target)
    assert profile.strategy == "recursive" and profile.params["size"] == 400 and profile.params["overlap"] == 40
    again = ChunktuiApp(path=SAMPLES / "essay.txt", profile=target, debounce=FAST)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.chunkset.strategy == "recursive" and again.chunkset.params["size"] == 400


@run
async def test_save_profile_dialog_reads_like_flags_and_refuses_an_empty_or_folder_path(tmp_path):
    async with opened(SAMPLES / "essay.txt", strategy="recursive", params={"size": 400, "overlap": 40}) as (app, pilot):
        await pilot.press("ctrl+s")
        await pilot.pause()
        title = str(app.screen.query_one("#profile-title").content)
        assert "size 400" in title and "overlap 40" in title and "{" not in title
        error = app.screen.query_one("#profile-error")
        for path, expected in (("", "choose a file"), (str(tmp_path), "is a folder")):
            app.screen.query_one("#profile-path", Input).value = path
            app.screen.query_one("#profile-save", Button).press()
            for _ in range(20):  # under load the press takes more than one pause to land
                await pilot.pause()
                if expected in str(error.content):
                    break
            assert expected in str(error.content) and "Errno" not in str(error.content)
        assert list(tmp_path.iterdir()) == []


@run
async def test_no_file_opens_the_picker_and_help_lists_every_binding():
    app = ChunktuiApp(debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FilePickerScreen)
    async with opened(SAMPLES / "notes.md") as (app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        listed = {b.id for _, group in app.screen.groups for b in group}
        assert {b.id for b in ChunktuiApp.BINDINGS} <= listed
        assert all(b.id and b.tooltip for _, group in app.screen.groups for b in group)


@run
async def test_demo_steps_through_strategies_with_their_summary():
    app = ChunktuiApp(demo=True, debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.controls.strategy_name
        assert str(app.query_one("#banner").content).startswith("Demo 1/")  # the tour starts at the start
        await pilot.press("s")
        await settle(pilot)
        strategy = app.controls.strategy
        assert strategy.name != first
        assert strategy.summary in str(app.query_one("#banner").content)
        assert_screen_matches_engine(app)
        assert not strategy.kinds or app.doc.kind in strategy.kinds


@run
async def test_every_demo_step_shows_its_strategy_cutting_the_sample():
    """The demo opened on adaptive making one chunk of all 207 lines of guide.md; every step now
    shows at least three chunks."""
    from chunktui.ui.samples import DEMO_MIN_CHUNKS

    app = ChunktuiApp(demo=True, debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        seen = {}
        for _ in range(len([s for s in all_strategies() if s.name != "auto"])):
            seen[app.controls.strategy_name] = len(app.chunkset.chunks)
            await pilot.press("s")
            await settle(pilot)
        assert len(seen) >= 15 and all(n >= DEMO_MIN_CHUNKS for n in seen.values()), seen


@run
async def test_palette_offers_every_strategy_and_switches_to_it():
    async with opened(SAMPLES / "essay.txt", strategy="lines") as (app, pilot):
        provider = ChunktuiCommands(app.screen)
        hits = {hit.text: hit async for hit in provider.discover()}
        for strategy in all_strategies():
            assert hits[f"Strategy: {strategy.name}"].help == strategy.summary
        assert {"Export chunks…", "Save profile…", "Help: all keys"} <= set(hits)
        await hits["Strategy: recursive"].command()
        await settle(pilot)
        assert app.controls.strategy_name == "recursive"
        assert_screen_matches_engine(app)


@run
async def test_palette_entries_are_made_from_the_key_bindings():
    """Each action's help and key in the palette are its binding's tooltip and key, written once."""
    async with opened(SAMPLES / "essay.txt", strategy="lines", params={"chunk_lines": 20}) as (app, pilot):
        hits = {hit.text: hit async for hit in ChunktuiCommands(app.screen).discover()}
        bound = {b.id: b for b in app.BINDINGS}
        assert set(TITLES) <= set(bound)  # a title for a binding that is gone would be dead
        for binding_id, title in TITLES.items():
            assert hits[title].help == f"{bound[binding_id].tooltip} ({app.get_key_display(bound[binding_id])})"
        assert hits["Save profile…"].help.endswith("(^s)") and hits["Larger size"].help.endswith("(])")
        await hits["Larger size"].command()
        await settle(pilot)
        assert app.chunkset.params["chunk_lines"] == 30  # one step (10 lines) up, as `]` does


@run
async def test_escape_from_the_picker_returns_to_the_open_document():
    async with opened(SAMPLES / "notes.md") as (app, pilot):
        app.action_open_picker()  # the palette's "Open another file…"
        await pilot.pause()
        assert isinstance(app.screen, FilePickerScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FilePickerScreen) and app.is_running
        assert app.doc.name == "notes.md"
    app = ChunktuiApp(debounce=FAST)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")  # nothing open yet: escape leaves chunktui
        await pilot.pause()
        assert not app.is_running


@run
async def test_a_saved_profile_keeps_the_budget_and_brings_it_back(tmp_path):
    """Profiles did not store the token budget the configuration was tuned against."""
    target = tmp_path / "p.yaml"
    async with opened(SAMPLES / "essay.txt", strategy="recursive", params={"size": 400, "overlap": 40}, budget=300) as (
        app,
        pilot,
    ):
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one("#profile-path", Input).value = str(target)
        await pilot.click("#profile-save")
        await pilot.pause()
    assert load_profile(target).budget == 300
    async with opened(SAMPLES / "essay.txt", profile=target) as (app, pilot):
        assert app.budget == 300
