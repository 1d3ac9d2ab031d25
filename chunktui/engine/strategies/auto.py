"""`auto`: the format-native strategy for the file type, run with its defaults.

From autowiki's strategy selection: .md/.txt -> prose, .log/.jsonl -> log,
.csv/.tsv -> data, source code -> code, .vtt/.srt -> cues, .mbox/.eml or a folder
of .eml -> email; an unknown or missing extension goes by content (text that reads
as words -> prose, with or without an extension), anything else -> semantic. The ChunkSet records the strategy
actually run and its params, and a note says which one and why, so the app and
`--dry-run` can show it. Code in a language without a grammar falls back to
semantic, with a note saying so.
"""

from __future__ import annotations

from pathlib import Path

from . import Proposal, Strategy, get_strategy, register
from ..core.errors import ParamError
from ..code.languages import UnsupportedLanguageError
from ..readers.mail import FOLDER_SEPARATOR

BY_EXTENSION = {
    ".md": "prose",
    ".markdown": "prose",
    ".mdx": "prose",
    ".txt": "prose",
    ".rst": "prose",
    ".log": "log",
    ".jsonl": "log",
    ".ndjson": "log",
    ".csv": "data",
    ".tsv": "data",
    ".vtt": "cues",
    ".srt": "cues",
    ".mbox": "email",
    ".eml": "email",
}
BY_KIND = {
    "markdown": "prose",
    "prose": "prose",
    "log": "log",
    "jsonl": "log",
    "csv": "data",
    "tsv": "data",
    "subtitles": "cues",
    "email": "email",
    "code": "code",
}
FALLBACK = "semantic"


def pick_strategy(doc) -> tuple[str, str]:
    """(strategy name, why) for a document: by extension, else by the kind its content showed."""
    ext = Path(doc.path).suffix.lower() if doc.path else ""
    if doc.text.startswith(FOLDER_SEPARATOR):
        return "email", "a folder of .eml files"
    if getattr(doc, "extraction", None) is not None:
        return "prose", f"{ext} is read as markdown (text extracted by {doc.extractor}), as .md is"
    if ext in BY_EXTENSION:
        return BY_EXTENSION[ext], ext
    if doc.kind == "code":
        return "code", f"{ext or 'its content'} is {doc.language or 'source'} code"
    unknown = f" (unknown extension {ext})" if ext else ""
    # "prose" is also the kind of any unrecognised text: it counts only when the text reads as words
    if doc.kind in BY_KIND and (doc.kind != "prose" or reads_as_prose(doc.text)):
        return BY_KIND[doc.kind], f"its content looks like {doc.kind}{unknown}"
    return FALLBACK, f"no format-specific strategy for {ext or 'this text'} ({doc.kind})"


def reads_as_prose(text: str) -> bool:
    """Mostly letters and spaces in the first 4 KB: words, not data, markup or a dump."""
    head = text[:4096]
    if not head.strip():
        return True
    wordy = sum(c.isalpha() or c == " " for c in head)
    return wordy >= 0.7 * sum(not c.isspace() or c == " " for c in head)


def delegate(doc, params, ctx) -> Proposal:
    """Run the strategy picked for `doc` with `params` (validated against that strategy)."""
    name, why = pick_strategy(doc)
    target = get_strategy(name)
    try:
        values = target.validate(params)
    except ParamError as exc:
        raise ParamError(
            exc.name, f"{exc.problem} (auto picked {target.name} because {why}; choose another with --strategy)"
        ) from None
    try:
        proposal = target.run(doc, values, ctx)
    except UnsupportedLanguageError as exc:
        target = get_strategy(FALLBACK)
        values = target.validate({})
        proposal = target.run(doc, values, ctx)
        why = f"the code strategy cannot parse this file ({exc})"
    proposal.strategy = target.name
    proposal.params = values
    proposal.notes = [f"auto: picked {target.name} because {why}", *proposal.notes]
    return proposal


register(
    Strategy(
        name="auto",
        summary="Picks the strategy for the file type (prose, log, data, code, cues, email, else semantic).",
        params=(),
        run=delegate,
        covering=False,  # it may delegate to a sampling strategy (log, data)
        delegates=True,
        size_param=None,
        overlap_param=None,
    )
)
