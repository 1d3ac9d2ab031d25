"""The app's scope tree panel: definitions nested, mapped to their chunks, cut ones marked."""

from pathlib import Path

import pytest
from rich.console import Console

from chunktui.engine import chunk_document, load_document
from chunktui.ui.widgets.scope_tree import build_scope_nodes, scope_panel
from chunktui.ui.compat import notifications

ROOT = Path(__file__).parent.parent


def render(renderable) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_tree_nests_methods_and_marks_split_definitions():
    cs = chunk_document(load_document(ROOT / "sample_docs/inventory.py"), "code", {"max_chunk_size": 1500})
    roots = build_scope_nodes(cs)
    service = next(n for n in roots if n.entity["name"] == "InventoryService")
    assert [c.entity["name"] for c in service.children][:3] == ["__init__", "get", "_get_or_create"]
    reconcile = next(c for c in service.children if c.entity["name"] == "reconcile")
    assert reconcile.split and len(reconcile.chunks) >= 2
    inside = cs.chunks[reconcile.chunks[1]]
    text = render(scope_panel(inside, cs))
    assert "▶ m reconcile" in text and "✂" in text
    assert "InventoryService" in text and "suggest_reorders" in text
    first = render(scope_panel(cs.chunks[0], cs))
    assert "reconcile" not in first  # only the path to the selected chunk is expanded


def test_no_panel_without_entities():
    cs = chunk_document(load_document(ROOT / "sample_docs/guide.md"), "lines", {})
    assert scope_panel(cs.chunks[0], cs) is None


@pytest.mark.ui
def test_app_falls_back_to_semantic_for_a_file_without_grammar():
    import asyncio

    from chunktui.ui.app import ChunktuiApp

    async def go():
        app = ChunktuiApp(path=ROOT / "sample_docs/guide.md", strategy="code")
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            await app.wait_idle()
            await pilot.pause()
            assert app.chunkset is not None and app.chunkset.strategy == "semantic"
            assert any("No code grammar" in (n.title or "") for n in notifications(app))

    asyncio.run(go())
