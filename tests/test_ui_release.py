"""A replaced chunking is freed by reference counting, its big lists in slices off the event loop."""

from __future__ import annotations

import gc
import threading
import time
import weakref

from chunktui.ui import release as release_module
from support.ui import SAMPLES, opened, run, settle


class Item:
    """A list item whose end can be watched, and the thread that freed it."""

    freed_in: list[str] = []

    def __del__(self):
        Item.freed_in.append(threading.current_thread().name)


def wait_for(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_a_released_list_is_freed_in_slices_off_the_calling_thread_once_nothing_else_holds_it(monkeypatch):
    monkeypatch.setattr(release_module, "STEP", 3)
    Item.freed_in = []
    items = [Item() for _ in range(10)]
    holder = [items]  # the screen, say, still shows it
    release_module.release(items)
    del items
    time.sleep(3 * release_module.POLL_S)
    assert Item.freed_in == [] and len(holder[0]) == 10
    holder.clear()
    assert wait_for(lambda: len(Item.freed_in) == 10)
    assert set(Item.freed_in) == {"chunktui-release"}


@run
async def test_a_replaced_chunking_is_freed_without_a_collection():
    """Each result's drawing steps ran in a closure that called itself again: a reference cycle, so
    every replaced chunking lived until the app's idle collection freed it all at once on the event
    loop (117,000 chunks of a 100 MB log). Now nothing keeps it once the screen lets go."""
    async with opened(SAMPLES / "service.log", strategy="log-records") as (app, pilot):
        assert not gc.isenabled()  # the app paces the collector: only reference counting frees here
        old = weakref.ref(app.chunkset)
        freed_in: list[str] = []
        weakref.finalize(app.chunkset.chunks[-1], lambda: freed_in.append(threading.current_thread().name))
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.chunkset is not old() and app.chunkset.strategy == "log-records"
        await pilot.pause()
        assert old() is None
        assert wait_for(lambda: freed_in == ["chunktui-release"])  # its chunks: in slices, in the release thread
