"""The lines `chunktui chunk` prints: the one-line result and the `--dry-run` plan."""

from __future__ import annotations

from pathlib import Path

from chunktui.formats.records import display_path, folder_display, printable_path

MAX_GAPS_SHOWN = 5


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _typed(value) -> str:
    """A param as the user types it: delimiter strings hold escapes already, so repr() would double them."""
    if not isinstance(value, str):
        return str(value)
    return f'"{value}"' if "'" in value else f"'{value}'"


def _lines(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def result_line(cs, out_dir: Path, manifest_path: Path) -> str:
    """`Split guide.md (312 lines) into 9 chunks using markdown. Output: chunks/guide-md/. Manifest: ...`"""
    doc = cs.document
    return (
        f"Split {printable_path(doc.name)} ({plural(doc.line_count, 'line')}) into "
        f"{plural(len(cs.chunks), 'chunk')} "
        f"using {cs.strategy}. Output: {folder_display(out_dir)}. Manifest: {display_path(manifest_path)}"
    )


def plan_lines(cs, out_dir: Path, fmt: str, budget: int, requested: str, target_note: str = "") -> list[str]:
    """What a run would do: strategy (and who picked it), sizes, coverage, gaps and the output folder."""
    doc = cs.document
    st = cs.stats(budget)
    picked = f" (picked by {requested})" if requested != cs.strategy else ""
    lines = [
        f"{printable_path(str(doc.path or doc.name))} ({plural(doc.line_count, 'line')}, "
        f"{plural(len(doc.text), 'char')}, {doc.kind}" + (f" {doc.language}" if doc.language else "") + ")",
        f"  strategy   {cs.strategy}{picked}",
        "  params     " + (" ".join(f"{k}={_typed(v)}" for k, v in cs.params.items()) or "-"),
        f"  tokenizer  {cs.tokenizer}",
        f"  chunks     {st.count:,}"
        + (f" ({st.over_budget:,} over the {budget:,}-token budget)" if st.over_budget else ""),
        f"  chars      min {st.chars_min:,}  median {st.chars_median:,.0f}  p95 {st.chars_p95:,.0f}  max {st.chars_max:,}"
        if st.count
        else "  chars      -",
        f"  tokens     min {st.tokens_min:,}  median {st.tokens_median:,.0f}  p95 {st.tokens_p95:,.0f}  max {st.tokens_max:,}"
        if st.count
        else "  tokens     -",
        f"  coverage   {st.coverage:.1%} of the text, overlap {st.overlap_share:.1%} of chunk text",
    ]
    if cs.gaps:
        shown = [
            f"{_lines(g.start_line, g.end_line)} ({g.reason}, {plural(g.chars, 'char')})"
            for g in cs.gaps[:MAX_GAPS_SHOWN]
        ]
        more = f"; and {len(cs.gaps) - MAX_GAPS_SHOWN} more" if len(cs.gaps) > MAX_GAPS_SHOWN else ""
        lines.append(f"  gaps       {len(cs.gaps)} ({plural(st.gap_chars, 'char')}): " + "; ".join(shown) + more)
    else:
        lines.append("  gaps       none")
    lines += [f"  note       {n}" for n in cs.notes]
    lines += [f"  warning    {w}" for w in cs.warnings]
    lines.append(f"  output     {folder_display(out_dir)} as {fmt}" + (f" ({target_note})" if target_note else ""))
    return lines
