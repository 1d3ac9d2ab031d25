"""The flags panel: the configuration's score and flag counts, and the selected chunk's flags."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from chunktui.engine.analysis.quality import Quality

SHOWN_FLAGS = 4  # reasons listed for the selected chunk


def flags_text(quality: Quality | None, selected: int | None, facts=None) -> Text:
    """Score line, non-zero warning counts, then why the selected chunk is flagged."""
    text = Text()
    if quality is None:
        text.append("quality: computing…", "dim")
        return text
    s = quality.score
    style = "green bold" if s.score >= 80 else "yellow bold" if s.score >= 50 else "red bold"
    text.append("score ", "bold")
    text.append(f"{s.score:g}/100 ", style)  # separators end a span: some SVG renderers drop leading spaces
    text.append(f"· spread {s.spread:.2f}\n", "dim")
    counts = [(name, n) for name, n in s.counts.items() if n]
    if counts:
        text.append(", ".join(f"{n} {name}" for name, n in counts) + "\n", "yellow")
        plural = "s" if s.flagged_chunks != 1 else ""
        text.append(f"{s.flagged_chunks} chunk{plural} flagged ({s.flagged_share:.0%} of tokens) · f/F jump\n", "dim")
    else:
        text.append("no flags\n", "green")
    if facts:
        tally = {k: sum(1 for f in facts if f.status == k) for k in ("whole", "split", "missing")}
        text.append(
            f"facts: {tally['whole']} whole, {tally['split']} split, {tally['missing']} missing\n",
            "red" if tally["split"] or tally["missing"] else "green",
        )
    if selected is not None:
        mine = quality.by_chunk().get(selected, [])
        if mine:
            text.append(f"chunk {selected + 1}:\n", "bold")
            for f in mine[:SHOWN_FLAGS]:
                text.append(f"• {f.name}: ", "yellow" if f.severity == "warning" else "dim")
                text.append(f"{f.reason}\n", "dim")
            if len(mine) > SHOWN_FLAGS:
                text.append(f"  … {len(mine) - SHOWN_FLAGS} more\n", "dim")
        else:
            text.append(f"chunk {selected + 1}: no flags\n", "dim")
    text.rstrip()
    return text


class FlagsPanel(Static):
    """Redrawn when a chunking's quality arrives and when the selection moves."""

    DEFAULT_CSS = """
    FlagsPanel {
        height: auto;
        max-height: 14;
        padding: 0 1;
        border-top: hkey $panel-lighten-2;
    }
    """

    def show(self, quality: Quality | None, selected: int | None, facts=None) -> None:
        self.update(flags_text(quality, selected, facts))

    @property
    def plain(self) -> str:
        content = self.content
        return content.plain if isinstance(content, Text) else str(content)
