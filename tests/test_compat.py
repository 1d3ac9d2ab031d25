"""The private names of Textual and tiktoken that chunktui uses exist on the installed versions.

Both libraries are pinned; each private name chunktui reads is listed in one compat module
(chunktui/ui/compat.py, chunktui/engine/core/compat.py). After a version bump this test names
every listed attribute the new version lacks, instead of a worker that silently keeps its work,
a scrollbar that stops updating or an AttributeError deep in a token count."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from chunktui.engine.core import compat as tiktoken_compat
from chunktui.engine.core.tokens import get_encoding
from chunktui.ui import compat as textual_compat


def missing(library: str, objects: dict, private: dict) -> list[str]:
    """'textual 8.2.8: Worker has no attribute _work (chunktui uses it)' for each listed name absent."""
    return [
        f"{library} {version(library)}: {owner} has no attribute {name} (chunktui uses it)"
        for owner, names in private.items()
        for name in names
        if not hasattr(objects[owner], name)
    ]


def textual_objects() -> dict:
    """One instance of each class whose private names are listed (instance attributes are set in __init__)."""
    from textual.app import App
    from textual.widget import Widget
    from textual.widgets import Select
    from textual.worker import Worker

    app = App()
    return {"App": app, "Worker": Worker(app, lambda: None), "Widget": Widget(), "Select": Select([("a", 1)])}


def test_textual_has_every_private_name_the_app_uses():
    gone = missing("textual", textual_objects(), textual_compat.PRIVATE)
    assert not gone, "\n".join(gone)


def test_tiktoken_has_every_private_name_the_token_index_uses():
    encoding = get_encoding("cl100k_base")
    objects = {"Encoding": encoding}
    if hasattr(encoding, "_core_bpe"):
        objects["CoreBPE"] = tiktoken_compat.core_bpe(encoding)
    gone = missing("tiktoken", objects, {k: v for k, v in tiktoken_compat.PRIVATE.items() if k in objects})
    if "CoreBPE" not in objects:
        gone.append(f"tiktoken {version('tiktoken')}: so the CoreBPE methods cannot be checked")
    assert not gone, "\n".join(gone)


def test_a_missing_name_is_named_with_the_version():
    """What a version bump that drops a name looks like: the library, its version, the class, the name."""
    objects = textual_objects()
    objects["Worker"] = object()  # as a Worker without _work would be
    with pytest.raises(AssertionError, match=r"textual \S+: Worker has no attribute _work \(chunktui uses it\)"):
        gone = missing("textual", objects, textual_compat.PRIVATE)
        assert not gone, "\n".join(gone)
