"""`chunktui search`: the best chunks of a `--format sqlite` export for a query, with where they are.

Registered by commands.py (`cli.add_command`); the search itself is chunktui/formats/sqlite.py.
"""

from __future__ import annotations

from pathlib import Path

import click

SNIPPET_CHARS = 160


@click.command("search")
@click.argument("db", type=click.Path(path_type=Path), metavar="CHUNKS.db")
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True, help="How many chunks to print.")
def search_command(db, query, k):
    """Print the K chunks of CHUNKS.db (or the export folder holding it) that best match QUERY:
    BM25 over their embedded texts (SQLite FTS5), each with its source, lines and score."""
    from chunktui.formats.sqlite import search_db

    hits = search_db(db, query, k)
    if not hits:
        click.echo(f"no chunk holds a word of {query!r}")
    for rank, hit in enumerate(hits, 1):
        click.echo(
            f"{rank:>2}. {hit['source'] or '<text>'}:{hit['start_line']}-{hit['end_line']}  {hit['id']}  "
            f"chars {hit['start_char']}-{hit['end_char']}  {hit['tokens']} tokens  score {hit['score']:.3g}"
        )
        click.echo(f"    {_snippet(hit['text'])}")


def _snippet(text: str) -> str:
    """The chunk's start on one line: whitespace runs as one space, cut at SNIPPET_CHARS."""
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"
