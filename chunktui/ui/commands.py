"""Command palette entries: every strategy, and every action of the app.

An action's entry is made from its key binding (ids in BINDINGS): the binding's tooltip is the
entry's help and its key is shown after it, so a description or a key is written once, where the
key is bound. The palette adds a title per binding id; the few actions no key runs are listed here.
"""

from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from chunktui.engine import all_strategies

TITLES = {  # binding id -> palette title; a binding left out here is not in the palette (quit, < >)
    "export": "Export chunks…",
    "save_profile": "Save profile…",
    "help": "Help: all keys",
    "toggle_unit": "Toggle histogram tokens / chars",
    "toggle_detail": "Zoom the chunk detail",
    "next_chunk": "Next chunk",
    "prev_chunk": "Previous chunk",
    "size_up": "Larger size",
    "size_down": "Smaller size",
    "overlap_up": "More overlap",
    "overlap_down": "Less overlap",
    "next_strategy": "Next strategy",
    "tune": "Tune from saved parameters",
    "next_flag": "Next flagged chunk",
    "prev_flag": "Previous flagged chunk",
    "sweep": "Sweep sizes and overlaps…",
    "compare": "Compare with another configuration…",
    "facts": "Key facts…",
    "query_pane": "Query the chunks…",
}
UNBOUND = (  # (title, action, help) of the actions no key runs
    ("Reset parameters to defaults", "reset", "Put every parameter of this strategy back to its default"),
    ("Open another file…", "open_picker", "Choose a document or chunks.yaml from the current folder"),
    (
        "Load questions with known answers…",
        "load_queries",
        "A queries file (or N synthetic questions): hit or missed per question, recall and IoU live",
    ),
)


class ChunktuiCommands(Provider):
    """'Strategy: NAME' for every registered strategy, then the app's actions."""

    def _entries(self):
        run = self.app.run_action
        for s in all_strategies():
            yield f"Strategy: {s.name}", partial(run, f"strategy({s.name!r})"), s.summary
        for binding in self.app.BINDINGS:  # the app writes each as a Binding, with an id
            if isinstance(binding, Binding) and binding.id in TITLES:
                yield (
                    TITLES[binding.id],
                    partial(run, binding.action),
                    f"{binding.tooltip} ({self.app.get_key_display(binding)})",
                )
        for title, action, help_text in UNBOUND:
            yield title, partial(run, action), help_text

    async def discover(self) -> Hits:
        for title, command, help_text in self._entries():
            yield DiscoveryHit(title, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, command, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), command, help=help_text)
