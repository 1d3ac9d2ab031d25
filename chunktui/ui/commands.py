"""Command palette entries: every strategy, and every action of the app."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from chunktui.engine import all_strategies

ACTIONS = (
    ("Export chunks…", "export", "Write manifest.json and chunk files (e)"),
    ("Save profile…", "save_profile", "Write strategy, params and tokenizer to a YAML profile (ctrl+s)"),
    ("Help: all keys", "help", "List every key binding (?)"),
    ("Toggle histogram tokens / chars", "toggle_unit", "Size histogram in tokens or characters (t)"),
    ("Zoom the chunk detail", "toggle_detail", "Detail pane full screen, or back (z)"),
    ("Next chunk", "next_chunk", "Select and show the next chunk (n)"),
    ("Previous chunk", "prev_chunk", "Select and show the previous chunk (p)"),
    ("Larger size", "size(1)", "One step up for the strategy's size parameter (])"),
    ("Smaller size", "size(-1)", "One step down for the strategy's size parameter ([)"),
    ("More overlap", "overlap(1)", "One step up for the strategy's overlap parameter (})"),
    ("Less overlap", "overlap(-1)", "One step down for the strategy's overlap parameter ({)"),
    ("Next strategy", "next_strategy", "Step to the next strategy, with its one-line summary (s)"),
    ("Reset parameters to defaults", "reset", "Put every parameter of this strategy back to its default"),
    ("Open another file…", "open_picker", "Choose a document or chunks.yaml from the current folder"),
    ("Tune from saved parameters", "tune", "Leave review mode and re-chunk the unchanged source (ctrl+t)"),
)


class ActionCommands(Provider):
    """Palette entries for `actions`: (title, action, help) rows run with app.run_action."""

    actions: tuple[tuple[str, str, str], ...] = ()

    def _entries(self):
        for title, action, help_text in self.actions:
            yield title, partial(self.app.run_action, action), help_text

    async def discover(self) -> Hits:
        for title, command, help_text in self._entries():
            yield DiscoveryHit(title, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, command, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), command, help=help_text)


class ChunktuiCommands(ActionCommands):
    """'Strategy: NAME' for every registered strategy, plus the app's actions."""

    actions = ACTIONS

    def _entries(self):
        for s in all_strategies():
            yield f"Strategy: {s.name}", partial(self.app.run_action, f"strategy({s.name!r})"), s.summary
        yield from super()._entries()
