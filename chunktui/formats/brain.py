"""`--format brain`: one markdown note per chunk, for tools that ingest a folder of notes.

Each note, `code-<repo>-<filepath-slug>-chunk-N.md` (N from 0, as code-chunk names
them), holds its metadata as HTML comments (invisible when rendered, easy to
grep), the contextualized text for semantic search and the raw code in a fenced
block for exact search.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .export import register_writer
from .records import chunk_record, display_path, to_plain

_SLUG = re.compile(r"[^a-z0-9]+")
_FENCE_LANG = {"csharp": "cs", "tsx": "tsx", "cpp": "cpp"}


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-") or "file"


def repo_and_relpath(path) -> tuple[str, str]:
    """The git repository root folder name holding `path` (else its folder name) and the path below it."""
    p = Path(path).absolute()
    for parent in p.parents:
        if (parent / ".git").exists():
            return parent.name, p.relative_to(parent).as_posix()
    return p.parent.name or "root", p.name


def note_name(path, index: int, where: tuple[str, str] | None = None) -> str:
    """`where` is `repo_and_relpath(path)` when the caller already has it."""
    if not path:
        return f"code-text-chunk-{index}.md"
    repo, rel = where or repo_and_relpath(path)
    return f"code-{slug(repo)}-{slug(rel)}-chunk-{index}.md"


def _comment(key: str, value) -> str:
    text = value if isinstance(value, str) else json.dumps(to_plain(value), ensure_ascii=False)
    return f"<!-- {key}: {text.replace('--', '-' + chr(0x2011))} -->"  # `--` would end the comment


def _fence(code: str, lang: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{code}{'' if code.endswith(chr(10)) else chr(10)}{ticks}\n"


def _where(path) -> tuple[str, str]:
    return repo_and_relpath(path) if path else ("text", "<text>")


def render_note(cs, chunk, where: tuple[str, str] | None = None) -> str:
    doc = cs.document
    meta = chunk.metadata
    repo, rel = where or _where(doc.path)
    lang = meta.get("language") or doc.language or ""
    lines = [
        _comment("chunktui", "brain note"),
        _comment("source", display_path(doc.path) if doc.path else "<text>"),
        _comment("repo", repo),
        _comment("path", rel),
        _comment("chunk", f"{chunk.index + 1} of {len(cs.chunks)} ({chunk.id})"),
        _comment("lines", f"{chunk.start_line}-{chunk.end_line}"),
        _comment("bytes", f"{chunk.start_byte}-{chunk.end_byte}"),
        _comment("strategy", cs.strategy),
        _comment("tokens", f"{chunk.tokens} ({cs.tokenizer})"),
    ]
    for key in ("language", "scope_chain", "split_entity", "oversized", "imports", "siblings"):
        if key in meta:
            lines.append(_comment(key, meta[key]))
    if meta.get("entities"):
        lines.append(_comment("entities", [f"{e['kind']} {e['name']}" for e in meta["entities"]]))
    lines.append(_comment("record", chunk_record(chunk)))
    title = chunk.label or chunk.boundary_label or chunk.id
    body = ["", f"# {rel}: {title}", ""]
    fence_lang = _FENCE_LANG.get(lang, lang)
    if chunk.context_text is not None:
        body += ["## Context", "", _fence(chunk.context_text, fence_lang)]
    body += ["## Code", "", _fence(chunk.text, fence_lang)]
    return "\n".join(lines + body)


@register_writer("brain")
def write_brain(cs, folder: Path) -> list[str]:
    names = []
    path = cs.document.path
    where = _where(path)  # one walk up the folders for the repository root, not two per chunk
    for c in cs.chunks:
        name = note_name(path, c.index, where)
        with open(folder / name, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(render_note(cs, c, where))
        names.append(name)
    return names
