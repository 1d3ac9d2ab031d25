"""The selected chunk in full: where it lives, what the strategy recorded, its text with overlaps marked.

Metadata shows generically (key: value), so a new strategy's keys appear without UI
work. Strategy-specific views (a code scope tree, an email thread tree, cue
timelines, quality flags) plug in with `register_detail_panel`.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widgets import RichLog

from chunktui.engine import Chunk, ChunkSet
from chunktui.engine.core.model import one_line

TEXT_LIMIT = 6000  # chars of chunk text drawn; the middle of a longer chunk is elided
PATH_KEYS = ("scope_chain", "header_path")

DetailPanel = Callable[[Chunk, ChunkSet], "RenderableType | None"]
_PANELS: list[tuple[str, DetailPanel]] = []
_PREPARERS: list[Callable[[ChunkSet], object]] = []


def on_click(action: str, style: str = "") -> Style:
    """`style`, underlined, plus a click that runs `action` on the app: `select_chunk(3)`, `goto_line(120)`."""
    return Style.parse(style or "none") + Style(underline=True) + Style.from_meta({"@click": f"app.{action}"})


def register_detail_panel(
    title: str, panel: DetailPanel, prepare: Callable[[ChunkSet], object] | None = None
) -> DetailPanel:
    """Add a section to the detail pane; `panel` returns a renderable, or None when it has nothing to say.
    `prepare`, if given, does the panel's pass over a whole chunking, in the chunking's worker."""
    _PANELS.append((title, panel))
    if prepare is not None:
        _PREPARERS.append(prepare)
    return panel


def prepare_panels(cs: ChunkSet) -> None:
    """What the panels read of every chunk of `cs`, made before it is shown (see `register_detail_panel`)."""
    for prepare in _PREPARERS:
        prepare(cs)


def format_meta(value: Any) -> str:
    """One metadata value as short text: lists joined, entity dicts as 'kind name (lines a-b)'."""
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, dict) for v in value):
            return "\n".join(_entity(v) for v in value)
        return ", ".join(format_meta(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={format_meta(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _entity(item: dict) -> str:
    if "name" not in item:
        return ", ".join(f"{k}={v}" for k, v in item.items())
    head = str(item.get("signature") or item["name"])
    if item.get("kind") and not head.startswith(f"{item['kind']} "):  # `class Foo(Base)` says it already
        head = f"{item['kind']} {head}"
    if "start_line" in item:
        head += f" (lines {item['start_line']}-{item.get('end_line', item['start_line'])})"
    return head


def chunk_text(chunk: Chunk) -> Text:
    """The chunk's text with the parts shared with the previous / next chunk highlighted."""
    text = chunk.text
    head_len, tail_len = chunk.overlap_prev_chars, chunk.overlap_next_chars
    out = Text(no_wrap=False)
    if len(text) <= TEXT_LIMIT:
        pieces = [(0, len(text))]
    else:
        half = TEXT_LIMIT // 2
        pieces = [(0, half), (len(text) - half, len(text))]
    for n, (a, b) in enumerate(pieces):
        if n:
            out.append(f"\n… {pieces[1][0] - pieces[0][1]:,} chars not shown …\n", "dim italic")
        for s, e, style in _overlap_pieces(a, b, head_len, len(text) - tail_len):
            out.append(text[s:e].replace("\t", "    "), style)
    return out


def _overlap_pieces(a: int, b: int, head_end: int, tail_start: int):
    cuts = sorted({a, b, *(x for x in (head_end, tail_start) if a < x < b)})
    for s, e in zip(cuts, cuts[1:]):
        in_overlap = s < head_end or s >= tail_start
        yield s, e, "black on #f9a8d4" if in_overlap else ""


def detail_renderable(chunk: Chunk, chunkset: ChunkSet) -> RenderableType:
    head = Text()
    # separators end the previous span: some SVG renderers drop spaces that start a styled span
    head.append(f"{chunk.id} ", "bold")
    head.append(
        f"· lines {chunk.start_line}-{chunk.end_line} · chars {chunk.start}-{chunk.end}"
        f"{_pages(chunk.metadata)} · {chunk.chars:,} chars · {chunk.tokens:,} tokens"
        + (f", {chunk.embed_tokens:,} embedded" if chunk.embed_tokens != chunk.tokens else "")
        + f" ({chunkset.tokenizer})\n"
    )
    head.append(f"{chunk.boundary_type}", "italic")
    if chunk.boundary_label:
        head.append(f": {one_line(chunk.boundary_label)}")
    path = next((chunk.metadata[k] for k in PATH_KEYS if chunk.metadata.get(k)), None)
    if path:
        head.append("\n")
        head.append(one_line(" > ".join(map(str, path)) if isinstance(path, (list, tuple)) else str(path)), "bold cyan")
    facts = Table.grid(padding=(0, 1))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column()
    facts.add_row("overlap prev", f"{chunk.overlap_prev_chars:,} chars / {chunk.overlap_prev_lines} lines")
    facts.add_row("overlap next", f"{chunk.overlap_next_chars:,} chars / {chunk.overlap_next_lines} lines")
    facts.add_row("sha256", chunk.sha256)
    for key, value in chunk.metadata.items():
        if key not in PATH_KEYS:
            facts.add_row(key.replace("_", " "), format_meta(value))
    parts: list[RenderableType] = [head, facts]
    for title, panel in _PANELS:
        extra = panel(chunk, chunkset)
        if extra is not None:
            parts += [Text(title, "bold underline"), extra]
    if chunk.embed_text != chunk.text:
        parts += [
            Text("embedded text (what the embedding model sees)", "bold underline"),
            Text(chunk.embed_text[:TEXT_LIMIT], "dim"),
        ]
    parts += [Text("text", "bold underline"), chunk_text(chunk)]
    return Group(*parts)


def _pages(metadata) -> str:
    """' · page 3' or ' · pages 3-4' for a chunk of a PDF, else nothing."""
    first, last = metadata.get("page_start"), metadata.get("page_end")
    if first is None:
        return ""
    return f" · page {first}" if first == last else f" · pages {first}-{last}"


class ChunkDetail(RichLog):
    """Scrollable detail of the selected chunk; a Line API log, so a new chunk never re-lays out the screen."""

    ALLOW_MAXIMIZE = True  # `z` gives it the whole screen, so the panels below the fold come into view

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=False, **kwargs)
        self.shown: Chunk | None = None

    def on_mount(self) -> None:
        self.write(Text("select a chunk", "dim"))

    def show(self, chunk: Chunk | None, chunkset: ChunkSet | None) -> None:
        self.shown = chunk
        self.clear()
        if chunk is None or chunkset is None:
            self.write(Text("select a chunk", "dim"))
        else:
            # a fixed width (the scrollbar gutter is always reserved) keeps wrapping independent of timing
            self.write(detail_renderable(chunk, chunkset), width=self.scrollable_content_region.width or None)
        self.scroll_home(animate=False)
